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

// quickBurst writes params-burst with metadata conclab.quick set to quick
// into a temporary directory and returns its path.
func quickBurst(t *testing.T, quick any) string {
	t.Helper()
	nb, err := notebook.ReadFile(filepath.Join("..", "..", "notebook", "testdata", "params-burst.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	nb.Metadata["conclab"] = map[string]any{"quick": quick}
	path := filepath.Join(t.TempDir(), "quick-burst.ipynb")
	if err := nb.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func lastCellText(t *testing.T, path string) string {
	t.Helper()
	nb, err := notebook.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, o := range nb.Cells[len(nb.Cells)-1].Outputs {
		text += o.Text
		if s, ok := o.Data["text/plain"].(string); ok {
			text += s
		}
	}
	return text
}

// `conclab run --quick` applies the notebook's metadata conclab.quick as -p
// parameters; an explicit -p wins; without --quick the defaults run.
func TestRunQuickParameters(t *testing.T) {
	src := quickBurst(t, map[string]any{"n": "5", "wait": "1ms"})
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"quick", []string{"--quick"}, []string{"n=5 wait=1ms", "goroutines      5       0", "parameters n=5 wait=1ms"}},
		{"explicit -p wins", []string{"--quick", "-p", "n", "3"}, []string{"n=3 wait=1ms", "goroutines      3       0", "parameters n=3 wait=1ms"}},
		{"not quick", nil, []string{"n=10 wait=20ms", "goroutines     10       0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			code, log := runCmd(t, append([]string{"--out", out, src}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d; want 0\n%s", code, log)
			}
			text := lastCellText(t, filepath.Join(out, "quick-burst.ipynb")) + log
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("output and log lack %q:\n%s", w, text)
				}
			}
		})
	}
}

func TestRunQuickBadMetadata(t *testing.T) {
	tests := []struct {
		name  string
		quick any
		args  []string
		code  int
		want  string
	}{
		{"not text", map[string]any{"n": 5.0}, []string{"--quick"}, 1, `--quick: notebook metadata conclab.quick.n is a number (5); want text as on -p, such as "5"`},
		{"not an object", "n=5", []string{"--quick"}, 1, "conclab.quick is a string"},
		{"unknown name", map[string]any{"users": "5"}, []string{"--quick"}, 1, "quick parameters (metadata conclab.quick): unknown parameter users"},
		{"bad value", map[string]any{"wait": "2"}, []string{"--quick"}, 1, `parameter wait: want time.Duration (a number with a unit: 500ms, 2s, 1m30s), got "2"`},
		{"inplace", map[string]any{"n": "5"}, []string{"--quick", "--inplace"}, 1, "--quick with --inplace would write the notebook's quick parameters into it"},
	}
	for _, tt := range tests {
		code, log := runCmd(t, append([]string{quickBurst(t, tt.quick)}, tt.args...)...)
		if code != tt.code || !strings.Contains(log, tt.want) {
			t.Errorf("%s: exit %d, log:\n%s\nwant exit %d and %q", tt.name, code, log, tt.code, tt.want)
		}
	}
}
