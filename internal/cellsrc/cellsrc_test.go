package cellsrc_test

import (
	"reflect"
	"testing"

	"github.com/conclab/conclab/internal/cellsrc"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	type P = cellsrc.Part
	tests := []struct {
		name string
		cell string
		want []P
	}{
		{"go only", "x := 1\nx", []P{{cellsrc.Go, "x := 1\nx", 1, false}}},
		{"shell and magic lines", "$ ls -l\n%cd /tmp\nfmt.Println(1)\n",
			[]P{{cellsrc.Shell, "ls -l", 1, true}, {cellsrc.Magic, "%cd /tmp", 2, true}, {cellsrc.Go, "fmt.Println(1)\n", 3, true}}},
		{"indented magic", "x := 1\n  $ echo hi\ny := 2",
			[]P{{cellsrc.Go, "x := 1\n", 1, true}, {cellsrc.Shell, "echo hi", 2, true}, {cellsrc.Go, "y := 2", 3, false}}},
		{"dollar inside a raw string is Go", "s := `\n$ not a command\n%not a magic\n`\n$ echo after",
			[]P{{cellsrc.Go, "s := `\n$ not a command\n%not a magic\n`\n", 1, true}, {cellsrc.Shell, "echo after", 5, false}}},
		{"blank lines between magics", "$ a\n\n$ b",
			[]P{{cellsrc.Shell, "a", 1, true}, {cellsrc.Go, "\n", 2, true}, {cellsrc.Shell, "b", 3, false}}},
		{"a backquote in a comment opens nothing", "// a ` here\n$ echo x",
			[]P{{cellsrc.Go, "// a ` here\n", 1, true}, {cellsrc.Shell, "echo x", 2, false}}},
		{"empty cell", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cellsrc.Split(tt.cell); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Split(%q) =\n%#v\nwant\n%#v", tt.cell, got, tt.want)
			}
		})
	}
}

func TestMagicName(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, name, args string }{
		{"%cd /tmp", "cd", "/tmp"},
		{"%cd", "cd", ""},
		{"%env\tA=1  ", "env", "A=1"},
	}
	for _, tt := range tests {
		if n, a := cellsrc.MagicName(tt.in); n != tt.name || a != tt.args {
			t.Errorf("MagicName(%q) = %q, %q; want %q, %q", tt.in, n, a, tt.name, tt.args)
		}
	}
}

func TestUnits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		src      string
		units    []string
		decl     []bool
		fileOnly []bool
	}{
		{"statements and declarations",
			"import \"fmt\"\ntype T int\nx := T(1)\nfunc f() {}\nfunc (T) M() {}\nvar v = 2\nconst c = 3\nfmt.Println(x)",
			[]string{`import "fmt"`, "type T int", "x := T(1)", "func f() {}", "func (T) M() {}", "var v = 2", "const c = 3", "fmt.Println(x)"},
			[]bool{true, true, false, true, true, true, true, false},
			[]bool{true, false, false, true, true, false, false, false}},
		{"if, for, switch and select headers keep their semicolons",
			"for i := 0; i < 3; i++ {\n}\nif x := f(); x {\n}\nswitch y := 1; y {\n}",
			[]string{"for i := 0; i < 3; i++ {\n}", "if x := f(); x {\n}", "switch y := 1; y {\n}"},
			[]bool{false, false, false}, []bool{false, false, false}},
		{"written semicolons end units and belong to them", "a := 1; b := 2",
			[]string{"a := 1;", "b := 2"}, []bool{false, false}, []bool{false, false}},
		{"function literals are statements", "func() { println() }()\nf := func(x int) {}",
			[]string{"func() { println() }()", "f := func(x int) {}"}, []bool{false, false}, []bool{false, false}},
		{"generic method", "func (l *List[T]) Push(v T) {}",
			[]string{"func (l *List[T]) Push(v T) {}"}, []bool{true}, []bool{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			us, err := cellsrc.Units(tt.src)
			if err != nil {
				t.Fatalf("scan error %+v", err)
			}
			var got []string
			var decl, file []bool
			for _, u := range us {
				got = append(got, tt.src[u.Start:u.End])
				decl = append(decl, u.Declaration())
				file = append(file, u.FileOnly())
			}
			if !reflect.DeepEqual(got, tt.units) || !reflect.DeepEqual(decl, tt.decl) || !reflect.DeepEqual(file, tt.fileOnly) {
				t.Errorf("Units =\n%q %v %v\nwant\n%q %v %v", got, decl, file, tt.units, tt.decl, tt.fileOnly)
			}
		})
	}
}

func TestUnitsScanError(t *testing.T) {
	t.Parallel()
	_, err := cellsrc.Units("x := 1\ny := \"open")
	if err == nil || err.Line != 2 || err.Col != 6 {
		t.Errorf("scan error = %+v; want line 2 col 6", err)
	}
}
