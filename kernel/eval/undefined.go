package eval

import (
	"fmt"
	"github.com/conclab/conclab/kernel/eval/internal/reach"
	"go/parser"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// yaegi v0.16 reports a name nothing declares in several misleading ways,
// depending on where it is used: "undefined: x" (the good case), "constant
// definition loop" (on another line than the use), a panic of its compiler
// ("invalid memory address or nil pointer dereference", "index out of
// range"), or, when an earlier failed cell left a placeholder behind,
// "incomplete type x". Running a later cell of a notebook first, after a
// restart, meets all of them. So when a source does not compile, the
// session looks for the names it uses that nothing declares — not the
// source itself, not the session (the interpreter's main scope), not a
// package, not Go's universe — and, if there are any, reports them as Go
// does ("undefined: x", at the line of the first use) instead of the
// interpreter's message. And a source that fails to compile leaves no
// symbols behind (see scopeSnapshot).

// undefinedName is a use of a name nothing declares.
type undefinedName struct {
	name string
	line int // 0-based line within the source
	col  int // 1-based column
}

// undefinedNames returns the first use of each name src uses and neither
// declares nor defined reports, in source order. src is a statement list
// or a list of declarations (as the segments of a cell are); it returns nil
// for a source that parses as neither, or that has a dot import (its names
// cannot be told apart). Composite literal keys, selectors' right-hand
// sides and labels are not uses of names.
func undefinedNames(src string, defined func(name string) bool, importName func(path string) string) []undefinedName {
	fset := token.NewFileSet()
	prefixLines := 2
	f, err := parser.ParseFile(fset, "", "package main\nfunc _() {\n"+src+"\n}", 0)
	if err != nil {
		prefixLines = 1
		if f, err = parser.ParseFile(fset, "", "package main\n"+src, 0); err != nil {
			return nil
		}
	}
	imported := map[string]bool{}
	for _, is := range f.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			return nil
		}
		name := importName(p)
		if is.Name != nil {
			name = is.Name.Name
		}
		if name == "." {
			return nil
		}
		imported[name] = true
	}
	var out []undefinedName
	seen := map[string]bool{}
	for _, id := range f.Unresolved {
		if seen[id.Name] || imported[id.Name] || defined(id.Name) {
			continue
		}
		seen[id.Name] = true
		pos := fset.Position(id.Pos())
		out = append(out, undefinedName{name: id.Name, line: pos.Line - 1 - prefixLines, col: pos.Column})
	}
	return out
}

// undefinedError is the compile error for the undefined names u of src,
// whose first line is cell line line.
func undefinedError(u []undefinedName, src string, line int) *Error {
	e := &Error{Name: "CompileError", Value: "undefined: " + u[0].name, Line: line + u[0].line}
	for _, x := range u {
		e.Traceback = append(e.Traceback, fmt.Sprintf("cell line %d: undefined: %s", line+x.line, x.name))
		if l := srcLine(src, x.line); l != "" {
			e.Traceback = append(e.Traceback, "    "+l)
		}
	}
	if len(u) > 1 {
		names := make([]string, len(u))
		for i, x := range u {
			names[i] = x.name
		}
		more := names[1:]
		if len(more) > 4 {
			more = append(more[:4:4], fmt.Sprintf("and %d more", len(more)-4))
		}
		e.Value += " (also undefined: " + strings.Join(more, ", ") + ")"
	}
	e.Traceback = append(e.Traceback, "(run the cells that define them first, or check the spelling)")
	return e
}

// isDefined reports whether name means something in the session's cells:
// a predeclared identifier, a package (linked or imported), or a symbol of
// the interpreter's main scope that is not a placeholder. When yaegi's
// layout is not the expected one, every name counts as defined (so no
// error is misreported).
func (s *Session) isDefined(name string) bool {
	if name == "_" || types.Universe.Lookup(name) != nil {
		return true
	}
	if _, ok := s.resolvePackage(name); ok {
		return true
	}
	declared, known := reach.Of(s.in).Declared(name)
	return declared || !known
}
