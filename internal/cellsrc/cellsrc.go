// Package cellsrc is the grammar of a conclab cell, shared by the kernel's
// interpreter session (kernel/eval), which runs a cell, and the cell
// formatter (internal/cellfmt), which formats it as gofmt would.
//
// A cell is a sequence of lines. A line whose first non-blank character is
// `$` is a shell command; one starting with `%` is a magic (such as
// `%cd DIR`); every other line is Go code, and so is any line inside a raw
// string literal the Go code before it opened, whatever it starts with. The
// Go code between two such lines is one run: top-level statements and
// declarations in any order (statements run in the order given; a final
// expression is the cell's value).
//
// A Go run is a sequence of units, cut at the semicolons (written, or
// inserted at line ends as Go does) at bracket depth 0 — except those of an
// if, for, switch or select header. A unit is a declaration (import, type,
// var, const, a function or a method) or a statement; imports, functions
// and methods only a Go file holds, the others a function body holds too.
package cellsrc

import (
	"go/scanner"
	"go/token"
	"strings"
)

// Kind is the kind of a part of a cell.
type Kind int

const (
	Go    Kind = iota // a run of Go code
	Shell             // a `$ command` line
	Magic             // a `%magic args` line
)

// A Part is a run of Go lines or one shell or magic line.
type Part struct {
	Kind Kind
	// Src is, for Go, the run's text as written (with its line ends and
	// blank lines); for Shell, the command (the text after `$`, trimmed);
	// for Magic, the line trimmed, `%` included ("%cd /tmp").
	Src string
	// Line is the 1-based cell line the part starts on.
	Line int
	// EOL reports that the part's last line ended with a line break.
	EOL bool
}

// Split cuts a cell into its parts, in order. A Go part may be blank (the
// blank lines between two magic lines); a cell of Go code only is one part.
func Split(cell string) []Part {
	var parts []Part
	lines := strings.SplitAfter(cell, "\n")
	var run strings.Builder
	start := 1
	flush := func() {
		if run.Len() > 0 {
			s := run.String()
			parts = append(parts, Part{Kind: Go, Src: s, Line: start, EOL: strings.HasSuffix(s, "\n")})
		}
		run.Reset()
	}
	for i, l := range lines {
		if l == "" {
			continue // after a final line break
		}
		t := strings.TrimSpace(l)
		kind := Go
		switch {
		case strings.HasPrefix(t, "$"):
			kind = Shell
		case strings.HasPrefix(t, "%"):
			kind = Magic
		}
		if kind == Go || InRawString(run.String()) {
			if run.Len() == 0 {
				start = i + 1
			}
			run.WriteString(l)
			continue
		}
		flush()
		p := Part{Kind: kind, Src: t, Line: i + 1, EOL: strings.HasSuffix(l, "\n")}
		if kind == Shell {
			p.Src = strings.TrimSpace(t[1:])
		}
		parts = append(parts, p)
	}
	flush()
	return parts
}

// MagicName splits a magic line ("%cd /tmp") into its name ("cd") and
// arguments ("/tmp").
func MagicName(src string) (name, args string) {
	s := strings.TrimPrefix(src, "%")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// InRawString reports whether Go source ends inside a raw string literal
// (so that a following line starting with $ or % is the literal's text).
func InRawString(src string) bool {
	if !strings.Contains(src, "`") {
		return false
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	raw := false
	s.Init(file, []byte(src), func(_ token.Position, msg string) {
		if strings.Contains(msg, "raw string literal not terminated") {
			raw = true
		}
	}, scanner.ScanComments)
	for {
		if _, tok, _ := s.Scan(); tok == token.EOF {
			return raw
		}
	}
}

// A Unit is a top-level declaration or statement of a Go run.
type Unit struct {
	// Start and End are its byte offsets in the run; End includes a
	// written semicolon ending it.
	Start, End int
	// Tokens are its tokens (at least one).
	Tokens []token.Token
}

// FileOnly reports whether the unit is a declaration only a Go file can
// hold: an import, a function or a method declaration (a function literal
// called or assigned is a statement).
func (u Unit) FileOnly() bool {
	toks := u.Tokens
	if len(toks) < 2 {
		return false
	}
	switch toks[0] {
	case token.IMPORT:
		return true
	case token.FUNC:
		if toks[1] == token.IDENT {
			return true
		}
		if toks[1] != token.LPAREN {
			return false
		}
		// func (recv) Name(... or Name[...: a method.
		depth := 0
		for i := 1; i < len(toks); i++ {
			switch toks[i] {
			case token.LPAREN:
				depth++
			case token.RPAREN:
				depth--
			}
			if depth == 0 {
				return i+2 < len(toks) && toks[i+1] == token.IDENT && (toks[i+2] == token.LPAREN || toks[i+2] == token.LBRACK)
			}
		}
	}
	return false
}

// Declaration reports whether the unit is a declaration: FileOnly, or a
// type, var or const declaration.
func (u Unit) Declaration() bool {
	if len(u.Tokens) == 0 {
		return false
	}
	switch u.Tokens[0] {
	case token.TYPE, token.VAR, token.CONST:
		return true
	}
	return u.FileOnly()
}

// A ScanError is the first lexical error of a Go run: where (1-based line
// and column in the run) and what.
type ScanError struct {
	Line, Col int
	Msg       string
}

// Units cuts a Go run into its units, and returns the first lexical error
// of the run (nil for none; the units are then those the scanner made of
// it).
func Units(src string) ([]Unit, *ScanError) {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	var scanErr *ScanError
	s.Init(file, []byte(src), func(pos token.Position, msg string) {
		if scanErr == nil {
			scanErr = &ScanError{Line: pos.Line, Col: pos.Column, Msg: msg}
		}
	}, 0)
	var units []Unit
	var cur *Unit
	depth := 0
	header := false // inside an if/for/switch/select header, whose ; do not end a unit
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		o := file.Offset(pos)
		switch {
		case depth == 0 && (tok == token.IF || tok == token.FOR || tok == token.SWITCH || tok == token.SELECT):
			header = true
		case depth == 0 && tok == token.LBRACE:
			header = false
		}
		if tok == token.SEMICOLON && depth == 0 && !(header && lit == ";") {
			if cur != nil {
				if lit == ";" {
					cur.End = o + 1
				}
				units = append(units, *cur)
				cur = nil
			}
			continue
		}
		if cur == nil {
			cur = &Unit{Start: o}
		}
		cur.Tokens = append(cur.Tokens, tok)
		switch tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			if depth > 0 {
				depth--
			}
		}
		text := lit
		if text == "" {
			text = tok.String()
		}
		cur.End = min(o+len(text), len(src))
	}
	if cur != nil {
		units = append(units, *cur)
	}
	return units, scanErr
}
