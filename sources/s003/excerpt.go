package s003

import (
	"fmt"
	"strings"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/sources/internal/excerpt"
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
	d, err := excerpt.Markdown(name, code, from, to, mark)
	if err != nil {
		return display.Data{}, fmt.Errorf("s003: %w", err)
	}
	return d, nil
}

// Handlers shows the code under judgment: the Flask app's two handlers
// (app003_flask.py 20–32), the sum as the source writes it (_conclab.py
// 44–47, the guilty line marked) and the FastAPI app's def route
// (app003_fastapi.py 35–37).
func Handlers() (display.Data, error) {
	var b strings.Builder
	for _, x := range []struct {
		name     string
		from, to int
		mark     []int
	}{{"app003_flask.py", 20, 32, []int{30}}, {"_conclab.py", 44, 47, []int{47}}, {"app003_fastapi.py", 35, 37, nil}} {
		d, err := Excerpt(x.name, x.from, x.to, x.mark...)
		if err != nil {
			return display.Data{}, err
		}
		b.WriteString(d.Data[display.MIMETypeMarkdown].(string) + "\n")
	}
	return display.Markdown(b.String()), nil
}

// SplitServers are the two-worker servers whose split a lesson measures:
// SplitStacks as the source ran them, then each with --reuse-port.
var SplitServers = []Stack{{Workers: 2, Threads: 5}, {Workers: 2, Threads: 5, ReusePort: true}, {FastAPI: true, Workers: 2}, {FastAPI: true, Workers: 2, ReusePort: true}}
