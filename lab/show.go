package lab

import (
	"errors"
	"fmt"
	"sort"

	"github.com/conclab/conclab/display"
)

// show displays v through the installed publisher, or prints text when
// there is none (tests, plain programs; an empty text prints nothing).
func show(v any, text string) error {
	err := display.Show(v)
	if errors.Is(err, display.ErrNoPublisher) {
		if text != "" {
			fmt.Println(text)
		}
		return nil
	}
	return err
}

func sortStrings(s []string) { sort.Strings(s) }
