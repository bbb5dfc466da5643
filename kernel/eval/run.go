package eval

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/traefik/yaegi/interp"

	"github.com/conclab/conclab/kernel/eval/internal/reach"

	"github.com/conclab/conclab/kernel/cell"
)

// Eval runs one cell. It returns the value of the cell's final expression
// statement, or an error: *Error for failures of the cell's code (compile
// error, panic, failed shell line), ctx.Err() when ctx was cancelled (the
// cell is then interrupted), or an error of the session itself. Output the
// cell wrote has been forwarded when Eval returns.
func (s *Session) Eval(ctx context.Context, code string) (Result, error) {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return Result{}, errors.New("eval: session closed")
	}
	cctx, cancel := context.WithCancel(s.rootCtx)
	s.cellCtx = cctx
	s.stop = newStopState()
	s.cellSeq++
	s.goPanic = ""
	s.mu.Unlock()
	s.budget.reset()
	restoreCell := cell.Set(cctx)
	defer restoreCell()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()

	var res Result
	var err error
	id := labelled(ctx, func() { res, err = s.evalCellSafe(ctx, code) })
	if ctx.Err() != nil {
		// Interrupted: let the interpreter goroutine stop before returning.
		s.afterStop(settle(id, 700*time.Millisecond))
	}
	s.flush()
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	if err == nil {
		// A goroutine of this cell panicked (recovered by its guard) before
		// the cell ended: the cell failed, as the program would have.
		s.mu.Lock()
		msg := s.goPanic
		s.mu.Unlock()
		if msg != "" {
			return Result{}, &Error{Name: "panic", Value: "in a goroutine the cell started: " + msg,
				Traceback: []string{"panic in a goroutine the cell started: " + msg}}
		}
	}
	return res, err
}

func (s *Session) flush() {
	_ = s.out.sync(3 * time.Second)
	_ = s.errf.sync(3 * time.Second)
}

// evalCellSafe is evalCell with a panic of the session's own code (a bug
// in a rewrite, say) turned into the cell's error: the caller gets an
// *Error, never a panic. A name nothing declares is still named.
func (s *Session) evalCellSafe(ctx context.Context, code string) (res Result, err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		res = Result{}
		for _, seg := range splitCell(code) {
			if seg.kind != segShell && seg.kind != segCd {
				if u := undefinedNames(seg.src, s.isDefined, s.lib.importName); len(u) > 0 {
					err = undefinedError(u, seg.src, seg.line)
					return
				}
			}
		}
		msg := fmt.Sprint(r)
		err = &Error{Name: "InternalError", Value: "the session failed on this cell: " + msg + " (a conclab bug: please report it with the cell)",
			Traceback: []string{"InternalError: the session failed on this cell: " + msg}}
	}()
	return s.evalCell(ctx, code)
}

func (s *Session) evalCell(ctx context.Context, code string) (Result, error) {
	s.code = code
	for _, seg := range instrumentErr(programMain(splitCell(code))) {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		switch seg.kind {
		case segShell:
			if err := s.shell(ctx, seg); err != nil {
				return Result{}, err
			}
		case segCd:
			if err := s.cd(seg); err != nil {
				return Result{}, err
			}
		default:
			if seg.expr {
				return s.evalExpr(ctx, seg)
			}
			if err := s.runGuarded(ctx, seg); err != nil {
				return Result{}, err
			}
			s.remember(seg)
		}
	}
	return Result{}, nil
}

// runGuarded runs a segment with its goroutines guarded against panics (see
// guardGoroutines), or as written when the guarded form does not compile.
func (s *Session) runGuarded(ctx context.Context, seg segment) error {
	decl := seg.kind == segDecl
	orig := seg.src
	var c *checked
	seg.src, c = s.typedRewrite(seg.src, decl)
	err := s.runRewritten(ctx, seg, orig)
	if err == nil {
		s.types.record(c, orig, decl)
		if decl {
			s.registerPrinting(c, orig)
		}
	}
	return err
}

// registerPrinting registers the printing methods of the types a
// declaration segment declares or declares methods of (see printing.go).
func (s *Session) registerPrinting(c *checked, src string) {
	var names []string
	for _, n := range declNames(src) {
		if t, _, isMethod := strings.Cut(n, "."); isMethod {
			names = append(names, t)
		} else {
			names = append(names, n)
		}
	}
	reg := registrations(c, dedupe(names))
	if reg == "" {
		return
	}
	if _, err := s.in.Eval(reg); err != nil && traceEnabled {
		fmt.Fprintf(os.Stderr, "[pipeline] registering printing methods: %v\n%s\n", err, reg)
	}
}

func (s *Session) runRewritten(ctx context.Context, seg segment, orig string) error {
	if seg.kind == segDecl {
		for _, t := range typeNames(seg.src) {
			s.mu.Lock()
			kind := s.known[t]
			s.mu.Unlock()
			if kind == "type" {
				forgetType(s.in, t)
			}
		}
	}
	var pieces []piece
	if seg.kind == segDecl {
		src := dedupeImports(seg.src, reach.Of(s.in), s.lib.importName)
		if strings.TrimSpace(src) == "" {
			return nil
		}
		pieces = declCommaOk(src, s.chanElem)
		if len(pieces) == 1 && pieces[0].decl {
			for _, part := range typesFirst(src) {
				if err := s.runPiece(ctx, part, true, seg.line); err != nil {
					return err
				}
			}
			return nil
		}
	} else {
		pieces = rewriteCommaOk(seg.src, s.chanElem)
	}
	if len(pieces) == 1 {
		// One piece: the original is the last fallback.
		return s.runPiece(ctx, pieces[0].src, false, seg.line, seg.src, orig)
	}
	for _, p := range pieces {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := s.runPiece(ctx, p.src, p.decl, seg.line+p.line); err != nil {
			return err
		}
	}
	return nil
}

// runPiece runs src (a declaration when decl) with its goroutines guarded
// and ranges over integers rewritten, falling back to src as written and
// then to fallbacks when the interpreter cannot compile a rewritten form.
func (s *Session) runPiece(ctx context.Context, src string, decl bool, line int, fallbacks ...string) error {
	r := rewriteRangeInt(rewriteTupleAssign(src, decl), decl, s.globalKind, s.intFunc)
	alts := append([]string{guardGoroutines(r, decl, s.isPackageName, s.isConst), r, src}, fallbacks...)
	_, err := s.run(ctx, line, dedupe(alts)...)
	return err
}

// dedupe drops repeated strings, keeping the first of each.
func dedupe(ss []string) []string {
	var out []string
	for _, x := range ss {
		if len(out) == 0 || !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// chanElem returns the element type of the session's channel variable
// name, as source, when the type can be written (see rewriteCommaOk).
func (s *Session) chanElem(name string) (string, bool) {
	if !token.IsIdentifier(name) {
		return "", false
	}
	v, ok := s.in.Globals()[name]
	if !ok || !v.IsValid() || v.Kind() != reflect.Chan {
		return "", false
	}
	t := v.Type().Elem().String()
	// A type the interpreter made for a cell-declared type has no
	// writable name.
	if strings.Contains(t, "main.") || strings.Contains(t, "struct {") || strings.Contains(t, "interface {") {
		return "", false
	}
	if _, err := parser.ParseExpr(t); err != nil {
		return "", false
	}
	return t, true
}

// isConst reports whether name is a constant declared by a cell.
func (s *Session) isConst(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.known[name] == "const"
}

// isPackageName reports whether name stands for a package in cells: one a
// cell imported, or a linked package by its base name, unless a session
// variable has that name.
func (s *Session) isPackageName(name string) bool {
	if _, isVar := s.in.Globals()[name]; isVar {
		return false
	}
	_, ok := s.resolvePackage(name)
	return ok
}

// globalKind returns the kind of the session variable name.
func (s *Session) globalKind(name string) (reflect.Kind, bool) {
	v, ok := s.in.Globals()[name]
	if !ok || !v.IsValid() {
		return reflect.Invalid, false
	}
	return v.Kind(), true
}

// intFunc reports whether pkg.name is a linked-in function returning one int.
func (s *Session) intFunc(pkg, name string) bool {
	p, ok := s.resolvePackage(pkg)
	if !ok || s.isVar(pkg) {
		return false
	}
	v, ok := s.lib.exports(p)[name]
	return ok && v.Kind() == reflect.Func && v.Type().NumOut() == 1 && v.Type().Out(0).Kind() == reflect.Int
}

// evalExpr evaluates the cell's final expression and renders its value.
func (s *Session) evalExpr(ctx context.Context, seg segment) (Result, error) {
	// The result types of a call of a linked-in package's function, or of
	// a method of a session variable of a linked-in type, are known
	// without running anything. (Other calls are tried wrapped; a
	// multi-value call then fails to compile and runs plainly.)
	seg.src, _ = s.typedRewrite(seg.src, false)
	results, known := s.callResults(seg.src)
	single := !known || len(results) == 1
	if decl, call, ok := hoistFuncLitCall(seg.src, 0); ok {
		// A function literal called at the top level: declared, then
		// called (see isFuncLitCall).
		if err := s.runPiece(ctx, decl, true, seg.line); err != nil {
			return Result{}, err
		}
		seg.src = call
	}
	// A final (value, error) or error: a non-nil error fails the cell as
	// a failed check does (see errcheck.go), else the value is the result.
	alts := []string{"_conclabShow(" + seg.src + ")", "_conclabShowPair(" + seg.src + ")", seg.src}
	switch {
	case known && len(results) == 1 && results[0] == errorType:
		alts = []string{"_conclabShowErr(" + seg.src + ")", seg.src}
	case known && len(results) == 2 && results[1] == errorType && isCount(seg.src, results[0]):
		// fmt.Println's (n int, err error): the count is not the result.
		alts = []string{"_conclabCheckPair(" + seg.src + ")", seg.src}
	case known && len(results) == 2 && results[1] == errorType:
		alts = []string{"_conclabShowPair(" + seg.src + ")", seg.src}
	case !single:
		_, err := s.run(ctx, seg.line, seg.src)
		return Result{}, err
	}
	s.mu.Lock()
	s.sink = sinkValue{}
	s.mu.Unlock()
	// Not a single value or (value, error) (a type, a multi-value call
	// ...): the wrapped forms do not compile and the expression runs as is.
	if _, err := s.run(ctx, seg.line, alts...); err != nil {
		return Result{}, err
	}
	s.mu.Lock()
	sk := s.sink
	s.sink = sinkValue{}
	s.mu.Unlock()
	if !sk.used || isNil(sk.v) {
		return Result{}, nil
	}
	return Result{Value: sk.v, HasValue: true, Data: sk.d}, nil
}

var errorType = reflect.TypeFor[error]()

// isCount reports whether the call src returns a byte or item count of
// type t beside its error, as fmt.Print*, Write* and io.Copy* do.
func isCount(src string, t reflect.Type) bool {
	if t.Kind() != reflect.Int && t.Kind() != reflect.Int64 {
		return false
	}
	fun, _ := callFun(src)
	name := fun[strings.LastIndexByte(fun, '.')+1:]
	for _, p := range []string{"Print", "Fprint", "Sprint", "Write", "Copy", "Read", "Scan", "Fscan", "Sscan"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// callResults returns the result types of src when it is a call of a
// linked-in package's function (pkg.F(...)) or of a method of a session
// variable holding a value of a compiled type (v.M(...)).
func (s *Session) callResults(src string) ([]reflect.Type, bool) {
	fun, isCall := callFun(src)
	if !isCall || strings.Count(fun, ".") != 1 {
		return nil, false
	}
	pkg, name, _ := strings.Cut(fun, ".")
	var f reflect.Value
	if g, ok := s.in.Globals()[pkg]; ok {
		if !g.IsValid() || !token.IsExported(name) || strings.Contains(g.Type().String(), "main.") {
			return nil, false
		}
		f = g.MethodByName(name)
	} else if p, ok := s.resolvePackage(pkg); ok {
		f = s.lib.exports(p)[name]
	}
	if !f.IsValid() || f.Kind() != reflect.Func {
		return nil, false
	}
	t := f.Type()
	out := make([]reflect.Type, t.NumOut())
	for i := range out {
		out[i] = t.Out(i)
	}
	return out, true
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface, reflect.Chan:
		return rv.IsNil()
	}
	return false
}

// run compiles the first of srcs that the interpreter accepts and executes
// it once; each src's first line is cell line `line`. Later sources are the
// fallbacks of earlier ones (e.g. the original of a rewritten segment): a
// source that fails to compile, or whose compilation panics inside the
// interpreter, is never executed, so nothing runs twice. The compile error
// reported is the last source's.
func (s *Session) run(ctx context.Context, line int, srcs ...string) (reflect.Value, error) {
	s.diag.take()
	var prog *interp.Program
	var err error
	var src string
	for _, src = range srcs {
		// Leading newlines keep yaegi's statement wrapper off the first
		// line, so reported lines and columns are the cell's.
		if prog, err = s.compile(strings.Repeat("\n", line) + src); err == nil {
			break
		}
		if traceEnabled {
			fmt.Fprintf(os.Stderr, "[pipeline] the interpreter rejects:\n%s\n[pipeline] with: %v\n", src, err)
		}
	}
	if err != nil {
		// A name nothing declares is reported as Go does, whatever the
		// interpreter made of it (see undefined.go).
		if u := undefinedNames(src, s.isDefined, s.lib.importName); len(u) > 0 {
			s.diag.take()
			return reflect.Value{}, undefinedError(u, src, line)
		}
		return reflect.Value{}, s.mapError(err, src, line)
	}
	v, err := s.execute(ctx, prog)
	if err == nil {
		return v, nil
	}
	if ctx.Err() != nil {
		return v, ctx.Err()
	}
	return v, s.mapError(err, src, line)
}

// compile compiles src; a panic of the interpreter's compiler (it has some
// on constructs it lacks) is returned as a compile error. A failed
// compilation leaves the main scope as it found it (see
// scopeSnapshot.restore).
func (s *Session) compile(src string) (prog *interp.Program, err error) {
	snap, snapped := reach.Of(s.in).Snapshot()
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, &compilePanic{v: r}
		}
		if err != nil && snapped {
			snap.Restore()
		}
	}()
	return s.in.Compile(src)
}

// isVar reports whether name is a variable of the session (shadowing a
// package name).
func (s *Session) isVar(name string) bool {
	_, ok := s.in.Globals()[name]
	return ok
}

// remember records names declared and packages imported by a segment, for
// completion and inspection.
func (s *Session) remember(seg segment) {
	d := declaredAll(seg.src)
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, k := range d.names {
		s.known[n] = k
	}
	for n, p := range d.imports {
		s.imports[n] = p
	}
	for v, t := range d.varTypes {
		s.varTypes[v] = t
	}
	for t, ms := range d.methods {
		s.methods[t] = append(s.methods[t], ms...)
	}
}
