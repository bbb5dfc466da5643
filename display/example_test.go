package display_test

import (
	"fmt"

	"github.com/conclab/conclab/display"
)

type greeting string

func (g greeting) HTML() string { return "<b>" + string(g) + "</b>" }

func ExampleRender() {
	d, ok := display.Render(greeting("hello"))
	fmt.Println(ok, d.Data["text/html"], d.Data["text/plain"])
	// Output: true <b>hello</b> hello
}

func ExampleHTML() {
	d := display.HTML("<h1>Hi</h1>")
	fmt.Println(d.Data["text/html"])
	// Output: <h1>Hi</h1>
}
