package eval

import (
	"fmt"

	"github.com/conclab/conclab/kernel/eval/internal/genstd"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"sort"
	"strings"
)

// typedPass is a source rewrite that needs the segment's types.
type typedPass struct {
	name string
	// limit is the interpreter limit the pass exists for.
	limit string
	// removable is the condition under which the pass could go.
	removable string
	apply     func(*typedCtx) []edit
}

// typedPasses run on every Go segment, in this order, on the source as
// written (their edits do not overlap: each replaces its own tokens and
// keeps the expressions inside them in place, so one pass's edits inside
// another's construct survive).
var typedPasses = []typedPass{
	{"stdimport", "yaegi registers a package compiled from source under its name only: imports of the interpreted " +
		"crypto/hkdf and crypto/pbkdf2 go to conclab_crypto_hkdf ...", "yaegi registers source packages by path", passStdImport},
	{"typefor", "yaegi's compiler panics on a call of a generic function without arguments (reflect.TypeFor[T]())",
		"yaegi compiles generic calls without arguments", passTypeFor},
	{"overlay", "generic functions and types of compiled packages cannot be linked into yaegi " +
		"(sync.OnceValue, errors.AsType, atomic.Pointer): they come from interpreted overlay packages",
		"yaegi links generic API of compiled packages", passOverlay},
	{"stdgeneric", "yaegi keeps one instance of a generic function or type per name and type arguments, whatever the package " +
		"(hkdf.Key[hash.Hash] and pbkdf2.Key[hash.Hash] were one): the interpreted packages' generics have names of their own, Name__pkg",
		"yaegi keys generic instances by package", passStdGeneric},
	{"instantiate", "yaegi cannot infer type arguments (slices.Sort(s) fails, slices.Sort[[]int, int](s) runs)",
		"yaegi infers type arguments", passInstantiate},
	{"builtins", "yaegi has no min, max or clear (Go 1.21)", "yaegi implements them", passBuiltins},
	{"rangeint", "yaegi cannot range over an integer (Go 1.22)", "yaegi ranges over integers", passRangeInt},
	{"rangefunc", "yaegi cannot range over a function (Go 1.23 iterators)", "yaegi ranges over functions", passRangeFunc},
	{"loopvar", "yaegi shares a loop's variables between iterations (Go before 1.22)",
		"yaegi makes loop variables per iteration", passLoopVar},
	{"selfmethod", "yaegi's interface wrappers hold, for a value of a struct type, its last field instead of the value: " +
		"every named type of a cell gets a method returning itself, which the session's wrappers call (wrappers.go)",
		"yaegi's wrappers hold the value", passSelfMethod},
	{"typenames", "yaegi gives a cell's struct types unnamed reflect types with every field exported (x becomes Xx): " +
		"fmt prints {Xx:1} and struct { Xx int }{...}, and two struct types with the same fields are one; " +
		"a tag naming the type and its fields lets the session print main.point{x:1} (printing.go)",
		"yaegi gives cell types named reflect types with their fields' names", passTypeNames},
	{"fmtargs", "reflection cannot tell a named cell type that is not a struct (type Celsius float64) from its underlying type: " +
		"print arguments of such types carry their Go type name (for %T, %#v and their methods inside composite values)",
		"yaegi gives cell types reflect types with their names and methods", passFmtArgs},
	{"recover", "yaegi's recover() returns a panic's value inside a reflect.Value (r.(error) of a recovered error failed)",
		"yaegi's recover returns the panic value", passRecover},
	{"asserterror", "yaegi's x.(error) is false for a value of a cell type implementing error held in an interface{}",
		"yaegi finds interpreted methods in type assertions", passAssertError},
	{"bounds", "yaegi indexes through reflect: an index out of range panics with reflect's words, not Go's " +
		"(runtime error: index out of range [5] with length 3)", "yaegi checks bounds as Go does", passBounds},
	{"embeddediface", "yaegi panics (\"invalid interface value\") calling a method promoted from an interface embedded in a struct",
		"yaegi promotes methods of embedded interfaces", passEmbeddedIface},
	{"methodexpr", "yaegi calls a method expression of a cell type ((*T).M, T.M) with the wrong arguments",
		"yaegi calls method expressions", passMethodExpr},
	{"funclitarg", "yaegi binds the variables of a function literal passed straight to a compiled function when it is called: " +
		"in a loop, every call saw the last iteration's (wg.Go(func() { use(i) }))",
		"yaegi makes such literals closures where they are", passFuncLitArg},
	{"selectbreak", "yaegi's labeled break from inside a select breaks only the select (a for-select loop never ended)",
		"yaegi breaks the labeled statement", passSelectBreak},
	{"genericdefine", "yaegi's compiler panics (\"nil type\") on a multi-value result of a generic function defining session variables",
		"yaegi types generic multi-value results at the top level", passGenericDefine},
}

// edit replaces src[from:to] by text (an insertion when from == to).
type edit struct {
	from, to int
	text     string
}

// applyEdits applies edits to src. Edits are applied in order of position
// (insertions at one position in the order given); an edit overlapping an
// earlier one is dropped, and reported.
func applyEdits(src string, edits []edit) (string, []edit) {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].from < edits[j].from })
	var b strings.Builder
	var dropped []edit
	at := 0
	for _, e := range edits {
		if e.from < at || e.to < e.from || e.to > len(src) {
			dropped = append(dropped, e)
			continue
		}
		b.WriteString(src[at:e.from])
		b.WriteString(e.text)
		at = e.to
	}
	b.WriteString(src[at:])
	return b.String(), dropped
}

// typedRewrite type-checks a segment in the session's context and applies
// the typed passes. It returns the rewritten source (src when nothing
// applies) and the check, for recording what the segment declared.
func (s *Session) typedRewrite(src string, decl bool) (string, *checked) {
	c := s.types.check(src, decl)
	if c == nil || c.info == nil {
		return src, c
	}
	tc := newTypedCtx(c, &s.fresh, s.segPkgName(c))
	tc.overlay = s.overlayOf
	var edits []edit
	for _, p := range typedPasses {
		edits = append(edits, p.apply(tc)...)
	}
	if len(c.errs) > 0 && traceEnabled {
		for _, e := range c.errs {
			fmt.Fprintf(os.Stderr, "[pipeline] type error: %v\n", e)
		}
	}
	if len(edits) == 0 {
		return src, c
	}
	out, dropped := applyEdits(src, edits)
	if !decl {
		// yaegi takes a source whose first token declares (var, const,
		// type, func, import) for declarations: a statement segment that a
		// rewrite made begin with var stays statements.
		if t := firstToken(out); t == token.VAR || t == token.CONST || t == token.TYPE || t == token.FUNC || t == token.IMPORT {
			out = ";" + out
		}
	}
	if traceEnabled {
		fmt.Fprintf(os.Stderr, "[pipeline] typed passes:\n%s\n[pipeline] gives:\n%s\n", src, out)
		for _, d := range dropped {
			fmt.Fprintf(os.Stderr, "[pipeline] dropped overlapping edit %+v\n", d)
		}
	}
	return out, c
}

// traceEnabled shows each segment's rewrites on the process's stderr
// (CONCLAB_PIPELINE_TRACE=1), for working on the pipeline.
var traceEnabled = os.Getenv("CONCLAB_PIPELINE_TRACE") == "1"

// segPkgName returns how the segment of c can refer to a package by path,
// as the interpreter will see it: a name the cell or an earlier one
// imported it as, the name a linked package is known by without an
// import, or an interpreted package's own name.
func (s *Session) segPkgName(c *checked) func(string) (string, bool) {
	return func(p string) (string, bool) {
		best := ""
		for n, q := range c.names {
			if q == p && !strings.HasPrefix(n, "_clq") && (best == "" || n < best) {
				best = n
			}
		}
		if best != "" {
			return best, true
		}
		for _, sp := range stdPackages {
			if sp.Path == p {
				return genstd.InterpName(sp), true
			}
		}
		return s.lib.nameOf(p)
	}
}

// overlayOf names the overlay package obj belongs to ("" when none).
func (s *Session) overlayOf(obj types.Object) string {
	o, _ := s.types.imp.OverlayOf(obj)
	return o
}

// firstToken is the first token of Go source.
func firstToken(src string) token.Token {
	fset := token.NewFileSet()
	var sc scanner.Scanner
	sc.Init(fset.AddFile("", -1, len(src)), []byte(src), nil, 0)
	_, tok, _ := sc.Scan()
	return tok
}
