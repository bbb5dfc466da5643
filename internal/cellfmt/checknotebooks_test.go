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
	// One run over all the notebooks, as CI runs it, then --fix, then
	// the check again (each run of the checker starts Python).
	paths := map[string]string{}
	var all []string
	for _, tc := range tests {
		p := write(strings.ReplaceAll(tc.name, " ", "-")+".ipynb", tc.minor, tc.cells...)
		paths[tc.name] = p
		all = append(all, p)
	}
	if _, ok := run(append([]string{"--fix"}, paths["clean"])...); !ok { // Jupyter's layout
		t.Fatalf("--fix of the clean notebook failed")
	}
	clean, _ := os.ReadFile(paths["clean"])
	reported := func(out, path string) []string {
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, path+": ") {
				lines = append(lines, l)
			}
		}
		return lines
	}
	out, ok := run(all...)
	if ok {
		t.Fatalf("the check passed on bad notebooks:\n%s", out)
	}
	for _, tc := range tests {
		p := paths[tc.name]
		got := reported(out, p)
		if len(tc.want) == 0 && len(got) > 0 {
			t.Errorf("%s: a clean notebook was reported: %q", tc.name, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) || len(got) == 0 {
				t.Errorf("%s: the report lacks %q for %s:\n%s", tc.name, w, p, out)
			}
		}
	}
	before := map[string]string{}
	for name, p := range paths {
		b, _ := os.ReadFile(p)
		before[name] = string(b)
	}
	run(append([]string{"--fix"}, all...)...)
	out, _ = run(all...)
	for _, tc := range tests {
		p := paths[tc.name]
		got := reported(out, p)
		after, _ := os.ReadFile(p)
		switch {
		case tc.fixed && len(got) > 0:
			t.Errorf("%s: still failing after --fix: %q", tc.name, got)
		case !tc.fixed && len(got) == 0:
			t.Errorf("%s: passes after --fix; want it still reported", tc.name)
		case strings.Contains(strings.Join(got, "\n"), "not a valid notebook") && string(after) != before[tc.name]:
			t.Errorf("%s: --fix rewrote an invalid notebook", tc.name)
		}
	}
	if after, _ := os.ReadFile(paths["clean"]); string(after) != string(clean) {
		t.Errorf("--fix changed a clean notebook")
	}
}
