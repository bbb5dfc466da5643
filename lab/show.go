package lab

import (
	"errors"
	"fmt"

	"github.com/conclab/conclab/display"
)

// show displays v through the installed publisher, or prints text when
// there is none (tests, plain programs).
func show(v any, text string) error {
	err := display.Show(v)
	if errors.Is(err, display.ErrNoPublisher) {
		fmt.Println(text)
		return nil
	}
	return err
}
