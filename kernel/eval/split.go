package eval

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

type segKind int

const (
	segStmt  segKind = iota // statements
	segDecl                 // import, func, method, type, var, const declarations
	segShell                // a `$ cmd` line
	segCd                   // a `%cd dir` line
)

// segment is a run of a cell evaluated in one step. line is the cell line
// (1-based) the segment starts on.
type segment struct {
	kind segKind
	src  string
	line int
	expr bool // the segment is the cell's final expression statement
}

// splitCell cuts a cell into magic lines and Go segments that the
// interpreter can evaluate one at a time (yaegi does not accept declarations
// and statements in one source).
func splitCell(code string) []segment {
	var segs []segment
	lines := strings.SplitAfter(code, "\n")
	var goBuf strings.Builder
	goStart := 1
	flush := func() {
		if strings.TrimSpace(goBuf.String()) != "" {
			segs = append(segs, splitGo(goBuf.String(), goStart)...)
		}
		goBuf.Reset()
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "$"):
			flush()
			segs = append(segs, segment{kind: segShell, src: strings.TrimSpace(t[1:]), line: i + 1})
			goStart = i + 2
		case t == "%cd" || strings.HasPrefix(t, "%cd ") || strings.HasPrefix(t, "%cd\t"):
			flush()
			segs = append(segs, segment{kind: segCd, src: strings.TrimSpace(t[3:]), line: i + 1})
			goStart = i + 2
		default:
			if goBuf.Len() == 0 {
				goStart = i + 1
			}
			goBuf.WriteString(l)
		}
	}
	flush()
	// Mark the final expression statement, if the cell ends with Go code.
	if n := len(segs); n > 0 && segs[n-1].kind == segStmt {
		last := segs[n-1]
		units := splitUnits(last.src)
		if len(units) > 0 {
			u := units[len(units)-1]
			text := last.src[u.start:u.end]
			if isExpr(text) {
				segs[n-1].src = last.src[:u.start]
				tail := segment{kind: segStmt, src: text, line: last.line + strings.Count(last.src[:u.start], "\n"), expr: true}
				if strings.TrimSpace(segs[n-1].src) == "" {
					segs[n-1] = tail
				} else {
					segs = append(segs, tail)
				}
			}
		}
	}
	return segs
}

type unit struct {
	start, end int
	kind       segKind
	neutral    bool
}

// splitUnits cuts Go source into top-level units at depth-0 semicolons
// (explicit or inserted at line ends).
func splitUnits(src string) []unit {
	fset := token.NewFileSet()
	file := fset.AddFile("cell", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, 0)
	var units []unit
	depth := 0
	header := false
	var toks []token.Token
	start := -1
	end := 0
	closeUnit := func() {
		if start >= 0 {
			k, neutral := classify(toks)
			units = append(units, unit{start: start, end: end, kind: k, neutral: neutral})
		}
		start = -1
		toks = toks[:0]
	}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := file.Offset(pos)
		// The semicolons of an if, for or switch header are not unit ends:
		// the header lasts until the brace of its body.
		switch {
		case depth == 0 && (tok == token.IF || tok == token.FOR || tok == token.SWITCH):
			header = true
		case depth == 0 && tok == token.LBRACE:
			header = false
		}
		if tok == token.SEMICOLON && depth == 0 && !(header && lit == ";") {
			if lit == ";" {
				end = off + 1
			}
			closeUnit()
			continue
		}
		if start < 0 {
			start = off
		}
		toks = append(toks, tok)
		switch tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			if depth > 0 {
				depth--
			}
		}
		end = min(off+len(tokenText(tok, lit)), len(src))
	}
	closeUnit()
	return units
}

func tokenText(tok token.Token, lit string) string {
	if lit != "" {
		return lit
	}
	return tok.String()
}

// classify tells a declaration unit from a statement unit by its tokens.
func classify(toks []token.Token) (segKind, bool) {
	if len(toks) == 0 {
		return segStmt, true
	}
	switch toks[0] {
	case token.IMPORT, token.TYPE:
		return segDecl, false
	case token.VAR, token.CONST:
		return segDecl, false
	case token.FUNC:
		if len(toks) > 1 && toks[1] == token.IDENT {
			return segDecl, false
		}
		if len(toks) > 1 && toks[1] == token.LPAREN { // method receiver or literal
			depth := 0
			for i := 1; i < len(toks); i++ {
				switch toks[i] {
				case token.LPAREN:
					depth++
				case token.RPAREN:
					depth--
				}
				if depth == 0 {
					if i+2 < len(toks) && toks[i+1] == token.IDENT && (toks[i+2] == token.LPAREN || toks[i+2] == token.LBRACK) {
						return segDecl, false
					}
					break
				}
			}
		}
	}
	return segStmt, false
}

// splitGo groups the units of a Go run into alternating declaration and
// statement segments.
func splitGo(src string, line int) []segment {
	units := splitUnits(src)
	var segs []segment
	for i, u := range units {
		k := u.kind
		if u.neutral && len(segs) > 0 {
			k = segs[len(segs)-1].kind
		}
		// Segments span from the previous unit's end so that comments and
		// blank lines keep their place.
		from := u.start
		if i > 0 {
			from = units[i-1].end
		}
		if len(segs) > 0 && segs[len(segs)-1].kind == k {
			segs[len(segs)-1].src += src[from:u.end]
			continue
		}
		segs = append(segs, segment{kind: k, src: src[from:u.end], line: line + strings.Count(src[:from], "\n")})
	}
	// Leading newlines of a segment move its line forward.
	for i := range segs {
		trimmed := strings.TrimLeft(segs[i].src, " \t\r\n")
		segs[i].line += strings.Count(segs[i].src[:len(segs[i].src)-len(trimmed)], "\n")
		segs[i].src = trimmed
	}
	return segs
}

// isExpr reports whether src is a single expression.
func isExpr(src string) bool {
	_, err := parser.ParseExpr(src)
	return err == nil
}

// callFun returns the source of the function part of a call expression when
// it is a plain identifier or selector chain (safe to evaluate on its own).
func callFun(src string) (string, bool) {
	e, err := parser.ParseExpr(src)
	if err != nil {
		return "", false
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return "", false
	}
	var plain func(ast.Expr) bool
	plain = func(x ast.Expr) bool {
		switch x := x.(type) {
		case *ast.Ident:
			return true
		case *ast.SelectorExpr:
			return plain(x.X)
		case *ast.ParenExpr:
			return plain(x.X)
		}
		return false
	}
	if !plain(call.Fun) {
		return "", true
	}
	return src[call.Fun.Pos()-1 : call.Fun.End()-1], true
}
