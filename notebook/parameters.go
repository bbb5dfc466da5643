package notebook

import (
	"fmt"
	"go/scanner"
	"go/token"
	"sort"
	"strings"
	"unicode/utf8"
)

// Tags of the cells that declare and set a notebook's parameters:
// papermill's names, so papermill and `conclab run -p` treat the same
// notebook the same way (see package notebook/params).
const (
	TagParameters         = "parameters"
	TagInjectedParameters = "injected-parameters"
)

// paramsImport is the import path of package notebook/params, which the
// injected cell calls.
const paramsImport = "github.com/conclab/conclab/notebook/params"

// A Parameter is a value for one of a notebook's parameters, as given on a
// command line: the variable's name and the value's text.
type Parameter struct {
	Name, Text string
}

// ParametersCell returns the source of the cell that sets ps, in order:
// params.Set of one params.Value per parameter, each value a Go string
// literal (Quote). papermill's Go translator (python/conclab-papermill)
// writes the same bytes for the same names and texts.
func ParametersCell(ps []Parameter) string {
	var b strings.Builder
	b.WriteString("// Parameters\nimport \"" + paramsImport + "\"\n\nparams.Set(\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "\tparams.Value(%s, &%s, %s),\n", Quote(p.Name), p.Name, Quote(p.Text))
	}
	b.WriteString(")")
	return b.String()
}

// Quote returns s as a Go interpreted string literal: backslash, double
// quote and control characters (U+0000-U+001F, U+007F) escaped, every
// other character as is, a byte that is not UTF-8 as \xNN. A simpler rule
// than strconv.Quote's, so that the Python translator writes the same bytes.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// SetParameters gives the notebook parameter values for one run: a code
// cell tagged "injected-parameters" holding ParametersCell(ps) goes right
// after the first code cell tagged "parameters" — or replaces an earlier
// injected cell — as papermill does. A name given twice keeps its last
// value, in the place of its first. It is an error, and the notebook is
// unchanged, when no cell is tagged "parameters", when a name is not a Go
// identifier, or when the parameters cell does not declare it as a
// variable (the error lists the names it declares).
func (nb *Notebook) SetParameters(ps []Parameter) error {
	if len(ps) == 0 {
		return nil
	}
	at := -1
	for i, c := range nb.Cells {
		if c.Type == CellCode && hasTag(c, TagParameters) {
			at = i
			break
		}
	}
	if at < 0 {
		return fmt.Errorf("parameters given, but no code cell is tagged %q (in Jupyter: the cell's property inspector, Common Tools, Cell Tags)", TagParameters)
	}
	vars, consts := declaredNames(nb.Cells[at].Source)
	var merged []Parameter
	index := map[string]int{}
	for _, p := range ps {
		if !token.IsIdentifier(p.Name) || p.Name == "_" {
			return fmt.Errorf("parameter name %q is not a Go identifier", p.Name)
		}
		switch {
		case consts[p.Name]:
			return fmt.Errorf("parameter %s: the parameters cell (cell %d) declares it a constant, which cannot be set; declare it with := or var", p.Name, at+1)
		case !vars[p.Name]:
			return fmt.Errorf("unknown parameter %s: the parameters cell (cell %d) declares %s", p.Name, at+1, nameList(vars))
		}
		if i, ok := index[p.Name]; ok {
			merged[i].Text = p.Text
			continue
		}
		index[p.Name] = len(merged)
		merged = append(merged, p)
	}
	cell := &Cell{Type: CellCode, Source: ParametersCell(merged),
		Metadata: map[string]any{"tags": []any{TagInjectedParameters}}, Outputs: []*Output{}}
	injected := -1
	for i, c := range nb.Cells {
		if hasTag(c, TagInjectedParameters) {
			injected = i
			break
		}
	}
	if injected >= 0 {
		cell.ID = nb.Cells[injected].ID
		nb.Cells[injected] = cell
	} else {
		nb.Cells = append(nb.Cells[:at+1], append([]*Cell{cell}, nb.Cells[at+1:]...)...)
	}
	return nb.fixIDs()
}

func hasTag(c *Cell, tag string) bool {
	tags, _ := c.Metadata["tags"].([]any)
	for _, t := range tags {
		if s, _ := t.(string); s == tag {
			return true
		}
	}
	return false
}

func nameList(set map[string]bool) string {
	if len(set) == 0 {
		return "no variables"
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// declaredNames returns the names a cell declares at its top level as
// variables (x := ..., a, b := ..., var x T, var ( ... )) and as constants
// (const x = ..., const ( ... )). It reads tokens, not a syntax tree, so a
// cell mixing imports, declarations and statements, as cells do, is read
// as written; what does not scan is skipped.
func declaredNames(src string) (vars, consts map[string]bool) {
	vars, consts = map[string]bool{}, map[string]bool{}
	type tok struct {
		t   token.Token
		lit string
	}
	var toks []tok
	fset := token.NewFileSet()
	f := fset.AddFile("cell", -1, len(src))
	var s scanner.Scanner
	s.Init(f, []byte(src), nil, 0)
	for {
		_, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		toks = append(toks, tok{t, lit})
	}
	// idents reads "a, b, c" from i; it returns the names and the index
	// after them.
	idents := func(i int) ([]string, int) {
		var names []string
		for i < len(toks) && toks[i].t == token.IDENT {
			names = append(names, toks[i].lit)
			i++
			if i < len(toks) && toks[i].t == token.COMMA {
				i++
				continue
			}
			break
		}
		return names, i
	}
	add := func(set map[string]bool, names []string) {
		for _, n := range names {
			if n != "_" {
				set[n] = true
			}
		}
	}
	depth := 0
	start := true // at the start of a top-level statement
	for i := 0; i < len(toks); i++ {
		t := toks[i].t
		if depth == 0 && start {
			switch t {
			case token.IDENT:
				if names, j := idents(i); j < len(toks) && toks[j].t == token.DEFINE {
					add(vars, names)
				}
			case token.VAR, token.CONST:
				set := vars
				if t == token.CONST {
					set = consts
				}
				if i+1 < len(toks) && toks[i+1].t == token.LPAREN {
					// A group: a spec starts after "(" and after each ";".
					j := i + 2
					for j < len(toks) && toks[j].t != token.RPAREN {
						names, k := idents(j)
						add(set, names)
						// Skip to the end of this spec.
						d := 0
						for k < len(toks) {
							switch toks[k].t {
							case token.LPAREN, token.LBRACE, token.LBRACK:
								d++
							case token.RPAREN, token.RBRACE, token.RBRACK:
								d--
							}
							if d < 0 || (d == 0 && toks[k].t == token.SEMICOLON) {
								break
							}
							k++
						}
						if k < len(toks) && toks[k].t == token.SEMICOLON {
							k++
						}
						if k == j {
							k++
						}
						j = k
					}
				} else {
					names, _ := idents(i + 1)
					add(set, names)
				}
			}
		}
		switch t {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			if depth > 0 {
				depth--
			}
		}
		start = depth == 0 && t == token.SEMICOLON
	}
	return vars, consts
}
