package notebook_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/conclab/conclab/internal/symbols"
	"github.com/conclab/conclab/kernel/eval"
	"github.com/conclab/conclab/notebook"
)

// lab links the lab's packages into the notebook's interpreter, as the
// conclab command does (ExecuteIsolated's child gets them from ChildMain).
func lab(o notebook.Options) notebook.Options {
	o.Symbols = eval.Symbols{Packages: symbols.Symbols, Docs: symbols.Docs}
	return o
}

func Example() {
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
 {"id": "intro", "cell_type": "markdown", "metadata": {}, "source": "# Squares"},
 {"id": "loop", "cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
  "source": ["for i := 1; i <= 3; i++ {\n", "\tfmt.Println(i * i)\n", "}"]},
 {"id": "sum", "cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
  "source": "1 + 4 + 9"}]}`
	nb, err := notebook.Read(strings.NewReader(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := notebook.Execute(context.Background(), nb, lab(notebook.Options{Name: "squares.ipynb"})); err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			text := o.Text
			if o.Type == notebook.OutputExecuteResult {
				text = o.Data["text/plain"].(string)
			}
			fmt.Printf("cell %s [%d] %s: %q\n", c.ID, *c.ExecutionCount, o.Type, text)
		}
	}
	var page bytes.Buffer
	if err := nb.WriteHTML(&page, notebook.HTMLOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(page.String(), `<h1 id="squares">Squares</h1>`))
	// Output:
	// cell loop [1] stream: "1\n4\n9\n"
	// cell sum [2] execute_result: "14"
	// true
}

// ExecuteIsolated runs the notebook in a child process: here the program
// itself, started with the argument "notebook-child", for which its main
// (this package's TestMain) calls notebook.ChildMain. A cell that overflows
// its stack ends only the child; the cell records the fatal error.
func ExampleExecuteIsolated() {
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
 {"id": "hello", "cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
  "source": "fmt.Println(\"hello from the child\")"},
 {"id": "deep", "cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
  "source": "debug.SetMaxStack(8 << 20)\nfunc down(n int) int { return down(n+1) + 1 }\ndown(0)"}]}`
	nb, err := notebook.Read(strings.NewReader(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Println(err)
		return
	}
	err = notebook.ExecuteIsolated(context.Background(), nb, lab(notebook.Options{Name: "deep.ipynb"}),
		exec.Command(exe, "notebook-child"))
	var fe *notebook.FatalError
	fmt.Println("fatal:", errors.As(err, &fe))
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			switch o.Type {
			case notebook.OutputStream:
				fmt.Printf("cell %s: %q\n", c.ID, o.Text)
			case notebook.OutputError:
				fmt.Printf("cell %s: %s: %s\n", c.ID, o.EName, o.EValue)
			}
		}
	}
	// Output:
	// fatal: true
	// cell hello: "hello from the child\n"
	// cell deep: FatalError: stack overflow (goroutine stack exceeds 8388608-byte limit)
}
