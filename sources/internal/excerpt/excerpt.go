// Package excerpt shows lines of a source's Python file as a lesson shows
// the code under judgment: numbered as in the file, the guilty lines marked
// "◀". One shape for every source package's Excerpt.
package excerpt

import (
	"fmt"
	"strings"

	"github.com/conclab/conclab/display"
)

// Markdown is lines from..to (1-based, inclusive) of code, the text of
// the file name, as a Markdown code block, marking the lines in mark. A
// range outside the file is an error naming it.
func Markdown(name, code string, from, to int, mark []int) (display.Data, error) {
	lines := strings.Split(strings.TrimRight(code, "\n"), "\n")
	if from < 1 || to < from || to > len(lines) {
		return display.Data{}, fmt.Errorf("excerpt %s: lines %d..%d out of 1..%d", name, from, to, len(lines))
	}
	marked := map[int]bool{}
	for _, m := range mark {
		marked[m] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`%s`, lines %d–%d:\n\n```python\n", name, from, to)
	for i := from; i <= to; i++ {
		l := lines[i-1]
		if marked[i] {
			l += "  # ◀"
		}
		fmt.Fprintf(&b, "%3d  %s\n", i, l)
	}
	b.WriteString("```\n")
	return display.Markdown(b.String()), nil
}
