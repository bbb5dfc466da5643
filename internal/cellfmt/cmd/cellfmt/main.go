// Command cellfmt formats notebook cells for scripts/check-notebooks.py: it
// reads a JSON array of cell sources on stdin and writes a JSON array of
// results, one per cell, in order: {"src": formatted} or {"error": why}.
// The cells are formatted by package cellfmt (gofmt's rules for a cell).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/conclab/conclab/internal/cellfmt"
)

type result struct {
	Src   string `json:"src"`
	Error string `json:"error,omitempty"`
}

func main() {
	var cells []string
	if err := json.NewDecoder(os.Stdin).Decode(&cells); err != nil {
		fmt.Fprintln(os.Stderr, "cellfmt: stdin is not a JSON array of strings:", err)
		os.Exit(2)
	}
	out := make([]result, len(cells))
	for i, c := range cells {
		f, err := cellfmt.Format(c)
		if err != nil {
			out[i] = result{Src: c, Error: err.Error()}
			continue
		}
		out[i] = result{Src: f}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "cellfmt:", err)
		os.Exit(1)
	}
}
