package s002

import (
	"fmt"
	"strings"

	"github.com/conclab/conclab/display"
)

// Excerpt shows lines from..to of one of Files (numbered as in the file),
// marking the lines in mark with "◀": the code under judgment, read from
// the file the real clients run.
func Excerpt(name string, from, to int, mark ...int) (display.Data, error) {
	code, err := Code(name)
	if err != nil {
		return display.Data{}, err
	}
	return excerpt(name, code, from, to, mark)
}

// excerpt is Excerpt of a file's text (shared shape with s003's).
func excerpt(name, code string, from, to int, mark []int) (display.Data, error) {
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
