// Package cellfmt formats the Go code of a notebook cell the way gofmt
// formats a Go file (the go/format package), so that the committed
// notebooks can be held to gofmt like the rest of the tree.
//
// A conclab cell is not a Go file: it is an optional import block, then
// top-level statements and declarations in any order (statements run in
// the order given, the last expression is shown), and lines starting with
// `$` (a shell command) or `%` (a magic such as %cd): the grammar of
// internal/cellsrc, which the kernel's session shares. Format cuts the cell
// into those parts, wraps each run of statements in a function body, lays
// the whole out as one Go file, formats it with go/format, and unwraps it
// again: a statement run loses the body's one level of indentation (raw
// string lines excepted, which gofmt never changes), declarations and the
// import block stay as gofmt printed them, magic lines are kept verbatim.
//
// A cell is gofmt-clean when Format returns it unchanged. Format's result
// carries no trailing newline (as Jupyter stores a cell).
package cellfmt

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"

	"github.com/conclab/conclab/internal/cellsrc"
)

// wrapName is the name of the functions that hold a cell's statement runs
// while the cell is formatted as a file; no cell can mean it.
const wrapName = "__conclab_cellfmt_run"

// Format returns the cell src formatted as gofmt formats Go source. An error
// (a *SyntaxError) says where the cell does not parse as conclab cell code;
// the line numbers are the cell's own (1-based).
func Format(src string) (string, error) {
	var out strings.Builder
	lines := strings.SplitAfter(src, "\n")
	for _, p := range cellsrc.Split(src) {
		if p.Kind != cellsrc.Go {
			// A shell or magic line is kept verbatim but for trailing blanks.
			out.WriteString(strings.TrimRight(lines[p.Line-1], " \t\r\n"))
			if p.EOL {
				out.WriteString("\n")
			}
			continue
		}
		text := p.Src
		if strings.TrimSpace(text) == "" {
			out.WriteString(leading(text, out.Len() == 0)) // blank lines between magic lines
			continue
		}
		// Blank lines around a Go run stay as they were (one at most, as
		// gofmt keeps between statements); the run itself is formatted.
		lead := text[:len(text)-len(strings.TrimLeft(text, " \t\r\n"))]
		trail := text[len(strings.TrimRight(text, " \t\r\n")):]
		f, err := formatGo(text, p.Line)
		if err != nil {
			return "", err
		}
		out.WriteString(leading(lead, out.Len() == 0))
		out.WriteString(f)
		out.WriteString(trailing(trail))
	}
	return strings.TrimRight(out.String(), " \t\r\n"), nil
}

// leading renders the whitespace before a Go run that follows a magic line
// (which ended its own line): one blank line when there was any, none at the
// start of the cell.
func leading(ws string, atStart bool) string {
	if atStart || !strings.Contains(ws, "\n") {
		return ""
	}
	return "\n"
}

// trailing renders the whitespace after a Go run: the line break, and one
// blank line when there was any.
func trailing(ws string) string {
	switch n := strings.Count(ws, "\n"); {
	case n >= 2:
		return "\n\n"
	case n == 1:
		return "\n"
	}
	return ""
}

// part is a top-level piece of a Go run: a run of statements, or a
// declaration that a function body cannot hold (import, func, method).
type part struct {
	start, end int // byte offsets in the run
	decl       bool
}

// formatGo formats one run of Go code (no magic lines); line is the cell
// line the run starts on. Each part is formatted on its own: a statement
// run as the body of a function, a declaration as a file; the parts are
// joined by a line break, or a blank line where there was one.
func formatGo(src string, line int) (string, error) {
	parts, err := splitParts(src, line)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for i, p := range parts {
		if i > 0 {
			out.WriteString(trailing(src[parts[i-1].end:p.start]))
		}
		f, err := formatPart(src[p.start:p.end], p.decl, line+strings.Count(src[:p.start], "\n"))
		if err != nil {
			return "", err
		}
		out.WriteString(f)
	}
	return out.String(), nil
}

// formatPart formats one part, starting on cell line line.
func formatPart(src string, decl bool, line int) (string, error) {
	prefix := "package p\n\n"
	if !decl {
		prefix += "func " + wrapName + "() {\n"
	}
	file := prefix + src
	if !decl {
		file += "\n}"
	}
	formatted, err := format.Source([]byte(file))
	if err != nil {
		// Positions in the file back to cell lines, within the part.
		last := line + strings.Count(src, "\n")
		at := func(l int) int { return min(max(line+l-1-strings.Count(prefix, "\n"), line), last) }
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return "", &SyntaxError{Line: at(list[0].Pos.Line), Col: list[0].Pos.Column, Msg: list[0].Msg}
		}
		return "", &SyntaxError{Line: line, Msg: err.Error()}
	}
	if decl {
		return strings.Trim(strings.TrimPrefix(string(formatted), "package p\n"), " \t\r\n"), nil
	}
	return unwrap(formatted)
}

// unwrap turns a formatted file holding one wrapper function back into
// statements: the wrapper's body, one tab less indented (but for the lines
// that continue a multi-line raw string, which gofmt never changes).
func unwrap(formatted []byte) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", formatted, parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return "", fmt.Errorf("cellfmt: formatted code does not parse back: %v", err)
	}
	fd, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return "", errors.New("cellfmt: formatted code lost its wrapper function")
	}
	tf := fset.File(f.Pos())
	keep := map[int]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING && strings.HasPrefix(b.Value, "`") {
			for l := tf.Line(b.Pos()) + 1; l <= tf.Line(b.End()); l++ {
				keep[l] = true
			}
		}
		return true
	})
	start := tf.Offset(fd.Body.Lbrace) + 1
	if i := bytes.IndexByte(formatted[start:], '\n'); i >= 0 {
		start += i + 1
	}
	body := formatted[start:tf.Offset(fd.Body.Rbrace)]
	var out strings.Builder
	l := tf.Line(fd.Body.Lbrace) + 1
	for _, bl := range bytes.SplitAfter(body, []byte("\n")) {
		if !keep[l] {
			bl = bytes.TrimPrefix(bl, []byte("\t"))
		}
		out.Write(bl)
		l++
	}
	return strings.TrimRight(out.String(), " \t\r\n"), nil
}

// splitParts cuts a Go run into statement runs and the declarations a
// function body cannot hold (import and func declarations).
func splitParts(src string, line int) ([]part, error) {
	units, scanErr := cellsrc.Units(src)
	if scanErr != nil {
		return nil, &SyntaxError{Line: line - 1 + scanErr.Line, Col: scanErr.Col, Msg: scanErr.Msg}
	}
	var parts []part
	for _, u := range units {
		d := u.FileOnly()
		if n := len(parts); n > 0 && !d && !parts[n-1].decl {
			parts[n-1].end = u.End // the statement run goes on
			continue
		}
		parts = append(parts, part{start: u.Start, end: u.End, decl: d})
	}
	// The comments between parts: those on the line a part ends on are its
	// own (x := 1 // one), the others belong to the part they precede; the
	// last part takes the cell's trailing comments.
	for i := range parts {
		if i+1 < len(parts) {
			from, to := parts[i].end, parts[i+1].start
			next := to
			for _, c := range comments(src[from:to]) {
				if !strings.Contains(src[parts[i].end:from+c.start], "\n") {
					parts[i].end = from + c.end
					continue
				}
				next = from + c.start
				break
			}
			parts[i+1].start = next
		} else if cs := comments(src[parts[i].end:]); len(cs) > 0 {
			parts[i].end += cs[len(cs)-1].end
		}
	}
	if len(parts) > 0 {
		if cs := comments(src[:parts[0].start]); len(cs) > 0 {
			parts[0].start = cs[0].start
		}
	}
	return parts, nil
}

// span is a byte range.
type span struct{ start, end int }

// comments returns the comments in src, which holds only comments and
// white space.
func comments(src string) []span {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), nil, scanner.ScanComments)
	var out []span
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.COMMENT {
			o := file.Offset(pos)
			out = append(out, span{o, o + len(lit)})
		}
	}
}

// SyntaxError is a cell that does not parse: where, in the cell's own
// 1-based lines (Col 0 when unknown), and what.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("line %d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}
