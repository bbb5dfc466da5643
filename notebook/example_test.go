package notebook_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/conclab/conclab/notebook"
)

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
	if err := notebook.Execute(context.Background(), nb, notebook.Options{Name: "squares.ipynb"}); err != nil {
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
