package eval

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// decls is what a segment declares: names (with their kind), imports
// (name -> path), methods by receiver type, and the type of variables whose
// type is evident from a composite literal.
type decls struct {
	names, imports, varTypes map[string]string
	methods                  map[string][]string
}

func declaredAll(src string) decls {
	d := decls{varTypes: map[string]string{}, methods: map[string][]string{}}
	d.names, d.imports = declared(src)
	walk := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Recv != nil && len(n.Recv.List) == 1 {
				if t := typeName(n.Recv.List[0].Type); t != "" {
					d.methods[t] = append(d.methods[t], n.Name.Name)
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						if t := litType(n.Rhs[i]); t != "" {
							d.varTypes[id.Name] = t
						}
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if n.Type != nil {
					if t := typeName(n.Type); t != "" {
						d.varTypes[id.Name] = t
					}
				} else if i < len(n.Values) {
					if t := litType(n.Values[i]); t != "" {
						d.varTypes[id.Name] = t
					}
				}
			}
		}
		return true
	}
	if f, err := parser.ParseFile(token.NewFileSet(), "", "package main\n"+src, parser.SkipObjectResolution); err == nil {
		ast.Inspect(f, walk)
	} else if f, err := parser.ParseFile(token.NewFileSet(), "", "package main\nfunc _() {\n"+src+"\n}", parser.SkipObjectResolution); err == nil {
		ast.Inspect(f, walk)
	}
	return d
}

// typeName returns T for T, *T (and T[...] generics); "" otherwise.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	}
	return ""
}

// litType returns T for T{...} and &T{...}.
func litType(e ast.Expr) string {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	if c, ok := e.(*ast.CompositeLit); ok && c.Type != nil {
		return typeName(c.Type)
	}
	return ""
}

// declared returns the names a Go segment declares at top level (with their
// kind) and the packages it imports (name -> path).
func declared(src string) (names, imports map[string]string) {
	names, imports = map[string]string{}, map[string]string{}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package main\n"+src, parser.SkipObjectResolution)
	if err != nil {
		// Statements: scan for `name :=` and var/const names.
		fn, err := parser.ParseFile(token.NewFileSet(), "", "package main\nfunc _() {\n"+src+"\n}", parser.SkipObjectResolution)
		if err != nil {
			return
		}
		for _, st := range fn.Decls[0].(*ast.FuncDecl).Body.List {
			switch st := st.(type) {
			case *ast.AssignStmt:
				if st.Tok == token.DEFINE {
					for _, l := range st.Lhs {
						if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
							names[id.Name] = "var"
						}
					}
				}
			case *ast.DeclStmt:
				genDecl(st.Decl.(*ast.GenDecl), names, imports)
			}
		}
		return
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = "func"
			}
		case *ast.GenDecl:
			genDecl(d, names, imports)
		}
	}
	return
}

func genDecl(d *ast.GenDecl, names, imports map[string]string) {
	for _, sp := range d.Specs {
		switch sp := sp.(type) {
		case *ast.ImportSpec:
			p, _ := strconv.Unquote(sp.Path.Value)
			n := path.Base(p)
			if sp.Name != nil {
				n = sp.Name.Name
			}
			if n != "_" && n != "." {
				imports[n] = p
			}
		case *ast.TypeSpec:
			names[sp.Name.Name] = "type"
		case *ast.ValueSpec:
			for _, id := range sp.Names {
				if id.Name != "_" {
					names[id.Name] = d.Tok.String()
				}
			}
		}
	}
}

var keywords = []string{"break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map", "package",
	"range", "return", "select", "struct", "switch", "type", "var"}

var builtins = []string{"append", "cap", "clear", "close", "complex", "copy", "delete", "imag",
	"len", "make", "max", "min", "new", "panic", "print", "println", "real", "recover",
	"bool", "byte", "complex128", "complex64", "error", "float32", "float64", "int", "int16",
	"int32", "int64", "int8", "rune", "string", "uint", "uint16", "uint32", "uint64", "uint8",
	"uintptr", "any", "true", "false", "nil", "iota"}

// Packages returns the import paths linked into the session's interpreter,
// sorted.
func (s *Session) Packages() []string { return s.lib.paths() }

// resolvePackage maps a package name used in a cell to its import path.
func (s *Session) resolvePackage(name string) (string, bool) {
	s.mu.Lock()
	p, ok := s.imports[name]
	s.mu.Unlock()
	if ok {
		return p, true
	}
	// ImportUsed makes every linked package available by its base name
	// (http for net/http), unless two share it.
	p, ok = s.lib.used[name]
	if ok && p != "" {
		return p, true
	}
	// The interpreted standard packages (slices, maps ...) by name.
	return stdSourcePath(name)
}

// exprAt returns the dotted identifier chain ending at cursor (a byte offset
// or rune offset; Jupyter sends code points) and its start offset.
func exprAt(code string, cursor int) (chain string, start int) {
	if cursor > len(code) {
		cursor = len(code)
	}
	i := cursor
	for i > 0 {
		c := rune(code[i-1])
		if c == '.' || c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) || c >= 0x80 {
			i--
			continue
		}
		// An index with a literal key (xs[0], m["k"]) before a dot.
		if c == ']' && i < len(code) && (code[i] == '.' || code[i] == '[') {
			if open := strings.LastIndexByte(code[:i-1], '['); open > 0 && literalIndex(code[open+1:i-1]) {
				i = open
				continue
			}
		}
		break
	}
	return code[i:cursor], i
}

// literalIndex reports whether key is an int or a quoted string literal:
// indexes completion can follow without running code.
func literalIndex(key string) bool {
	if key == "" {
		return false
	}
	if _, err := strconv.Atoi(key); err == nil {
		return true
	}
	if _, err := strconv.Unquote(key); err == nil {
		return true
	}
	return false
}

// splitIndex splits "xs[0][1]" into "xs" and its literal keys.
func splitIndex(part string) (name string, keys []string) {
	for strings.HasSuffix(part, "]") {
		open := strings.LastIndexByte(part, '[')
		if open <= 0 {
			break
		}
		keys = append([]string{part[open+1 : len(part)-1]}, keys...)
		part = part[:open]
	}
	return part, keys
}

// index applies a literal key to a slice, array, string-keyed or int-keyed
// map; anything else (or a missing element) is not found.
func index(v reflect.Value, key string) (reflect.Value, bool) {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}, false
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return reflect.Value{}, false
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= v.Len() {
			return reflect.Value{}, false
		}
		return v.Index(i), true
	case reflect.Map:
		var k reflect.Value
		if str, err := strconv.Unquote(key); err == nil && v.Type().Key().Kind() == reflect.String {
			k = reflect.ValueOf(str).Convert(v.Type().Key())
		} else if i, err := strconv.Atoi(key); err == nil && intKind(v.Type().Key().Kind()) {
			k = reflect.ValueOf(i).Convert(v.Type().Key())
		} else {
			return reflect.Value{}, false
		}
		e := v.MapIndex(k)
		return e, e.IsValid()
	}
	return reflect.Value{}, false
}

// runeToByte converts a code-point offset (Jupyter's cursor_pos) to a byte offset.
func runeToByte(code string, pos int) int {
	n := 0
	for i := range code {
		if n == pos {
			return i
		}
		n++
	}
	return len(code)
}

// byteToRune converts a byte offset to a code-point offset.
func byteToRune(code string, off int) int {
	if off > len(code) {
		off = len(code)
	}
	return len([]rune(code[:off]))
}

// Complete returns completions for the identifier or selector before cursor
// (a code-point offset, as Jupyter sends it), and the code-point range they
// replace: identifiers in scope, package members, and fields and methods of
// a variable's type.
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	bc := runeToByte(code, cursor)
	chain, from := exprAt(code, bc)
	end = cursor
	set := map[string]bool{}
	prefix := chain
	if dot := strings.LastIndexByte(chain, '.'); dot >= 0 {
		base, sel := chain[:dot], chain[dot+1:]
		prefix = sel
		from += dot + 1
		for _, m := range s.members(base) {
			if strings.HasPrefix(m, sel) {
				set[m] = true
			}
		}
	} else {
		for _, n := range s.scopeNames() {
			if strings.HasPrefix(n, prefix) {
				set[n] = true
			}
		}
	}
	for m := range set {
		matches = append(matches, m)
	}
	sort.Strings(matches)
	return matches, byteToRune(code, from), end
}

func (s *Session) scopeNames() []string {
	var out []string
	out = append(out, keywords...)
	out = append(out, builtins...)
	s.mu.Lock()
	for n := range s.known {
		out = append(out, n)
	}
	for n := range s.imports {
		out = append(out, n)
	}
	s.mu.Unlock()
	for n := range s.in.Globals() {
		if !strings.HasPrefix(n, "_conclab") {
			out = append(out, n)
		}
	}
	for _, src := range s.lib.tables {
		for k := range src {
			if b := path.Base(k); path.Dir(k) != "." && !strings.ContainsAny(b, ".-") {
				out = append(out, b)
			}
		}
	}
	out = append(out, "Display")
	return out
}

// members lists what can follow `base.`: a package's exported symbols, or
// the fields and methods of a variable's value.
func (s *Session) members(base string) []string {
	if !strings.Contains(base, ".") {
		if p, ok := s.resolvePackage(base); ok {
			var out []string
			for n := range s.lib.exports(p) {
				if ast.IsExported(n) {
					out = append(out, n)
				}
			}
			return out
		}
	}
	var out []string
	if v, ok := s.lookupValue(base); ok {
		out = typeMembers(v.Type())
	}
	s.mu.Lock()
	if t, ok := s.varTypes[base]; ok {
		out = append(out, s.methods[t]...)
	}
	s.mu.Unlock()
	return out
}

// lookupValue finds the value of a variable or selector chain without
// running code: globals, then fields.
func (s *Session) lookupValue(chain string) (reflect.Value, bool) {
	parts := strings.Split(chain, ".")
	g := s.in.Globals()
	first, keys := splitIndex(parts[0])
	v, ok := g[first]
	for _, k := range keys {
		if !ok {
			break
		}
		v, ok = index(v, k)
	}
	if !ok && len(keys) > 0 {
		return reflect.Value{}, false
	}
	if !ok {
		if p, isPkg := s.resolvePackage(parts[0]); isPkg && len(parts) > 1 {
			v, ok = s.lib.exports(p)[parts[1]]
			parts = parts[1:]
		}
		if !ok {
			return reflect.Value{}, false
		}
	}
	for _, f := range parts[1:] {
		for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		if !v.IsValid() || v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		name, keys := splitIndex(f)
		v = v.FieldByName(name)
		for _, k := range keys {
			var found bool
			if v, found = index(v, k); !found {
				return reflect.Value{}, false
			}
		}
	}
	return v, v.IsValid()
}

func typeMembers(t reflect.Type) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] && ast.IsExported(n) {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, tt := range []reflect.Type{t, reflect.PointerTo(t)} {
		for i := 0; i < tt.NumMethod(); i++ {
			add(tt.Method(i).Name)
		}
	}
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
		for i := 0; i < st.NumMethod(); i++ {
			add(st.Method(i).Name)
		}
	}
	if st.Kind() == reflect.Struct {
		for i := 0; i < st.NumField(); i++ {
			add(st.Field(i).Name)
		}
	}
	return out
}

// Inspect returns documentation for the identifier or selector at cursor
// (a code-point offset): the package documentation of a linked-in symbol
// when available, else its type. found is false when nothing is known.
func (s *Session) Inspect(code string, cursor int) (doc string, found bool) {
	bc := runeToByte(code, cursor)
	// Extend the chain to the end of the identifier under the cursor.
	e := bc
	for e < len(code) {
		c := rune(code[e])
		if c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) {
			e++
			continue
		}
		break
	}
	chain, _ := exprAt(code, e)
	chain = strings.Trim(chain, ".")
	if chain == "" {
		// Between a call's parentheses with no name under the cursor
		// (just after "bench.Run(", or after a comma): the function
		// being called, as IPython's inspector does.
		if open := openParen(code, bc); open >= 0 {
			chain, _ = exprAt(code, open)
			chain = strings.Trim(chain, ".")
		}
	}
	if chain == "" {
		return "", false
	}
	parts := strings.Split(chain, ".")
	if len(parts) >= 2 {
		if p, ok := s.resolvePackage(parts[0]); ok {
			if d, ok := s.symbolDoc(p, parts[1]); ok {
				return d, true
			}
			if v, ok := s.lib.exports(p)[parts[1]]; ok {
				return describe(p+"."+parts[1], v), true
			}
		}
	}
	if len(parts) == 1 {
		if p, ok := s.resolvePackage(parts[0]); ok {
			if d, ok := s.symbolDoc(p, ""); ok {
				return d, true
			}
			return "package " + p, true
		}
		for _, k := range keywords {
			if k == chain {
				return chain + ": Go keyword", true
			}
		}
		s.mu.Lock()
		kind, isKnown := s.known[chain]
		s.mu.Unlock()
		if v, ok := s.in.Globals()[chain]; ok {
			return describe(chain, v), true
		}
		if isKnown {
			return chain + ": " + kind + " declared in this session", true
		}
		for _, b := range builtins {
			if b == chain {
				return chain + ": Go builtin", true
			}
		}
	}
	if len(parts) >= 2 {
		// A method or field of a value of a linked-in type.
		if v, ok := s.lookupValue(strings.Join(parts[:len(parts)-1], ".")); ok {
			t := v.Type()
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			if t.PkgPath() != "" && t.Name() != "" {
				if d, ok := s.symbolDoc(t.PkgPath(), t.Name()+"."+parts[len(parts)-1]); ok {
					return d, true
				}
			}
		}
	}
	if v, ok := s.lookupValue(chain); ok {
		return describe(chain, v), true
	}
	return "", false
}

func describe(name string, v reflect.Value) string {
	if !v.IsValid() {
		return name
	}
	t := v.Type()
	if v.Kind() == reflect.Pointer && v.IsNil() && t.Elem().Kind() != reflect.Pointer {
		// Type definitions are exported as (*T)(nil).
		return "type " + name + " " + t.Elem().String()
	}
	return name + " " + t.String()
}

// IsComplete reports whether code is a complete cell for Jupyter's
// is_complete_request: "complete", "incomplete" (with the indent to continue
// with) or "invalid".
func IsComplete(code string) (status, indent string) {
	if strings.TrimSpace(code) == "" {
		return "complete", ""
	}
	var lines []string
	for _, l := range strings.Split(code, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "$") || strings.HasPrefix(t, "%") {
			continue
		}
		lines = append(lines, l)
	}
	src := strings.Join(lines, "\n")
	// Scan for unbalanced brackets and unterminated literals.
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var sc scanner.Scanner
	unterminated := false
	sc.Init(file, []byte(src), func(_ token.Position, msg string) {
		if strings.Contains(msg, "not terminated") {
			unterminated = true
		}
	}, 0)
	depth := 0
	var last token.Token
	for {
		_, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		}
		if !(tok == token.SEMICOLON && lit == "\n") {
			last = tok
		}
	}
	if depth < 0 {
		return "invalid", ""
	}
	if unterminated || depth > 0 {
		return "incomplete", strings.Repeat("\t", max(depth, 1))
	}
	switch last {
	case token.ADD, token.SUB, token.MUL, token.QUO, token.REM, token.AND, token.OR, token.XOR,
		token.SHL, token.SHR, token.AND_NOT, token.LAND, token.LOR, token.ASSIGN, token.DEFINE,
		token.COMMA, token.PERIOD, token.ARROW, token.EQL, token.NEQ, token.LSS, token.GTR,
		token.LEQ, token.GEQ, token.COLON:
		return "incomplete", ""
	}
	for _, seg := range splitGo(src, 1) {
		if seg.kind == segDecl {
			if _, err := parser.ParseFile(token.NewFileSet(), "", "package main\n"+seg.src, 0); err != nil {
				return "invalid", ""
			}
			continue
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "", "package main\nfunc _() {\n"+seg.src+"\n}", 0); err != nil {
			return "invalid", ""
		}
	}
	return "complete", ""
}

func intKind(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// openParen returns the byte offset of the innermost "(" still open at
// byte offset end of code, or -1. String and rune literals and comments
// are skipped.
func openParen(code string, end int) int {
	if end > len(code) {
		end = len(code)
	}
	var open []int
	for i := 0; i < end; i++ {
		switch c := code[i]; c {
		case '(':
			open = append(open, i)
		case ')':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case '"', '\'', '`':
			for i++; i < end && code[i] != c && (c == '`' || code[i] != '\n'); i++ {
				if code[i] == '\\' && c != '`' {
					i++
				}
			}
		case '/':
			if i+1 < end && code[i+1] == '/' {
				for i < end && code[i] != '\n' {
					i++
				}
			} else if i+1 < end && code[i+1] == '*' {
				j := strings.Index(code[i+2:end], "*/")
				if j < 0 {
					return -1
				}
				i += j + 3
			}
		}
	}
	if len(open) == 0 {
		return -1
	}
	return open[len(open)-1]
}
