package s003

import (
	"fmt"
	"strings"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/display"
)

// Excerpt shows lines from..to of one of Files, or of the helpers every
// app shares (cpython.Shared: _conclab.py, where the sum of squares is),
// numbered as in the file and marking the lines in mark with "◀": the
// code under judgment, read from the files the real apps run.
func Excerpt(name string, from, to int, mark ...int) (display.Data, error) {
	code, err := Code(name)
	if err != nil {
		if c, err2 := cpython.Code(cpython.Shared(), name); err2 == nil {
			code, err = c, nil
		}
	}
	if err != nil {
		return display.Data{}, err
	}
	lines := strings.Split(strings.TrimRight(code, "\n"), "\n")
	if from < 1 || to < from || to > len(lines) {
		return display.Data{}, fmt.Errorf("s003: Excerpt %s: lines %d..%d out of 1..%d", name, from, to, len(lines))
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
