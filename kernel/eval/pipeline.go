package eval

import (
	"fmt"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"sort"
	"strings"

	"github.com/conclab/conclab/kernel/eval/internal/genstd"
)

// The pipeline: every source rewrite the session applies to a cell, in
// order, each with the interpreter limit it exists for (or the feature it
// implements) and the condition under which it could go. A cell is cut into
// segments by the cell grammar (split.go); the cell passes work on the
// segments; each Go segment is type-checked (typecheck.go) and the typed
// passes edit it; the segment passes cut it into the pieces the interpreter
// compiles one at a time; the piece passes edit each piece, and when the
// interpreter rejects a piece, the piece is compiled again without the
// piece passes, last first, then as written (nothing runs twice: a piece
// runs once, in the first form that compiles). The cell's final expression
// is displayed (the value stage). Each pass has golden tests:
// testdata/passes/<name>.txt (pipeline_test.go).
//
// Set CONCLAB_PIPELINE_TRACE=1 to see each segment's rewrites and what the
// interpreter rejects on the process's stderr.

// stage is where a pass works.
type stage int

const (
	stageCell    stage = iota // on the cell's segments
	stageTyped                // on a Go segment, with its types
	stageSegment              // a Go segment into pieces
	stagePiece                // on one piece, with fallbacks
	stageValue                // on the cell's final expression
)

func (s stage) String() string {
	return [...]string{"cell", "typed", "segment", "piece", "value"}[s]
}

// pass is one source rewrite of the pipeline.
type pass struct {
	name  string
	stage stage
	// feature is true for a rewrite that implements a feature of the
	// kernel rather than working around a limit of the interpreter.
	feature bool
	// why is the interpreter limit (or the feature) the pass exists for.
	why string
	// removable is the condition under which the pass could go ("" for a
	// feature).
	removable string

	cell    func(*Session, []segment) []segment
	typed   func(*typedCtx) []edit
	segment func(*Session, []piece) []piece
	piece   func(*Session, string, bool) string
}

// pipeline is the ordered table of passes.
var pipeline = []pass{
	{name: "programmain", stage: stageCell, feature: true,
		why: "a whole program pasted into a cell (package main, func main) runs as go run runs it: main once, " +
			"after the declarations (yaegi would run a main again at every later compilation)",
		cell: func(_ *Session, segs []segment) []segment { return programMain(segs) }},
	{name: "errcheck", stage: stageCell, feature: true,
		why:  "the err idiom: a top-level statement assigning err stops the cell with the error when it is not nil (errcheck.go)",
		cell: func(_ *Session, segs []segment) []segment { return instrumentErr(segs) }},
	{name: "stdimport", stage: stageTyped,
		why: "yaegi registers a package compiled from source under its name only: imports of the interpreted " +
			"crypto/hkdf and crypto/pbkdf2 go to conclab_crypto_hkdf ...",
		removable: "yaegi registers source packages by path", typed: passStdImport},
	{name: "typefor", stage: stageTyped,
		why:       "yaegi's compiler panics on a call of a generic function without arguments (reflect.TypeFor[T]())",
		removable: "yaegi compiles generic calls without arguments", typed: passTypeFor},
	{name: "overlay", stage: stageTyped,
		why: "generic functions and types of compiled packages cannot be linked into yaegi " +
			"(sync.OnceValue, errors.AsType, atomic.Pointer): they come from interpreted overlay packages",
		removable: "yaegi links generic API of compiled packages", typed: passOverlay},
	{name: "stdgeneric", stage: stageTyped,
		why: "yaegi keeps one instance of a generic function or type per name and type arguments, whatever the package " +
			"(hkdf.Key[hash.Hash] and pbkdf2.Key[hash.Hash] were one): the interpreted packages' generics have names of their own, Name__pkg",
		removable: "yaegi keys generic instances by package", typed: passStdGeneric},
	{name: "instantiate", stage: stageTyped,
		why:       "yaegi cannot infer type arguments (slices.Sort(s) fails, slices.Sort[[]int, int](s) runs)",
		removable: "yaegi infers type arguments", typed: passInstantiate},
	{name: "builtins", stage: stageTyped,
		why:       "yaegi has no min, max or clear (Go 1.21)",
		removable: "yaegi implements them", typed: passBuiltins},
	{name: "rangeint", stage: stageTyped,
		why:       "yaegi cannot range over an integer (Go 1.22)",
		removable: "yaegi ranges over integers", typed: passRangeInt},
	{name: "rangefunc", stage: stageTyped,
		why:       "yaegi cannot range over a function (Go 1.23 iterators)",
		removable: "yaegi ranges over functions", typed: passRangeFunc},
	{name: "loopvar", stage: stageTyped,
		why:       "yaegi shares a loop's variables between iterations (Go before 1.22)",
		removable: "yaegi makes loop variables per iteration", typed: passLoopVar},
	{name: "selfmethod", stage: stageTyped,
		why: "yaegi's interface wrappers hold, for a value of a struct type, its last field instead of the value: " +
			"every named type of a cell gets a method returning itself, which the session's wrappers call (wrappers.go)",
		removable: "yaegi's wrappers hold the value", typed: passSelfMethod},
	{name: "typenames", stage: stageTyped,
		why: "yaegi gives a cell's struct types unnamed reflect types with every field exported (x becomes Xx): " +
			"fmt prints {Xx:1} and struct { Xx int }{...}, and two struct types with the same fields are one; " +
			"a tag naming the type and its fields lets the session print main.point{x:1} (printing.go)",
		removable: "yaegi gives cell types named reflect types with their fields' names", typed: passTypeNames},
	{name: "fmtargs", stage: stageTyped,
		why: "reflection cannot tell a named cell type that is not a struct (type Celsius float64) from its underlying type: " +
			"print arguments of such types carry their Go type name (for %T, %#v and their methods inside composite values)",
		removable: "yaegi gives cell types reflect types with their names and methods", typed: passFmtArgs},
	{name: "recover", stage: stageTyped,
		why:       "yaegi's recover() returns a panic's value inside a reflect.Value (r.(error) of a recovered error failed)",
		removable: "yaegi's recover returns the panic value", typed: passRecover},
	{name: "asserterror", stage: stageTyped,
		why: "yaegi's x.(error) is false for a value of a cell type implementing error held in an interface{}, and a " +
			"comma-ok assertion of nil to an interface panics",
		removable: "yaegi finds interpreted methods in type assertions", typed: passAssertError},
	{name: "typeswitch", stage: stageTyped,
		why: "yaegi's type switch matches no interface case for a value of a compiled type (errors.New(\"e\") is no error " +
			"there), a comma-ok assertion of nil to an interface panics, and `switch v := x.(type)` at the top level " +
			"crashes its compiler: such switches become chains of nil-safe assertions (typeswitch.go)",
		removable: "yaegi's type switches match interface cases", typed: passTypeSwitch},
	{name: "spreadvar", stage: stageTyped,
		why: "yaegi converts a package's slice variable spread into a variadic call (f(pkg.V...)) to the element " +
			"type and fails: it is sliced (pkg.V[:]...) (typeswitch.go)",
		removable: "yaegi spreads package variables", typed: passSpreadVar},
	{name: "paramnames", stage: stageTyped,
		why: "yaegi mixes up the arguments of a function with unnamed parameters that uses a captured value " +
			"(func(int, string) string { return srv.Addr }): they are named _ (typeswitch.go)",
		removable: "yaegi binds unnamed parameters", typed: passParamNames},
	{name: "bounds", stage: stageTyped,
		why: "yaegi indexes through reflect: an index out of range panics with reflect's words, not Go's " +
			"(runtime error: index out of range [5] with length 3)",
		removable: "yaegi checks bounds as Go does", typed: passBounds},
	{name: "embeddediface", stage: stageTyped,
		why:       "yaegi panics (\"invalid interface value\") calling a method promoted from an interface embedded in a struct",
		removable: "yaegi promotes methods of embedded interfaces", typed: passEmbeddedIface},
	{name: "methodexpr", stage: stageTyped,
		why:       "yaegi calls a method expression of a cell type ((*T).M, T.M) with the wrong arguments",
		removable: "yaegi calls method expressions", typed: passMethodExpr},
	{name: "selectbreak", stage: stageTyped,
		why:       "yaegi's labeled break from inside a select breaks only the select (a for-select loop never ended)",
		removable: "yaegi breaks the labeled statement", typed: passSelectBreak},
	{name: "genericdefine", stage: stageTyped,
		why:       "yaegi's compiler panics (\"nil type\") on a multi-value result of a generic function defining session variables",
		removable: "yaegi types generic multi-value results at the top level", typed: passGenericDefine},
	{name: "imports", stage: stageSegment,
		why: "yaegi rejects a second import of a package under the same name (re-running a cell): imports already " +
			"in place are dropped, and a name bound to another package is unbound first (imports.go)",
		removable: "yaegi takes repeated imports", segment: (*Session).passImports},
	{name: "commaok", stage: stageSegment,
		why: "yaegi cannot compile a comma-ok that defines session variables at the top level (\"nil type\"), nor " +
			"`v, err := f()` in a block of a top-level statement (\"undefined: v\"), and runs a top-level call of a " +
			"function literal again with every later cell: such statements become functions declared and called (commaok.go)",
		removable: "yaegi compiles top-level comma-ok definitions and block-level multi-value definitions, and runs a literal's call once",
		segment:   (*Session).passCommaOk},
	{name: "typesfirst", stage: stageSegment,
		why: "yaegi instantiates a generic function or type with a type declared in the same source wrongly " +
			"(weak.Make[blob] in a program declaring blob): types and constants are compiled before functions",
		removable: "yaegi instantiates with types of the same source", segment: (*Session).passTypesFirst},
	{name: "tupleassign", stage: stagePiece,
		why: "yaegi assigns only the call's target in a tuple assignment with a call (a, b = 1, f()): " +
			"calls are hoisted into temporaries (tupleassign.go)",
		removable: "yaegi assigns every operand of a tuple assignment", piece: func(_ *Session, src string, decl bool) string { return rewriteTupleAssign(src, decl) }},
	{name: "gorecover", stage: stagePiece, feature: true,
		why: "a panic in a goroutine a cell started is recovered and reported (the kernel keeps running), and fails the cell while it runs (gorecover.go)",
		piece: func(s *Session, src string, decl bool) string {
			return guardGoroutines(src, decl, s.isPackageName, s.isConst)
		}},
	{name: "celldefer", stage: stagePiece, feature: true,
		why: "a defer at the top level of a cell runs when the cell ends, as a defer in main when main returns " +
			"(yaegi runs each piece as a function of its own: `defer cancel()` would run at once) (celldefer.go)",
		piece: func(s *Session, src string, decl bool) string {
			return deferAtCellEnd(src, decl, s.isPackageName, s.isConst)
		}},
	closurePass("closures", closureValues,
		"yaegi writes a closure back into the frame that made it at every call: a loop making closures raced with "+
			"the goroutines running them (another iteration's or a zero variable, a nil func in wg.Go), and a function "+
			"deferring a closure it made hung; each literal used as a value is made in a frame of its own (closures.go)",
		"yaegi's closures leave the frame that made them alone"),
	closurePass("golit", closureGo,
		"the same write-back raced in `go func() {...}()` in a loop (a closure ran twice: a negative WaitGroup counter), "+
			"and yaegi reads a go call's function when the goroutine starts: a literal a go statement starts is called "+
			"from a closure made in a frame of its own, with its arguments copied first (closures.go)",
		"yaegi's closures leave the frame that made them alone"),
	closurePass("deferloop", closureDefer,
		"yaegi reads a deferred call's function and arguments when it runs, from places a loop reuses "+
			"(defer f(i), defer func() { use(i) }() saw the last i): in a loop, a deferred call is a closure of its "+
			"iteration's values; a deferred literal in parentheses, which hung, loses them (closures.go)",
		"yaegi evaluates a deferred call's function and arguments at the defer statement"),
	{name: "lastvalue", stage: stageValue, feature: true,
		why: "a cell's final expression is displayed: rendered by its methods (display.Formats), a final (value, error) " +
			"shows the value or fails with the error (run.go, displayForms)"},
}

// closurePass is one of the three piece passes of wrapClosures.
func closurePass(name string, what closureRewrite, why, removable string) pass {
	return pass{name: name, stage: stagePiece, why: why, removable: removable,
		piece: func(s *Session, src string, decl bool) string {
			return wrapClosures(src, decl, what, s.isPackageName, s.isConst)
		}}
}

// passesOf returns the passes of a stage, in order.
func passesOf(st stage) []pass {
	var out []pass
	for _, p := range pipeline {
		if p.stage == st {
			out = append(out, p)
		}
	}
	return out
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

// piece is a part of a Go segment compiled on its own: statements, or
// (decl) declarations. line is its first line's offset in the segment.
type piece struct {
	src  string
	decl bool
	line int
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
	for _, p := range passesOf(stageTyped) {
		edits = append(edits, p.typed(tc)...)
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
