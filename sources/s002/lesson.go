package s002

import (
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/sources/internal/excerpt"
)

// Excerpt shows lines from..to of one of Files (numbered as in the file),
// marking the lines in mark with "◀": the code under judgment, read from
// the file the real clients run.
func Excerpt(name string, from, to int, mark ...int) (display.Data, error) {
	code, err := Code(name)
	if err != nil {
		return display.Data{}, err
	}
	return excerpt.Markdown(name, code, from, to, mark)
}
