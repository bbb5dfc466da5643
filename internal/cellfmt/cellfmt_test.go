package cellfmt_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/conclab/conclab/internal/cellfmt"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean statements stay", "x := 1\nif x > 0 {\n\tfmt.Println(x)\n}\nx", "x := 1\nif x > 0 {\n\tfmt.Println(x)\n}\nx"},
		{"spacing", "x:=1+2\nfmt.Println( x )", "x := 1 + 2\nfmt.Println(x)"},
		{"indentation", "for i := 0; i < 3; i++ {\nfmt.Println(i)\n}", "for i := 0; i < 3; i++ {\n\tfmt.Println(i)\n}"},
		{"trailing newline and blank lines", "\n\nx := 1\n\n\n\ny := 2\n\n", "x := 1\n\ny := 2"},
		{"import block sorted", "import (\n\t\"os\"\n\t\"fmt\"\n)\n\nfmt.Println(os.Args)", "import (\n\t\"fmt\"\n\t\"os\"\n)\n\nfmt.Println(os.Args)"},
		{"single import", "import \"fmt\"\nfmt.Println(1)", "import \"fmt\"\nfmt.Println(1)"},
		{"func declaration among statements", "x := 2\nfunc twice(n int) int {\nreturn 2*n\n}\n\nfmt.Println(twice(x))",
			"x := 2\nfunc twice(n int) int {\n\treturn 2 * n\n}\n\nfmt.Println(twice(x))"},
		{"method declaration", "type T struct{ n int }\n\nfunc (t T) N() int { return t.n }\nT{3}.N()", "type T struct{ n int }\n\nfunc (t T) N() int { return t.n }\nT{3}.N()"},
		{"function literal is a statement", "func() {\nfmt.Println(1)\n}()", "func() {\n\tfmt.Println(1)\n}()"},
		{"struct fields aligned", "type plan struct {\nname string\nn int\n}", "type plan struct {\n\tname string\n\tn    int\n}"},
		{"raw string lines kept", "s := `a\n\tb\nc`\nif true {\nt := `x\n  y`\n_ = t\n}", "s := `a\n\tb\nc`\nif true {\n\tt := `x\n  y`\n\t_ = t\n}"},
		{"comments", "// first\nx := 1 // one\n\n// last", "// first\nx := 1 // one\n\n// last"},
		{"shell line kept", "$ ls   -l  \nx:=1\n\n$ pwd", "$ ls   -l\nx := 1\n\n$ pwd"},
		{"magic line", "%cd /tmp\nx :=  1", "%cd /tmp\nx := 1"},
		{"dollar inside a raw string is text", "s := `\n$ not a command\n`", "s := `\n$ not a command\n`"},
		{"empty cell", "", ""},
		{"for header semicolons", "for i:=0;i<2;i++ { fmt.Println(i) }", "for i := 0; i < 2; i++ {\n\tfmt.Println(i)\n}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cellfmt.Format(tc.in)
			if err != nil {
				t.Fatalf("Format(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Fatalf("Format(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			again, err := cellfmt.Format(got)
			if err != nil || again != got {
				t.Fatalf("Format is not idempotent on %q: %q, %v", got, again, err)
			}
		})
	}
}

func TestFormatSyntaxError(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
	}{
		{"unclosed brace", "x := 1\nif x > 0 {\n\tfmt.Println(x)\n", 4},
		{"after an import block", "import (\n\t\"fmt\"\n)\n\nfmt.Println(1))", 5},
		{"after a func declaration", "func f() {}\n\nx := := 2", 3},
		{"after a shell line", "$ ls\nx := 1\ny = = 2", 3},
		{"unterminated string", "x := \"abc\ny := 1", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cellfmt.Format(tc.in)
			var se *cellfmt.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Format(%q) = %v; want a *SyntaxError", tc.in, err)
			}
			if se.Line != tc.line {
				t.Fatalf("Format(%q): %v; want line %d", tc.in, err, tc.line)
			}
		})
	}
}

func ExampleFormat() {
	got, err := cellfmt.Format("import \"fmt\"\n\nfor i:=0;i<2;i++ {\nfmt.Println(i)\n}")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got)
	// Output:
	// import "fmt"
	//
	// for i := 0; i < 2; i++ {
	// 	fmt.Println(i)
	// }
}
