package genstd

import (
	"embed"
	"go/build/constraint"
	"io/fs"
	"path"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/conclab/conclab/kernel/eval/internal/genstd/rt"
)

//go:embed builtin cmp iter maps slices unique weak crypto overlay
var files embed.FS

// BuiltinPath is the path of the interpreted package holding min, max and
// clear (see builtin/builtin.go).
const BuiltinPath = "conclab_builtin"

// RTPath is the import path of package rt, the compiled support.
const RTPath = "github.com/conclab/conclab/kernel/eval/internal/genstd/rt"

// A Package is one interpreted package.
type Package struct {
	// Path is the import path: the standard one ("slices"), or for an
	// overlay its own ("conclab_sync").
	Path string
	// Name is the package name.
	Name string
	// Overlays is the standard package whose generic members this
	// overlay provides ("sync"), "" for a package of its own.
	Overlays string
	// Files are the Go files of the package that build with this
	// toolchain (tests excluded), by name.
	Files map[string]string
	// Imports are the import paths the files use.
	Imports []string
}

// Packages returns the interpreted packages, dependencies before the
// packages importing them.
func Packages() []Package {
	var out []Package
	add := func(dir, p, overlays string) {
		pkg := Package{Path: p, Overlays: overlays, Files: map[string]string{}}
		imports := map[string]bool{}
		entries, _ := fs.ReadDir(files, dir)
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			b, _ := files.ReadFile(path.Join(dir, n))
			src := string(b)
			if !builds(src) {
				continue
			}
			pkg.Files[n] = src
			if pkg.Name == "" {
				pkg.Name = packageName(src)
			}
			for _, i := range importsOf(src) {
				imports[i] = true
			}
		}
		if len(pkg.Files) == 0 {
			return
		}
		for i := range imports {
			pkg.Imports = append(pkg.Imports, i)
		}
		sort.Strings(pkg.Imports)
		out = append(out, pkg)
	}
	for _, p := range []string{"cmp", "iter", "slices", "maps", "unique", "weak", "crypto/hkdf", "crypto/pbkdf2"} {
		add(p, p, "")
	}
	add("builtin", BuiltinPath, "")
	overlays, _ := fs.ReadDir(files, "overlay")
	var names []string
	for _, e := range overlays {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		// overlay/sync_atomic completes sync/atomic as conclab_sync_atomic.
		add(path.Join("overlay", n), "conclab_"+n, strings.ReplaceAll(n, "_", "/"))
	}
	return order(out)
}

// order sorts packages so that each comes after the interpreted packages
// it imports.
func order(pkgs []Package) []Package {
	byPath := map[string]Package{}
	for _, p := range pkgs {
		byPath[p.Path] = p
	}
	var out []Package
	done := map[string]bool{}
	var visit func(p Package)
	visit = func(p Package) {
		if done[p.Path] {
			return
		}
		done[p.Path] = true
		for _, i := range p.Imports {
			if d, ok := byPath[i]; ok {
				visit(d)
			}
		}
		out = append(out, p)
	}
	for _, p := range pkgs {
		visit(p)
	}
	return out
}

// builds reports whether a file's //go:build line holds for the running
// toolchain (release tags go1.1 ... go1.N).
func builds(src string) bool {
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "package ") {
			return true
		}
		if !constraint.IsGoBuild(l) {
			continue
		}
		expr, err := constraint.Parse(l)
		if err != nil {
			return false
		}
		return expr.Eval(func(tag string) bool {
			if m, ok := strings.CutPrefix(tag, "go1."); ok {
				n, err := strconv.Atoi(m)
				return err == nil && n <= goMinor()
			}
			return tag == runtime.GOOS || tag == runtime.GOARCH
		})
	}
	return true
}

func goMinor() int {
	v := strings.TrimPrefix(runtime.Version(), "go1.")
	if i := strings.IndexAny(v, ".rcbeta"); i >= 0 {
		v = v[:i]
	}
	n, _ := strconv.Atoi(v)
	return n
}

func packageName(src string) string {
	for _, l := range strings.Split(src, "\n") {
		if n, ok := strings.CutPrefix(strings.TrimSpace(l), "package "); ok {
			return strings.TrimSpace(n)
		}
	}
	return ""
}

// importsOf lists the import paths of a file (its import block or lines).
func importsOf(src string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(src, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "import ("):
			in = true
		case in && t == ")":
			in = false
		case strings.HasPrefix(t, "import "):
			t = strings.TrimPrefix(t, "import ")
			fallthrough
		case in:
			if i := strings.IndexByte(t, '"'); i >= 0 {
				if p, err := strconv.Unquote(t[i:]); err == nil {
					out = append(out, p)
				}
			}
		}
		if strings.HasPrefix(t, "func ") || strings.HasPrefix(t, "type ") {
			break
		}
	}
	return out
}

// RTSymbols is package rt's symbol table, in the form yaegi's interp.Use
// takes.
func RTSymbols() map[string]map[string]reflect.Value {
	return map[string]map[string]reflect.Value{RTPath + "/rt": rt.Symbols()}
}

// InterpName is the name the interpreter knows an interpreted package by
// (and its import path there): its own for one-element paths ("slices"),
// "conclab_" and the path for longer ones ("conclab_crypto_hkdf"), since
// yaegi registers a package compiled from source under its name. The
// pipeline's stdimport pass rewrites cells' imports of the longer ones.
func InterpName(p Package) string {
	if p.Overlays == "" && strings.Contains(p.Path, "/") {
		return "conclab_" + strings.ReplaceAll(p.Path, "/", "_")
	}
	return p.Name
}
