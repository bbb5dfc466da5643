package eval

import (
	"path"
	"reflect"
	"sort"
	"strings"

	"github.com/conclab/conclab/internal/symbols/stdlib"
)

// Symbols are the packages a session links in besides the standard library,
// provided by the program that embeds the interpreter (conclab's command
// passes internal/symbols' generated tables), so that this package depends
// on none of them.
type Symbols struct {
	// Packages maps "import/path/name" (name: the package's name) to the
	// package's exported symbols, in the form yaegi's interp.Use takes.
	Packages map[string]map[string]reflect.Value
	// Docs maps "import/path.Symbol", "import/path.Type.Method" and
	// "import/path" to the declaration and doc comment, for Inspect (other
	// packages' docs are read from their source when it is on disk).
	Docs map[string]string
}

// linked is a session's linked packages: the standard library's and
// Options.Symbols'. It is not changed after newLinked.
type linked struct {
	tables []map[string]map[string]reflect.Value // the standard library first
	docs   map[string]string
	used   map[string]string // ImportUsed's names -> import path; "" when ambiguous
}

func newLinked(sym Symbols) *linked {
	l := &linked{tables: []map[string]map[string]reflect.Value{stdlib.Symbols}, docs: sym.Docs, used: map[string]string{}}
	if sym.Packages != nil {
		l.tables = append(l.tables, sym.Packages)
	}
	// The names ImportUsed gives linked packages, as yaegi does: the last
	// path element, dropped when two packages share it.
	for _, src := range l.tables {
		for k := range src {
			p := path.Dir(k)
			if p == "." {
				continue
			}
			name := path.Base(p)
			if prev, dup := l.used[name]; dup && prev != p {
				l.used[name] = ""
				continue
			}
			l.used[name] = p
		}
	}
	return l
}

// exports returns the exported symbols of a linked package by import path.
func (l *linked) exports(p string) map[string]reflect.Value {
	key := p + "/" + path.Base(p)
	for _, src := range l.tables {
		if m, ok := src[key]; ok {
			return m
		}
	}
	for _, src := range l.tables[1:] {
		for k, m := range src {
			if path.Dir(k) == p {
				return m
			}
		}
	}
	return nil
}

// importName is the name an import of p binds without an alias: the
// package name of a linked package (from its symbol table key, as yaegi
// takes it), else the last path element.
func (l *linked) importName(p string) string {
	for _, src := range l.tables {
		if _, ok := src[p+"/"+path.Base(p)]; ok {
			return path.Base(p)
		}
		for k := range src {
			if path.Dir(k) == p {
				return path.Base(k)
			}
		}
	}
	return path.Base(p)
}

// paths returns the import paths linked in, sorted.
func (l *linked) paths() []string {
	var ps []string
	for _, src := range l.tables {
		for k := range src {
			if d := path.Dir(k); d != "." && !strings.Contains(k, "yaegi") {
				ps = append(ps, d)
			}
		}
	}
	sort.Strings(ps)
	return ps
}

// has reports whether the package with import path p is linked in.
func (l *linked) has(p string) bool { return l.exports(p) != nil }
