package notebook

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/conclab/conclab/notebook/params"
)

func TestParamsImportPath(t *testing.T) {
	t.Parallel()
	if got := reflect.TypeOf(params.Param{}).PkgPath(); got != paramsImport {
		t.Errorf("the injected cell imports %q; package params is %q", paramsImport, got)
	}
}

func TestDeclaredNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src          string
		vars, consts string
	}{
		{"vus := 20\nthink := time.Second // think time\nimage := \"8k\"\nquick := false", "image quick think vus", ""},
		{"import \"time\"\n\nvar (\n\tn = 3\n\twait, grace time.Duration = time.Second, 2 * time.Second\n)\nconst limit = 9", "grace n wait", "limit"},
		{"a, b := 1, 2\n_, c := f()\nx = 5\nfunc g() { inner := 1 }\nif y := 2; y > 1 {\n\tz := 3\n}", "a b c", ""},
		{"const (\n\tA = iota\n\tB\n)\nvar s = []int{1,\n\t2}\nm := map[string]int{\"k\": 1}", "m s", "A B"},
		{"var x int; y := 2", "x y", ""},
		{"", "", ""},
		{"x := `unterminated", "x", ""},
	}
	for _, tt := range tests {
		vars, consts := declaredNames(tt.src)
		if got := sortedKeys(vars); got != tt.vars {
			t.Errorf("declaredNames(%q) vars = %q; want %q", tt.src, got, tt.vars)
		}
		if got := sortedKeys(consts); got != tt.consts {
			t.Errorf("declaredNames(%q) consts = %q; want %q", tt.src, got, tt.consts)
		}
	}
}

func sortedKeys(m map[string]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}

func TestQuote(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"500ms", `"500ms"`},
		{`say "hi"\now`, `"say \"hi\"\\now"`},
		{"a\nb\tc\rd\x00e\x7f", `"a\nb\tc\rd\x00e\x7f"`},
		{"명령 ✓ \u2028", "\"명령 ✓ \u2028\""},
		{"bad\xffbyte", `"bad\xffbyte"`},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s; want %s", tt.in, got, tt.want)
		}
	}
}

func TestParametersCell(t *testing.T) {
	t.Parallel()
	got := ParametersCell([]Parameter{{"vus", "40"}, {"think", "500ms"}})
	want := "// Parameters\nimport \"github.com/conclab/conclab/notebook/params\"\n\nparams.Set(\n" +
		"\tparams.Value(\"vus\", &vus, \"40\"),\n\tparams.Value(\"think\", &think, \"500ms\"),\n)"
	if got != want {
		t.Errorf("ParametersCell = %q; want %q", got, want)
	}
}

func paramsNotebook(t *testing.T) *Notebook {
	t.Helper()
	nb := goNotebook(t, "import \"time\"", "vus := 20\nthink := time.Second\nimage := \"8k\"\nquick := false\nconst cap = 9",
		"fmt.Printf(\"%T=%v %T=%v %T=%v %T=%v\\n\", vus, vus, think, think, image, image, quick, quick)")
	nb.Cells[1].Metadata["tags"] = []any{TagParameters}
	return nb
}

func TestSetParametersErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ps   []Parameter
		want string
	}{
		{"unknown", []Parameter{{"vus", "1"}, {"nosuch", "2"}}, "unknown parameter nosuch: the parameters cell (cell 2) declares image, quick, think, vus"},
		{"constant", []Parameter{{"cap", "2"}}, "parameter cap: the parameters cell (cell 2) declares it a constant"},
		{"not an identifier", []Parameter{{"3d", "2"}}, `parameter name "3d" is not a Go identifier`},
		{"keyword", []Parameter{{"func", "2"}}, `parameter name "func" is not a Go identifier`},
	}
	for _, tt := range tests {
		nb := paramsNotebook(t)
		before := len(nb.Cells)
		err := nb.SetParameters(tt.ps)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: SetParameters = %v; want an error containing %q", tt.name, err, tt.want)
		}
		if len(nb.Cells) != before {
			t.Errorf("%s: the notebook changed (%d cells, was %d)", tt.name, len(nb.Cells), before)
		}
	}
	nb := goNotebook(t, "vus := 1")
	if err := nb.SetParameters([]Parameter{{"vus", "2"}}); err == nil || !strings.Contains(err.Error(), `no code cell is tagged "parameters"`) {
		t.Errorf("no parameters cell: SetParameters = %v; want the missing tag named", err)
	}
}

func TestSetParametersPlacement(t *testing.T) {
	t.Parallel()
	nb := paramsNotebook(t)
	if err := nb.SetParameters([]Parameter{{"vus", "40"}, {"think", "1s"}, {"vus", "41"}}); err != nil {
		t.Fatal(err)
	}
	if len(nb.Cells) != 4 || !hasTag(nb.Cells[2], TagInjectedParameters) {
		t.Fatalf("cells after SetParameters: %d, third tagged %v; want 4, the third injected", len(nb.Cells), nb.Cells[2].Metadata)
	}
	if want := ParametersCell([]Parameter{{"vus", "41"}, {"think", "1s"}}); nb.Cells[2].Source != want {
		t.Errorf("injected cell = %q; want %q (a repeated name keeps its last value, in its first place)", nb.Cells[2].Source, want)
	}
	id := nb.Cells[2].ID
	// A second run replaces the injected cell instead of adding one.
	if err := nb.SetParameters([]Parameter{{"quick", "true"}}); err != nil {
		t.Fatal(err)
	}
	if len(nb.Cells) != 4 || nb.Cells[2].ID != id || !strings.Contains(nb.Cells[2].Source, `&quick, "true"`) {
		t.Errorf("after a second SetParameters: %d cells, injected %q (id %s, was %s); want it replaced in place",
			len(nb.Cells), nb.Cells[2].Source, nb.Cells[2].ID, id)
	}
}

// The values land typed in the interpreter: int, time.Duration, string,
// bool, from the same text papermill and conclab run give.
func TestParametersRun(t *testing.T) {
	nb := paramsNotebook(t)
	if err := nb.SetParameters([]Parameter{{"vus", "40"}, {"think", "500ms"}, {"image", "7k \"png\""}, {"quick", "true"}}); err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), nb, lab(Options{Name: "params"})); err != nil {
		t.Fatal(err)
	}
	got := nb.Cells[3].Outputs[0].Text
	if want := "int=40 time.Duration=500ms string=7k \"png\" bool=true\n"; got != want {
		t.Errorf("after the injected cell: %q; want %q", got, want)
	}
}

func TestParametersRunBadValue(t *testing.T) {
	nb := paramsNotebook(t)
	if err := nb.SetParameters([]Parameter{{"vus", "many"}, {"think", "2"}}); err != nil {
		t.Fatal(err)
	}
	err := Execute(context.Background(), nb, lab(Options{Name: "params"}))
	var ce *CellError
	if !errors.As(err, &ce) || ce.Cell != 3 {
		t.Fatalf("Execute = %v; want the injected cell (3) to fail", err)
	}
	msg := err.Error()
	for _, want := range []string{`parameter vus: want int, got "many"`, `parameter think: want time.Duration (a number with a unit: 500ms, 2s, 1m30s), got "2"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q; want it to contain %q", msg, want)
		}
	}
}
