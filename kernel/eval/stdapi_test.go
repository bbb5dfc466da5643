package eval

import (
	"context"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/conclab/conclab/internal/symbols/stdlib"
)

// TestStdAPI checks that every exported identifier of the standard library
// of the toolchain running the test is there for cells: in the compiled
// tables, or from the interpreted generic sources (slices, maps, errors.AsType
// ...). The reference is the toolchain's own source, type-checked.
func TestStdAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the standard library from source")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(gobin, "list", "std").Output()
	if err != nil {
		t.Skipf("go list std: %v", err)
	}
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ref := importer.ForCompiler(token.NewFileSet(), "source", nil)
	var missing []string
	pkgs := 0
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "vendor/") || strings.HasPrefix(p, "cmd/") || !importablePath(p) ||
			p == "unsafe" || p == "builtin" || p == "runtime/cgo" || p == "runtime/race" || p == "syscall/js" {
			continue
		}
		want, err := ref.Import(p)
		if err != nil {
			t.Errorf("reference %s: %v", p, err)
			continue
		}
		got, err := s.types.imp.Import(p)
		if err != nil {
			missing = append(missing, p+" (the whole package: "+err.Error()+")")
			continue
		}
		pkgs++
		for _, n := range want.Scope().Names() {
			if !token.IsExported(n) {
				continue
			}
			if got.Scope().Lookup(n) == nil {
				missing = append(missing, p+"."+n)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d identifiers of %s's standard library are missing in cells:\n%s", len(missing), runtime.Version(), strings.Join(missing, "\n"))
	}
	t.Logf("%d packages checked (%d generic-only packages interpreted: %v)", pkgs, len(stdlib.Generic), stdlib.Generic)
	_ = os.Getenv
}

// TestStdAPICells uses every exported non-generic identifier of the
// toolchain's standard library in cells, a cell per package, so that the
// interpreter itself (not only the type check) resolves each one: a
// function or variable taken as a value, a type in a declaration, a
// constant in a constant declaration. Generic functions and types are
// covered by TestStdAPI and by the go run corpus, which instantiates them.
func TestStdAPICells(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the standard library from source")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(gobin, "list", "std").Output()
	if err != nil {
		t.Skipf("go list std: %v", err)
	}
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ref := importer.ForCompiler(token.NewFileSet(), "source", nil)
	idents := 0
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "vendor/") || strings.HasPrefix(p, "cmd/") || !importablePath(p) ||
			p == "unsafe" || p == "builtin" || p == "runtime/cgo" || p == "runtime/race" || p == "syscall/js" {
			continue
		}
		want, err := ref.Import(p)
		if err != nil {
			t.Errorf("reference %s: %v", p, err)
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "import stdpkg %q\n", p)
		n := 0
		for _, name := range want.Scope().Names() {
			if !token.IsExported(name) {
				continue
			}
			switch o := want.Scope().Lookup(name).(type) {
			case *types.Func:
				if o.Type().(*types.Signature).TypeParams().Len() > 0 {
					continue
				}
				fmt.Fprintf(&b, "var _ = stdpkg.%s\n", name)
			case *types.Var:
				fmt.Fprintf(&b, "var _ = &stdpkg.%s\n", name)
			case *types.Const:
				fmt.Fprintf(&b, "const _ = stdpkg.%s\n", name)
			case *types.TypeName:
				if n, ok := o.Type().(*types.Named); ok && n.TypeParams().Len() > 0 {
					continue
				}
				fmt.Fprintf(&b, "var _ *stdpkg.%s\n", name)
			default:
				continue
			}
			n++
		}
		if n == 0 {
			continue
		}
		idents += n
		if _, err := s.Eval(context.Background(), b.String()); err != nil {
			t.Errorf("%s (%d identifiers): %v", p, n, err)
		}
	}
	t.Logf("%d identifiers of %s's standard library used in cells", idents, runtime.Version())
}
