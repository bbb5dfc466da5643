package eval

import (
	"go/importer"
	"go/token"
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
