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
