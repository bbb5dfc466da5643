package display_test

import (
	"fmt"
	"sort"

	"github.com/conclab/conclab/display"
)

// printPublisher prints what it is sent, as a front end would show it.
type printPublisher struct{}

func (printPublisher) Display(d display.Data) error {
	var types []string
	for t := range d.Data {
		types = append(types, t)
	}
	sort.Strings(types)
	fmt.Println("display", types, d.Data["text/plain"])
	return nil
}
func (printPublisher) Update(id string, d display.Data) error {
	fmt.Println("update", d.Data["text/plain"])
	return nil
}
func (printPublisher) Clear(bool) error { return nil }

// Show renders a value by its methods (here HTML) and sends it to the
// installed publisher — the kernel, or `conclab run`; without one it
// returns ErrNoPublisher.
func ExampleShow() {
	fmt.Println(display.Show(greeting("none yet")) == display.ErrNoPublisher)
	restore := display.SetPublisher(printPublisher{})
	defer restore()
	display.Show(greeting("hello"))
	// Output:
	// true
	// display [text/html text/plain] hello
}
