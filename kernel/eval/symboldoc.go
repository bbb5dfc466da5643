package eval

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

var (
	docMu    sync.Mutex
	docCache = map[string]*doc.Package{}
)

// symbolDoc returns the documentation of symbol sym of package p ("" for the
// package itself), read from the package's source: the standard library's
// under GOROOT, or the module's own packages and cached modules when present.
func (s *Session) symbolDoc(p, sym string) (string, bool) {
	key := p
	if sym != "" {
		key += "." + sym
	}
	if d, ok := s.lib.docs[key]; ok {
		return d, true
	}
	pkg := loadDoc(p)
	if pkg == nil {
		return "", false
	}
	if sym == "" {
		return "package " + pkg.Name + " // import \"" + p + "\"\n\n" + pkg.Doc, true
	}
	for _, f := range pkg.Funcs {
		if f.Name == sym {
			return sig(f.Decl) + "\n\n" + f.Doc, true
		}
	}
	tname, method, isMethod := strings.Cut(sym, ".")
	for _, t := range pkg.Types {
		if isMethod && t.Name == tname {
			for _, m := range t.Methods {
				if m.Name == method {
					return sig(m.Decl) + "\n\n" + m.Doc, true
				}
			}
		}
		if t.Name == sym {
			return "type " + t.Name + "\n\n" + t.Doc, true
		}
		for _, f := range t.Funcs {
			if f.Name == sym {
				return sig(f.Decl) + "\n\n" + f.Doc, true
			}
		}
	}
	for _, vs := range [][]*doc.Value{pkg.Vars, pkg.Consts} {
		for _, v := range vs {
			for _, n := range v.Names {
				if n == sym {
					return strings.Join(v.Names, ", ") + "\n\n" + v.Doc, true
				}
			}
		}
	}
	return "", false
}

func sig(d *ast.FuncDecl) string {
	if d == nil {
		return ""
	}
	cp := *d
	cp.Body, cp.Doc = nil, nil
	var buf bytes.Buffer
	if err := printer.Fprint(&buf, token.NewFileSet(), &cp); err != nil {
		return "func " + d.Name.Name
	}
	return buf.String()
}

func loadDoc(p string) *doc.Package {
	docMu.Lock()
	defer docMu.Unlock()
	if d, ok := docCache[p]; ok {
		return d
	}
	var d *doc.Package
	if dir := sourceDir(p); dir != "" {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments)
		if err == nil {
			for name, ap := range pkgs {
				if name == "main" || strings.HasSuffix(name, "_test") {
					continue
				}
				d = doc.New(ap, p, 0)
				break
			}
		}
	}
	docCache[p] = d
	return d
}

// sourceDir finds the source directory of a package, if it is on disk.
func sourceDir(p string) string {
	if !strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
		dir := filepath.Join(runtime.GOROOT(), "src", p)
		if isDir(dir) {
			return dir
		}
		return ""
	}
	const self = "github.com/conclab/conclab"
	if strings.HasPrefix(p, self) {
		if wd, err := os.Getwd(); err == nil {
			for dir := wd; ; dir = filepath.Dir(dir) {
				if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module "+self+"\n") {
					cand := filepath.Join(dir, strings.TrimPrefix(p, self))
					if isDir(cand) {
						return cand
					}
					break
				}
				if filepath.Dir(dir) == dir {
					break
				}
			}
		}
	}
	return ""
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
