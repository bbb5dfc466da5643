package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The go run corpus (testdata/gorun): whole programs (NNN_name.go) and
// sequences of cells (NNN_name.cells, cells separated by "// -- cell --"
// lines) written the way people write Go today. Each runs in a fresh
// session and must print what `go run` prints for it on this toolchain,
// line for line. A cells file is made into a program for go run: its
// imports and declarations at the top level, its statements in main in
// order, and a cell's final expression printed with fmt.Println (a cell's
// displayed value is its text/plain, fmt.Sprint of the value). Lines
// "// mask: REGEXP" in a file replace what REGEXP matches by "<masked>" in
// both outputs (nondeterministic values). With GORUN_MANIFEST=FILE the test
// only writes the corpus and go run's outputs to FILE, for the same
// comparison through the kernel and jupyter_client
// (kernel/testdata/test_gorun_corpus.py).

const cellSep = "// -- cell --\n"

type corpusEntry struct {
	name  string // file name without extension
	path  string
	cells []string // the cells the session runs (a program is one cell)
	prog  string   // the program go run runs
	masks []*regexp.Regexp
}

func loadCorpus(t testing.TB) []corpusEntry {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "gorun", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusEntry
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		e := corpusEntry{path: f}
		for _, l := range strings.Split(src, "\n") {
			if m, ok := strings.CutPrefix(strings.TrimSpace(l), "// mask: "); ok {
				e.masks = append(e.masks, regexp.MustCompile(m))
			}
		}
		switch {
		case strings.HasSuffix(f, ".go"):
			e.name = strings.TrimSuffix(filepath.Base(f), ".go")
			e.cells = []string{src}
			e.prog = src
		case strings.HasSuffix(f, ".cells"):
			e.name = strings.TrimSuffix(filepath.Base(f), ".cells")
			e.cells = strings.Split(src, cellSep)
			e.prog, err = cellsProgram(e.cells)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		default:
			continue
		}
		out = append(out, e)
	}
	if len(out) < 60 {
		t.Fatalf("the corpus has %d entries, want at least 60", len(out))
	}
	return out
}

// cellsProgram makes the program go run runs for a sequence of cells. A
// cell's final expression is printed when it has one value that is not
// the byte count of a print function (what the kernel displays); the
// program is type-checked to tell.
func cellsProgram(cells []string) (string, error) {
	var imports, decls, body []string
	var finals []int
	for _, c := range cells {
		for _, seg := range splitCell(c) {
			switch {
			case seg.kind == segShell || seg.kind == segMagic:
				return "", fmt.Errorf("magic lines have no go run equivalent: %q", seg.src)
			case seg.kind == segDecl:
				d, imps := cutImports(seg.src)
				imports = append(imports, imps...)
				if strings.TrimSpace(d) != "" {
					decls = append(decls, d)
				}
			case seg.expr:
				finals = append(finals, len(body))
				body = append(body, seg.src)
			default:
				body = append(body, seg.src)
			}
		}
	}
	var lines []int // line of each body entry in the last build
	build := func() string {
		lines = lines[:0]
		var b strings.Builder
		b.WriteString("package main\n\nimport (\n")
		seen := map[string]bool{}
		for _, i := range imports {
			if !seen[i] {
				seen[i] = true
				b.WriteString("\t" + i + "\n")
			}
		}
		b.WriteString(")\n\n")
		for _, d := range decls {
			b.WriteString(d + "\n\n")
		}
		b.WriteString("func main() {\n")
		for _, s := range body {
			lines = append(lines, strings.Count(b.String(), "\n")+1)
			b.WriteString(s + "\n")
		}
		b.WriteString("}\n")
		return b.String()
	}
	if len(finals) == 0 {
		return build(), nil
	}
	// Type-check the program with the final expressions as they are.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", build(), 0)
	if err != nil {
		return "", err
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: corpusImporter(fset), Error: func(error) {}}
	conf.Check("main", fset, []*ast.File{f}, info)
	var mainBody []ast.Stmt
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "main" {
			mainBody = fd.Body.List
		}
	}
	// Each final expression's statement, by its line.
	printed := false
	at := append([]int(nil), lines...)
	for _, i := range finals {
		var tv types.TypeAndValue
		for _, st := range mainBody {
			if es, ok := st.(*ast.ExprStmt); ok && fset.Position(es.Pos()).Line == at[i] {
				tv = info.Types[es.X]
			}
		}
		if tv.Type == nil {
			continue
		}
		if tup, ok := tv.Type.(*types.Tuple); ok {
			if tup.Len() != 2 || tup.At(1).Type().String() != "error" || isPrintCount(body[i]) {
				continue
			}
		}
		body[i] = "fmt.Println(" + body[i] + ")"
		printed = true
	}
	if printed {
		imports = append(imports, `"fmt"`)
	}
	return build(), nil
}

// isPrintCount reports whether src calls a function whose (n, err) the
// kernel does not display.
func isPrintCount(src string) bool {
	fun, _ := callFun(src)
	name := fun[strings.LastIndexByte(fun, '.')+1:]
	for _, p := range []string{"Print", "Fprint", "Sprint", "Write", "Copy", "Read", "Scan", "Fscan", "Sscan"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

var (
	corpusImpOnce sync.Once
	corpusImp     types.Importer
)

func corpusImporter(*token.FileSet) types.Importer {
	corpusImpOnce.Do(func() { corpusImp = importer.ForCompiler(token.NewFileSet(), "source", nil) })
	return corpusImp
}

var importLineRE = regexp.MustCompile(`(?m)^\s*import\s*(\([^)]*\)|"[^"]*"|\w+\s+"[^"]*")\s*$`)

// cutImports removes the import declarations of a declaration segment and
// returns their specs.
func cutImports(src string) (string, []string) {
	var specs []string
	rest := importLineRE.ReplaceAllStringFunc(src, func(m string) string {
		m = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(m), "import"))
		m = strings.TrimSuffix(strings.TrimPrefix(m, "("), ")")
		for _, l := range strings.Split(m, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				specs = append(specs, l)
			}
		}
		return ""
	})
	return rest, specs
}

// goRunOutputs builds every program with the toolchain running the test and
// runs it, returning each one's stdout and stderr.
func goRunOutputs(t *testing.T, entries []corpusEntry) map[string][2]string {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		t.Skipf("no go toolchain at %s: %v", gobin, err)
	}
	dir := t.TempDir()
	mod := "module gorun\n\ngo " + strings.TrimPrefix(goMinor(runtime.Version()), "go") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		d := filepath.Join(dir, "p"+e.name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "main.go"), []byte(e.prog), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "bin")
	cmd := exec.Command(gobin, "build", "-o", bin+string(filepath.Separator), "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the corpus failed: %v\n%s", err, out)
	}
	res := map[string][2]string{}
	for _, e := range entries {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		var so, se bytes.Buffer
		c := exec.CommandContext(ctx, filepath.Join(bin, "p"+e.name))
		c.Dir = dir
		c.Stdout, c.Stderr = &so, &se
		err := c.Run()
		cancel()
		if err != nil {
			t.Errorf("%s: go run failed: %v\n%s", e.name, err, se.String())
		}
		res[e.name] = [2]string{so.String(), se.String()}
	}
	return res
}

// goMinor is "go1.26" for "go1.26.8".
func goMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// sessionOutputs runs an entry's cells in a fresh session.
func sessionOutputs(t *testing.T, e corpusEntry) (stdout, stderr string, failures []string) {
	var so, se lockedWriter
	s, err := New(Options{Stdout: &so, Stderr: &se})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, c := range e.cells {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		res, err := s.Eval(ctx, c)
		cancel()
		if err != nil {
			var ee *Error
			if errors.As(err, &ee) {
				failures = append(failures, fmt.Sprintf("cell %d: %s: %s\n%s", i+1, ee.Name, ee.Error(), strings.Join(ee.Traceback, "\n")))
			} else {
				failures = append(failures, fmt.Sprintf("cell %d: %v", i+1, err))
			}
			continue
		}
		if res.HasValue {
			text, _ := res.Data.Data["text/plain"].(string)
			so.Write([]byte(text + "\n"))
		}
	}
	return so.String(), se.String(), failures
}

type lockedWriter struct{ lockedBuffer }

func (l *lockedWriter) String() string { return l.take() }

func mask(s string, masks []*regexp.Regexp) []string {
	for _, m := range masks {
		s = m.ReplaceAllString(s, "<masked>")
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// TestGoRunCorpus runs the corpus in sessions and compares with go run.
func TestGoRunCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs 60+ programs")
	}
	entries := loadCorpus(t)
	want := goRunOutputs(t, entries)
	if path := os.Getenv("GORUN_MANIFEST"); path != "" {
		writeManifest(t, path, entries, want)
		return
	}
	only := os.Getenv("GORUN_ONLY")
	for _, e := range entries {
		if only != "" && !strings.Contains(e.name, only) {
			continue
		}
		t.Run(e.name, func(t *testing.T) {
			so, se, failures := sessionOutputs(t, e)
			for _, f := range failures {
				t.Errorf("%s", f)
			}
			w := want[e.name]
			for i, pair := range [][2]string{{so, w[0]}, {se, w[1]}} {
				got, exp := mask(pair[0], e.masks), mask(pair[1], e.masks)
				if !slices.Equal(got, exp) {
					stream := []string{"stdout", "stderr"}[i]
					t.Errorf("%s differs from go run's:\n%s", stream, lineDiff(exp, got))
				}
			}
		})
	}
}

// writeManifest writes the corpus with go run's outputs as JSON, for the
// same comparison through the kernel (kernel/testdata/test_gorun_corpus.py,
// which runs the test with GORUN_MANIFEST set).
func writeManifest(t *testing.T, path string, entries []corpusEntry, want map[string][2]string) {
	type entry struct {
		Name   string   `json:"name"`
		Cells  []string `json:"cells"`
		Stdout string   `json:"stdout"`
		Stderr string   `json:"stderr"`
		Masks  []string `json:"masks"`
	}
	var out []entry
	for _, e := range entries {
		var masks []string
		for _, m := range e.masks {
			masks = append(masks, m.String())
		}
		out = append(out, entry{Name: e.name, Cells: e.cells, Stdout: want[e.name][0], Stderr: want[e.name][1], Masks: masks})
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// lineDiff shows expected and actual lines side by side where they differ.
func lineDiff(want, got []string) string {
	var b strings.Builder
	n := max(len(want), len(got))
	for i := range n {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		mark := "  "
		if w != g || i >= len(want) || i >= len(got) {
			mark = "!!"
		}
		fmt.Fprintf(&b, "%s %3d go run: %q\n   %3d kernel: %q\n", mark, i+1, w, i+1, g)
	}
	return b.String()
}
