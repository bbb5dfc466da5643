package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/conclab/conclab/notebook"
)

// `conclab run -p NAME VALUE`: the burst of notebook/testdata/params-burst
// runs with n from the command line; -p may follow the paths, as flags do.
func TestRunParameters(t *testing.T) {
	out := t.TempDir()
	src := filepath.Join("..", "..", "notebook", "testdata", "params-burst.ipynb")
	code, log := runCmd(t, "--out", out, src, "-p", "n", "7", "--parameters", "wait", "2ms")
	if code != 0 {
		t.Fatalf("exit %d; want 0\n%s", code, log)
	}
	nb, err := notebook.ReadFile(filepath.Join(out, "params-burst.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(nb.Cells) != 5 {
		t.Fatalf("%d cells; want 5 (the injected one added)", len(nb.Cells))
	}
	if tags, _ := nb.Cells[2].Metadata["tags"].([]any); len(tags) != 1 || tags[0] != notebook.TagInjectedParameters {
		t.Errorf("third cell tags %v; want [%s]", nb.Cells[2].Metadata["tags"], notebook.TagInjectedParameters)
	}
	var text string
	for _, o := range nb.Cells[4].Outputs {
		text += o.Text
		if s, ok := o.Data["text/plain"].(string); ok {
			text += s
		}
	}
	if !strings.Contains(text, "n=7 wait=2ms") || !strings.Contains(text, "goroutines      7       0") {
		t.Errorf("last cell shows %q; want n=7 and a count of 7", text)
	}
}

func TestRunParametersBadUsage(t *testing.T) {
	src := filepath.Join("..", "..", "notebook", "testdata", "params-burst.ipynb")
	untagged := filepath.Join(t.TempDir(), "untagged.ipynb")
	writeNotebook(t, untagged, "wait := time.Second", "wait")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no value", []string{src, "-p", "n"}, 2, "-p needs a name and a value: -p NAME VALUE"},
		{"inplace", []string{"--inplace", src, "-p", "n", "3"}, 2, "-p with --inplace would write the parameters into the source notebook"},
		{"unknown", []string{src, "-p", "users", "3"}, 1, "unknown parameter users: the parameters cell (cell 2) declares label, n, verbose, wait"},
		{"bad value", []string{src, "-p", "n", "3.5"}, 1, `parameter n: want int, got "3.5"`},
		{"no parameters cell", []string{untagged, "-p", "wait", "1s"}, 1, `no code cell is tagged "parameters"`},
	}
	for _, tt := range tests {
		code, log := runCmd(t, tt.args...)
		if code != tt.code || !strings.Contains(log, tt.want) {
			t.Errorf("%s: exit %d, log:\n%s\nwant exit %d and %q", tt.name, code, log, tt.code, tt.want)
		}
	}
}
