package lab

import (
	"html"
	"strings"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/display"
)

// shapeView renders a table and a summary line as one output.
type shapeView struct {
	f    *frame.Frame
	line string
}

func (v shapeView) Render() display.Data {
	return display.MIME(display.MIMEMap{
		display.MIMETypeText: strings.TrimRight(v.f.String(), "\n") + "\n" + v.line,
		display.MIMETypeHTML: v.f.HTML() + `<p style="font-family:sans-serif;font-size:13px"><b>` + html.EscapeString(v.line) + `</b></p>`,
	}, nil)
}
