// Package vfmt prints the values of cell-declared types as Go prints them.
//
// The interpreter (yaegi) represents a struct type declared in a cell by a
// reflect type it makes itself: unnamed, with every field exported (x
// becomes Xx) and no methods. Handed to the compiled fmt package such a
// value prints as {Xx:1 Xy:2} and %#v as struct { Xx int; Xy int }{...}.
// The session's pipeline gives every struct type of a cell a field tag
// naming the type and its fields (TagKey, see Tag), and a registry the
// methods of cell types that fmt calls (String, Error, GoString, Format);
// with them this package prints main.point{x:1, y:2}, {x:1 y:2} and calls
// the methods as fmt would. It follows fmt's printValue: the same verbs,
// flags, separators, map ordering (fmtsort's), the same treatment of
// unexported fields (no methods called on them) and of pointers (&{...} at
// the top level, an address below).
//
// Values with nothing of a cell in them are left to fmt.
package vfmt

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/conclab/conclab/kernel/eval/internal/reach"
)

// TagKey is the struct tag key the pipeline gives cell-declared structs.
const TagKey = "conclab"

// Tag is the tag value for a struct type named name ("main.point", "" for a
// struct literal type) with fields named as written (fields), the declared
// types of fields that have a named cell type (decl, by field index) and
// the type parameters of a generic type.
func Tag(name string, fields []string, decl map[int]string, tparams []string) string {
	var fs []string
	for i, f := range fields {
		if d, ok := decl[i]; ok {
			f += "=" + d
		}
		fs = append(fs, f)
	}
	return name + ";" + strings.Join(fs, ",") + ";" + strings.Join(tparams, ",")
}

// info is a tagged struct type's Go description.
type info struct {
	name    string   // "main.point"; "" for a struct literal type
	fields  []string // as written
	decl    []string // declared cell type name of each field ("" when none)
	tparams []string
}

var infoCache sync.Map // reflect.Type -> *info (nil when untagged)

// structInfo returns the Go description of a struct type, nil when it is not
// a tagged cell type.
func structInfo(t reflect.Type) *info {
	if t.Kind() != reflect.Struct || t.NumField() == 0 {
		return nil
	}
	if v, ok := infoCache.Load(t); ok {
		in, _ := v.(*info)
		return in
	}
	var in *info
	if tag, ok := t.Field(0).Tag.Lookup(TagKey); ok {
		parts := strings.SplitN(tag, ";", 3)
		if len(parts) == 3 {
			in = &info{name: parts[0]}
			if parts[1] != "" {
				for _, f := range strings.Split(parts[1], ",") {
					n, d, _ := strings.Cut(f, "=")
					in.fields = append(in.fields, n)
					in.decl = append(in.decl, d)
				}
			}
			if parts[2] != "" {
				in.tparams = strings.Split(parts[2], ",")
			}
			if len(in.fields) != t.NumField() {
				in = nil
			}
		}
	}
	infoCache.Store(t, in)
	return in
}

// Methods are the methods fmt calls, of one cell-declared type, as the
// session registered them (functions of the interpreter). Nil when absent.
type Methods struct {
	String   func(v any) string
	Error    func(v any) string
	GoString func(v any) string
	Format   func(v any, f fmt.State, verb rune)
}

func (m Methods) empty() bool {
	return m.String == nil && m.Error == nil && m.GoString == nil && m.Format == nil
}

// Registry gives the methods of a cell type by Go name ("main.Celsius",
// "*main.Stack"); the zero Methods when it has none.
type Registry func(name string) Methods

// Named is a value with the Go type name it has in the cell
// ("main.Celsius", "[]main.Money"), for types reflection cannot tell
// (named types that are not structs); the pipeline writes it around
// arguments of fmt's functions and displayed values.
type Named struct {
	V    any
	Type string
}

// Wrap returns v ready for fmt: a value that prints itself as Go would
// when v holds anything of a cell type, v itself otherwise.
func Wrap(v any, reg Registry) any {
	w, _ := wrap(v, reg)
	return w
}

// Wraps reports whether Wrap would change v.
func Wraps(v any) bool {
	_, ok := wrap(v, nil)
	return ok
}

func wrap(v any, reg Registry) (any, bool) {
	if n, ok := v.(Named); ok {
		if w, ok := yaegiWrapper(n.V); ok {
			return &printer{v: w.inner, meth: w.methods, typ: n.Type, reg: reg}, true
		}
		return &printer{v: reflect.ValueOf(n.V), typ: n.Type, reg: reg}, true
	}
	if w, ok := yaegiWrapper(v); ok {
		return &printer{v: w.inner, meth: w.methods, reg: reg}, true
	}
	switch v.(type) {
	case error, fmt.Stringer, fmt.Formatter:
		// A compiled value with methods fmt calls: fmt prints it.
		return v, false
	}
	if v == nil || !needs(reflect.TypeOf(v)) {
		return v, false
	}
	return &printer{v: reflect.ValueOf(v), reg: reg}, true
}

// Sprint is fmt.Sprint of v with cell types printed as Go prints them.
func Sprint(v any, reg Registry) string { return fmt.Sprint(Wrap(v, reg)) }

var needsCache sync.Map // reflect.Type -> bool

// needs reports whether values of t can hold a tagged struct.
func needs(t reflect.Type) bool {
	if v, ok := needsCache.Load(t); ok {
		return v.(bool)
	}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type) bool
	walk = func(t reflect.Type) bool {
		if seen[t] {
			return false
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Struct:
			if structInfo(t) != nil || reach.IsValueInterface(t) {
				return true
			}
			for i := 0; i < t.NumField(); i++ {
				if walk(t.Field(i).Type) {
					return true
				}
			}
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			return walk(t.Elem())
		case reflect.Map:
			return walk(t.Key()) || walk(t.Elem())
		case reflect.Interface:
			return true // the dynamic value may be anything
		}
		return false
	}
	r := walk(t)
	needsCache.Store(t, r)
	return r
}

// wrapped is a value the interpreter wrapped to give compiled code its
// methods: the value and the methods found.
type wrapped struct {
	inner   reflect.Value
	methods Methods
}

// yaegiWrapper recognises the interpreter's interface wrappers (a struct
// whose first field is IValue and whose other fields are the methods, W
// and the method's name): the value inside and its printing methods.
func yaegiWrapper(v any) (wrapped, bool) {
	if v == nil {
		return wrapped{}, false
	}
	rv := reflect.ValueOf(v)
	t := rv.Type()
	if t.Kind() != reflect.Struct || t.NumField() < 2 || t.Field(0).Name != "IValue" {
		return wrapped{}, false
	}
	w := wrapped{inner: reflect.ValueOf(reach.Unwrap(reach.WrapperValue(rv)))}
	for i := 1; i < t.NumField(); i++ {
		f := rv.Field(i)
		if f.Kind() != reflect.Func || f.IsNil() {
			continue
		}
		switch t.Field(i).Name {
		case "WString":
			if fn, ok := f.Interface().(func() string); ok {
				w.methods.String = func(any) string { return fn() }
			}
		case "WError":
			if fn, ok := f.Interface().(func() string); ok {
				w.methods.Error = func(any) string { return fn() }
			}
		case "WGoString":
			if fn, ok := f.Interface().(func() string); ok {
				w.methods.GoString = func(any) string { return fn() }
			}
		case "WFormat":
			if fn, ok := f.Interface().(func(fmt.State, rune)); ok {
				w.methods.Format = func(_ any, s fmt.State, c rune) { fn(s, c) }
			}
		}
	}
	return w, true
}

// printer prints one value; it is what Wrap hands to fmt.
type printer struct {
	v    reflect.Value
	typ  string  // the Go type name when the pipeline gave one
	meth Methods // methods known from an interpreter wrapper
	reg  Registry
}

// Format implements fmt.Formatter.
func (p *printer) Format(f fmt.State, verb rune) {
	pr := &pass{st: f, verb: verb, reg: p.reg, plus: f.Flag('+'), sharp: f.Flag('#')}
	pr.plusV = verb == 'v' && pr.plus
	pr.sharpV = verb == 'v' && pr.sharp
	if verb == 'T' {
		pr.leaf(p.typeName())
		return
	}
	m := p.meth
	if m.empty() {
		m = pr.methodsOf(p.v.Type(), p.typ)
	}
	if pr.handle(p.v, m) {
		fmt.Fprint(f, pr.b.String())
		return
	}
	pr.value(p.v, 0, true, p.typ)
	fmt.Fprint(f, pr.b.String())
}

// typeName is the Go name of the printed value's type (%T).
func (p *printer) typeName() string {
	if p.typ != "" {
		return p.typ
	}
	if !p.v.IsValid() {
		return "<nil>"
	}
	return goType(p.v.Type())
}

// pass is one printing of a value.
type pass struct {
	b                          strings.Builder
	st                         fmt.State
	verb                       rune
	reg                        Registry
	plus, sharp, plusV, sharpV bool
}

// spec is the format of a leaf: the same flags, width and precision as
// the one being printed.
func (pr *pass) spec(verb rune) string {
	var s strings.Builder
	s.WriteByte('%')
	for _, c := range "+-# 0" {
		// %+v and %#v are verbs of their own; their flag does not apply
		// to the leaves printed with another verb.
		if c == '+' && pr.plusV && verb != 'v' || c == '#' && pr.sharpV && verb != 'v' {
			continue
		}
		if pr.st.Flag(int(c)) {
			s.WriteRune(c)
		}
	}
	if w, ok := pr.st.Width(); ok {
		s.WriteString(strconv.Itoa(w))
	}
	if p, ok := pr.st.Precision(); ok {
		s.WriteByte('.')
		s.WriteString(strconv.Itoa(p))
	}
	s.WriteRune(verb)
	return s.String()
}

// leaf writes a value fmt prints by itself, with the current verb.
func (pr *pass) leaf(v any) {
	fmt.Fprintf(&pr.b, pr.spec(pr.verb), v)
}

// methodsOf returns the registered methods of values of t (named typ when
// the pipeline says so).
func (pr *pass) methodsOf(t reflect.Type, typ string) Methods {
	if pr.reg == nil {
		return Methods{}
	}
	name := typ
	if name == "" {
		name = goType(t)
	}
	if !strings.Contains(name, "main.") {
		return Methods{}
	}
	return pr.reg(name)
}

// handle prints v through its methods as fmt's handleMethods does; it
// reports whether it did.
func (pr *pass) handle(v reflect.Value, m Methods) bool {
	if m.Format != nil {
		var sub strings.Builder
		m.Format(iface(v), &state{State: pr.st, w: &sub}, pr.verb)
		pr.b.WriteString(sub.String())
		return true
	}
	if pr.sharpV {
		if m.GoString != nil {
			pr.b.WriteString(m.GoString(iface(v)))
			return true
		}
		return false
	}
	switch pr.verb {
	case 'v', 's', 'x', 'X', 'q':
		if m.Error != nil {
			pr.str(m.Error(iface(v)))
			return true
		}
		if m.String != nil {
			pr.str(m.String(iface(v)))
			return true
		}
	}
	return false
}

// str writes a string with the current verb (%v as %s).
func (pr *pass) str(s string) {
	verb := pr.verb
	if verb == 'v' {
		verb = 's'
	}
	fmt.Fprintf(&pr.b, pr.spec(verb), s)
}

func iface(v reflect.Value) any {
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	return v.Interface()
}

// state is a fmt.State writing into a builder, for a registered Format.
type state struct {
	fmt.State
	w *strings.Builder
}

func (s *state) Write(b []byte) (int, error) { return s.w.Write(b) }

// value prints v at depth; exported tells whether Go could call methods on
// it (not reached through an unexported field); typ is its Go type name
// when known from the declaration.
func (pr *pass) value(v reflect.Value, depth int, exported bool, typ string) {
	if v.IsValid() && v.Kind() == reflect.Struct && reach.IsValueInterface(v.Type()) {
		// A value of an interface type declared in a cell: printed as the
		// value it holds.
		if !v.CanInterface() {
			pr.b.WriteString("<nil>")
			return
		}
		inner := reach.Unwrap(v.Interface())
		if inner == v.Interface() {
			pr.b.WriteString("<nil>")
			return
		}
		v, typ = reflect.ValueOf(inner), ""
	}
	if depth > 0 && v.IsValid() && exported {
		if pr.handle(v, pr.methodsOf(v.Type(), typ)) {
			return
		}
		if v.CanInterface() && compiledMethods(v, pr.verb, pr.sharpV) {
			// A compiled type with methods fmt uses: fmt prints it.
			pr.leaf(v.Interface())
			return
		}
	}
	switch v.Kind() {
	case reflect.Invalid:
		if depth == 0 {
			pr.b.WriteString("<invalid reflect.Value>")
		} else if pr.verb == 'v' {
			pr.b.WriteString("<nil>")
		} else {
			pr.badVerb(v, typ)
		}
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		if !strings.ContainsRune(leafVerbs[v.Kind()], pr.verb) {
			pr.badVerb(v, typ)
			return
		}
		pr.leaf(plain(v))
	case reflect.Map:
		if pr.sharpV {
			pr.b.WriteString(pr.typeOf(v.Type(), typ))
			if v.IsNil() {
				pr.b.WriteString("(nil)")
				return
			}
			pr.b.WriteByte('{')
		} else {
			pr.b.WriteString("map[")
		}
		kt, et := elemTypes(typ)
		for i, k := range sortedKeys(v) {
			if i > 0 {
				pr.sep()
			}
			pr.value(k, depth+1, exported, kt)
			pr.b.WriteByte(':')
			pr.value(v.MapIndex(k), depth+1, exported, et)
		}
		if pr.sharpV {
			pr.b.WriteByte('}')
		} else {
			pr.b.WriteByte(']')
		}
	case reflect.Struct:
		in := structInfo(v.Type())
		if pr.sharpV {
			pr.b.WriteString(pr.typeOf(v.Type(), typ))
		}
		pr.b.WriteByte('{')
		for i := 0; i < v.NumField(); i++ {
			if i > 0 {
				pr.sep()
			}
			name := v.Type().Field(i).Name
			decl := ""
			if in != nil {
				name, decl = in.fields[i], in.decl[i]
			}
			if in != nil && isParam(in, decl) {
				decl = ""
			}
			if (pr.plusV || pr.sharpV) && name != "" {
				pr.b.WriteString(name)
				pr.b.WriteByte(':')
			}
			exp := exported && fieldExported(name, v.Type().Field(i))
			pr.value(v.Field(i), depth+1, exp, decl)
		}
		pr.b.WriteByte('}')
	case reflect.Interface:
		e := v.Elem()
		if !e.IsValid() {
			if pr.sharpV {
				pr.b.WriteString(pr.typeOf(v.Type(), typ) + "(nil)")
			} else {
				pr.b.WriteString("<nil>")
			}
			return
		}
		if w, ok := yaegiWrapper(iface(e)); ok {
			if depth > 0 && exported && pr.handle(w.inner, w.methods) {
				return
			}
			e = w.inner
		}
		pr.value(e, depth+1, exported, "")
	case reflect.Array, reflect.Slice:
		switch pr.verb {
		case 's', 'q', 'x', 'X':
			if v.Type().Elem().Kind() == reflect.Uint8 {
				b := make([]byte, v.Len())
				for i := range b {
					b[i] = byte(v.Index(i).Uint())
				}
				pr.leaf(b)
				return
			}
		}
		_, et := elemTypes(typ)
		if pr.sharpV {
			pr.b.WriteString(pr.typeOf(v.Type(), typ))
			if v.Kind() == reflect.Slice && v.IsNil() {
				pr.b.WriteString("(nil)")
				return
			}
			pr.b.WriteByte('{')
			for i := 0; i < v.Len(); i++ {
				if i > 0 {
					pr.b.WriteString(", ")
				}
				pr.value(v.Index(i), depth+1, exported, et)
			}
			pr.b.WriteByte('}')
			return
		}
		pr.b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				pr.b.WriteByte(' ')
			}
			pr.value(v.Index(i), depth+1, exported, et)
		}
		pr.b.WriteByte(']')
	case reflect.Pointer:
		if depth == 0 && !v.IsNil() {
			switch e := v.Elem(); e.Kind() {
			case reflect.Array, reflect.Slice, reflect.Struct, reflect.Map:
				pr.b.WriteByte('&')
				_, et := elemTypes(typ)
				pr.value(e, depth+1, exported, et)
				return
			}
		}
		pr.pointer(v, typ)
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		pr.pointer(v, typ)
	default:
		pr.leaf(iface(v))
	}
}

func (pr *pass) sep() {
	if pr.sharpV {
		pr.b.WriteString(", ")
	} else {
		pr.b.WriteByte(' ')
	}
}

// pointer prints a pointer, channel or function as fmt's fmtPointer does.
func (pr *pass) pointer(v reflect.Value, typ string) {
	u := uint64(uintptr(v.UnsafePointer()))
	switch pr.verb {
	case 'v':
		if pr.sharpV {
			pr.b.WriteString("(" + pr.typeOf(v.Type(), typ) + ")(")
			if u == 0 {
				pr.b.WriteString("nil")
			} else {
				pr.b.WriteString("0x" + strconv.FormatUint(u, 16))
			}
			pr.b.WriteByte(')')
			return
		}
		if u == 0 {
			pr.pad("<nil>")
			return
		}
		fmt.Fprintf(&pr.b, pr.spec('p'), iface(v))
	case 'p':
		fmt.Fprintf(&pr.b, pr.spec('p'), iface(v))
	case 'b', 'o', 'd', 'x', 'X':
		pr.leaf(u)
	default:
		pr.badVerb(v, typ)
	}
}

// pad writes s padded to the width, as fmt's padString (no precision).
func (pr *pass) pad(s string) {
	w, ok := pr.st.Width()
	n := utf8.RuneCountInString(s)
	if !ok || w <= n {
		pr.b.WriteString(s)
		return
	}
	fill := strings.Repeat(" ", w-n)
	switch {
	case pr.st.Flag('-'):
		pr.b.WriteString(s + fill)
	case pr.st.Flag('0'):
		pr.b.WriteString(strings.Repeat("0", w-n) + s)
	default:
		pr.b.WriteString(fill + s)
	}
}

// leafVerbs are the verbs fmt accepts for each basic kind.
var leafVerbs = map[reflect.Kind]string{
	reflect.Bool: "tv", reflect.String: "vsxXq",
	reflect.Int: "bcdoOqxXUv", reflect.Int8: "bcdoOqxXUv", reflect.Int16: "bcdoOqxXUv", reflect.Int32: "bcdoOqxXUv", reflect.Int64: "bcdoOqxXUv",
	reflect.Uint: "bcdoOqxXUv", reflect.Uint8: "bcdoOqxXUv", reflect.Uint16: "bcdoOqxXUv", reflect.Uint32: "bcdoOqxXUv", reflect.Uint64: "bcdoOqxXUv", reflect.Uintptr: "bcdoOqxXUv",
	reflect.Float32: "beEfFgGxXv", reflect.Float64: "beEfFgGxXv", reflect.Complex64: "beEfFgGxXv", reflect.Complex128: "beEfFgGxXv",
}

// badVerb writes fmt's report of a verb that does not apply:
// %!verb(type=value).
func (pr *pass) badVerb(v reflect.Value, typ string) {
	pr.b.WriteString("%!")
	pr.b.WriteRune(pr.verb)
	pr.b.WriteByte('(')
	if !v.IsValid() {
		pr.b.WriteString("<nil>)")
		return
	}
	pr.b.WriteString(pr.typeOf(v.Type(), typ))
	pr.b.WriteByte('=')
	sub := &pass{st: pr.st, verb: 'v', reg: pr.reg, plus: pr.plus, sharp: pr.sharp}
	sub.value(v, 0, false, typ)
	pr.b.WriteString(sub.b.String())
	pr.b.WriteByte(')')
}

// typeOf is the Go name of t, or typ when the declaration gave one.
func (pr *pass) typeOf(t reflect.Type, typ string) string {
	if typ != "" {
		return typ
	}
	return goType(t)
}

// fieldExported reports whether a field was exported in the cell's source.
func fieldExported(name string, f reflect.StructField) bool {
	if name == "" {
		name = f.Name
	}
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// compiledMethods reports whether fmt would print v through a method of its
// compiled type.
func compiledMethods(v reflect.Value, verb rune, sharpV bool) bool {
	x := v.Interface()
	if _, ok := x.(fmt.Formatter); ok {
		return true
	}
	if sharpV {
		_, ok := x.(fmt.GoStringer)
		return ok
	}
	switch verb {
	case 'v', 's', 'x', 'X', 'q':
		switch x.(type) {
		case error, fmt.Stringer:
			return true
		}
	}
	return false
}

// plain converts a value of a basic kind to the predeclared type of its
// kind, so fmt prints it without its type's methods.
func plain(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Bool:
		return v.Bool()
	case reflect.Int:
		return int(v.Int())
	case reflect.Int8:
		return int8(v.Int())
	case reflect.Int16:
		return int16(v.Int())
	case reflect.Int32:
		return int32(v.Int())
	case reflect.Int64:
		return v.Int()
	case reflect.Uint:
		return uint(v.Uint())
	case reflect.Uint8:
		return uint8(v.Uint())
	case reflect.Uint16:
		return uint16(v.Uint())
	case reflect.Uint32:
		return uint32(v.Uint())
	case reflect.Uint64:
		return v.Uint()
	case reflect.Uintptr:
		return uintptr(v.Uint())
	case reflect.Float32:
		return float32(v.Float())
	case reflect.Float64:
		return v.Float()
	case reflect.Complex64:
		return complex64(v.Complex())
	case reflect.Complex128:
		return v.Complex()
	case reflect.String:
		return v.String()
	}
	return iface(v)
}

func isParam(in *info, name string) bool {
	for _, p := range in.tparams {
		if p == name {
			return true
		}
	}
	return false
}

// GoType is the Go name of a value's type as the cell declared it
// ("main.point", "*main.point"; reflect's name for other types).
func GoType(t reflect.Type) string { return goType(t) }

// goType is the Go name of t: a cell's struct types by their declared
// names and fields, other types as reflect names them.
func goType(t reflect.Type) string {
	if in := structInfo(t); in != nil {
		if in.name != "" {
			return in.name + typeArgs(t, in)
		}
		var b strings.Builder
		b.WriteString("struct {")
		for i := 0; i < t.NumField(); i++ {
			if i > 0 {
				b.WriteByte(';')
			}
			b.WriteString(" " + in.fields[i] + " ")
			if d := in.decl[i]; d != "" && !isParam(in, d) {
				b.WriteString(d)
			} else {
				b.WriteString(goType(t.Field(i).Type))
			}
		}
		b.WriteString(" }")
		return b.String()
	}
	if t.Name() != "" {
		return t.String()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + goType(t.Elem())
	case reflect.Slice:
		return "[]" + goType(t.Elem())
	case reflect.Array:
		return "[" + strconv.Itoa(t.Len()) + "]" + goType(t.Elem())
	case reflect.Map:
		return "map[" + goType(t.Key()) + "]" + goType(t.Elem())
	case reflect.Chan:
		switch t.ChanDir() {
		case reflect.RecvDir:
			return "<-chan " + goType(t.Elem())
		case reflect.SendDir:
			return "chan<- " + goType(t.Elem())
		}
		return "chan " + goType(t.Elem())
	}
	return t.String()
}

// typeArgs writes the type arguments of an instance of a generic cell
// type, found from the fields declared with a type parameter as their
// type ("" when there are none, "[...]" for those not found).
func typeArgs(t reflect.Type, in *info) string {
	if len(in.tparams) == 0 {
		return ""
	}
	var args []string
	for _, p := range in.tparams {
		a := "..."
		for i, d := range in.decl {
			if d == p {
				a = goType(t.Field(i).Type)
				break
			}
		}
		args = append(args, a)
	}
	return "[" + strings.Join(args, ",") + "]"
}

// elemTypes returns the Go names of the key and element types of a
// composite type name ("[]main.Money" -> "", "main.Money").
func elemTypes(typ string) (key, elem string) {
	switch {
	case typ == "":
		return "", ""
	case strings.HasPrefix(typ, "[]"):
		return "", typ[2:]
	case strings.HasPrefix(typ, "*"):
		return "", typ[1:]
	case strings.HasPrefix(typ, "["):
		if i := strings.IndexByte(typ, ']'); i > 0 {
			return "", typ[i+1:]
		}
	case strings.HasPrefix(typ, "map["):
		depth := 0
		for i := 3; i < len(typ); i++ {
			switch typ[i] {
			case '[':
				depth++
			case ']':
				depth--
				if depth == 0 {
					return typ[4:i], typ[i+1:]
				}
			}
		}
	}
	return "", ""
}

// Args prepares the arguments of a print function for fmt (see Wrap). With
// a format (Printf's), a %T of a cell value is written as %s of its Go type
// name: fmt prints %T itself, before any method of the value, so it would
// name the printer's type. Formats with explicit argument indexes or *
// widths keep their %T.
func Args(format string, args []any, reg Registry, hasFormat bool) (string, []any) {
	var out []any
	changed := false
	for _, a := range args {
		w, ok := wrap(a, reg)
		changed = changed || ok
		out = append(out, w)
	}
	if !changed {
		return format, args
	}
	if !hasFormat || !strings.Contains(format, "T") || strings.ContainsAny(format, "[*") {
		return format, out
	}
	var b strings.Builder
	arg := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		b.WriteByte(c)
		if c != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			break
		}
		b.WriteString(format[i+1 : j])
		verb := format[j]
		i = j
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		if verb == 'T' && arg < len(out) {
			if p, ok := out[arg].(*printer); ok {
				b.WriteByte('s')
				out[arg] = p.typeName()
				arg++
				continue
			}
		}
		b.WriteByte(verb)
		arg++
	}
	return b.String(), out
}
