package importer_test

import (
	"reflect"
	"testing"

	"github.com/conclab/conclab/internal/symbols/stdlib"
	"github.com/conclab/conclab/kernel/eval/internal/genstd"
	"github.com/conclab/conclab/kernel/eval/internal/importer"
)

func newStd() *importer.Importer {
	var srcs []importer.Source
	for _, p := range genstd.Packages() {
		srcs = append(srcs, importer.Source{Path: p.Path, Files: p.Files, Overlays: p.Overlays})
	}
	return importer.New([]map[string]map[string]reflect.Value{stdlib.Symbols, genstd.RTSymbols()}, srcs)
}

func TestImportStd(t *testing.T) {
	t.Parallel()
	im := newStd()
	for _, c := range []struct {
		path, name, member string
	}{
		{"sync", "sync", "OnceValue"},
		{"sync", "sync", "Mutex"},
		{"slices", "slices", "Sort"},
		{"iter", "iter", "Pull"},
		{"errors", "errors", "AsType"},
		{"net/http", "http", "ListenAndServe"},
		{"strings", "strings", "Lines"},
	} {
		pkg, err := im.Import(c.path)
		if err != nil {
			t.Errorf("Import(%q) = %v", c.path, err)
			continue
		}
		if pkg.Name() != c.name || pkg.Scope().Lookup(c.member) == nil {
			t.Errorf("Import(%q) = package %s without %s", c.path, pkg.Name(), c.member)
		}
	}
}

// Packages import in any order: an interpreted package importing the
// compiled support (rt) while another loads.
func TestImportOrders(t *testing.T) {
	t.Parallel()
	for _, order := range [][]string{{"weak"}, {"crypto/hkdf", "weak"}, {"unique", "weak", "slices"}, {"strings", "slices", "iter"}} {
		im := newStd()
		for _, p := range order {
			if _, err := im.Import(p); err != nil {
				t.Errorf("%v: Import(%q) = %v", order, p, err)
			}
		}
	}
}
