package cellfmt_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The notebook checker (scripts/check-notebooks.py with this package's
// command), run as CI runs it, on notebooks written here: a clean one
// passes; outputs, execution counts, a cell gofmt would change, a cell that
// does not parse, an old nbformat are each caught, naming the notebook and
// the cell; --fix repairs what it can, after which the notebook passes.
func TestCheckNotebooks(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import nbformat").Run(); err != nil {
		t.Skipf("%s with nbformat (Debian's python3-nbformat) is not installed: %v", py, err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "cellfmt")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/conclab/conclab/internal/cellfmt/cmd/cellfmt").CombinedOutput(); err != nil {
		t.Fatalf("go build cellfmt: %v\n%s", err, out)
	}
	script, err := filepath.Abs("../../scripts/check-notebooks.py")
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, bool) {
		cmd := exec.Command(py, append([]string{script, "--cellfmt", bin}, args...)...)
		out, err := cmd.CombinedOutput()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("running the checker: %v", err)
		}
		return string(out), err == nil
	}
	good := `import "fmt"

x := 6 * 7
fmt.Println(x)`
	type cell struct {
		Source  string
		Outputs []any
		Count   any
	}
	write := func(name string, minor int, cells ...cell) string {
		var cs []map[string]any
		cs = append(cs, map[string]any{"cell_type": "markdown", "id": "intro", "metadata": map[string]any{}, "source": "# A notebook"})
		for i, c := range cells {
			outs := c.Outputs
			if outs == nil {
				outs = []any{}
			}
			cs = append(cs, map[string]any{"cell_type": "code", "id": "c" + string(rune('0'+i)), "metadata": map[string]any{},
				"execution_count": c.Count, "outputs": outs, "source": c.Source})
		}
		nb := map[string]any{"cells": cs, "nbformat": 4, "nbformat_minor": minor, "metadata": map[string]any{
			"kernelspec": map[string]any{"name": "conclab", "display_name": "Go (conclab)", "language": "go"}}}
		if minor < 5 {
			for _, c := range cs {
				delete(c, "id")
			}
		}
		b, err := json.Marshal(nb)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stream := map[string]any{"output_type": "stream", "name": "stdout", "text": "42\n"}

	tests := []struct {
		name  string
		cells []cell
		minor int
		want  []string // in the report, besides the notebook's path
		fixed bool     // --fix leaves it passing
	}{
		{"clean", []cell{{Source: good}}, 5, nil, true},
		{"outputs", []cell{{Source: good}, {Source: "x", Outputs: []any{stream}, Count: 3}}, 5,
			[]string{"cell 3 (id c1): has 1 output(s)", "cell 3 (id c1): has execution count 3"}, true},
		{"not gofmt-clean", []cell{{Source: good}, {Source: "for i:=0;i<3;i++ {\nfmt.Println(i)\n}"}}, 5,
			[]string{"cell 3 (id c1): not gofmt-clean", "+for i := 0; i < 3; i++ {", "+\tfmt.Println(i)"}, true},
		{"does not parse", []cell{{Source: "x := 1\nif x > 0 {\n"}}, 5,
			[]string{"cell 2 (id c0): does not parse as Go: line 2"}, false},
		{"nbformat 4.4", []cell{{Source: good}}, 4, []string{"nbformat 4.4; want 4.5"}, false},
		{"invalid", []cell{{Source: good, Count: "one"}}, 5, []string{"not a valid notebook"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(tc.name, " ", "-")+".ipynb", tc.minor, tc.cells...)
			out, ok := run(p)
			if len(tc.want) == 0 {
				// A clean notebook still needs Jupyter's layout, which --fix gives.
				if _, ok := run("--fix", p); !ok {
					t.Fatalf("--fix of a clean notebook failed")
				}
				out, ok = run(p)
				if !ok || !strings.Contains(out, "1 notebook(s) ok") {
					t.Fatalf("a clean notebook failed the check:\n%s", out)
				}
				return
			}
			if ok {
				t.Fatalf("the check passed; want it to fail with %q:\n%s", tc.want, out)
			}
			for _, w := range append(tc.want, p+": ") {
				if !strings.Contains(out, w) {
					t.Errorf("the report lacks %q:\n%s", w, out)
				}
			}
			before, _ := os.ReadFile(p)
			_, fixOK := run("--fix", p)
			if fixOK != tc.fixed {
				t.Fatalf("--fix passed: %v; want %v", fixOK, tc.fixed)
			}
			after, _ := os.ReadFile(p)
			if !tc.fixed {
				if strings.Contains(out, "not a valid notebook") && string(after) != string(before) {
					t.Fatalf("--fix rewrote an invalid notebook")
				}
				return
			}
			if out, ok := run(p); !ok {
				t.Fatalf("after --fix the check still fails:\n%s", out)
			}
		})
	}
}
