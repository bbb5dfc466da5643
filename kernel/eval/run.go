package eval

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
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
	seq := s.cellSeq
	s.goPanic = ""
	s.mu.Unlock()
	s.budget.reset()
	var sockets sockets
	if s.ownProcess {
		sockets = openSockets()
		_ = os.Setenv(CellTokenEnv, s.cellToken(seq))
	}
	restoreCell := cell.Set(cctx)
	defer restoreCell()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	context.AfterFunc(cctx, func() { s.goroutines.interrupt(seq) })

	var res Result
	var err error
	id := labelled(ctx, func() { res, err = s.evalCellSafe(ctx, code) })
	if ctx.Err() != nil {
		// Interrupted: let the interpreter goroutine stop before returning,
		// and free the ports the cell listens on (cellscope.go).
		s.afterStop(settle(id, 700*time.Millisecond))
		if s.ownProcess {
			shutDownNewListeners(sockets)
			s.killCellProcesses(seq)
		}
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
			if seg.kind != segShell && seg.kind != segMagic {
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

func (s *Session) evalCell(ctx context.Context, code string) (res Result, err error) {
	s.code = code
	defer func() {
		// The cell's top-level deferred calls (celldefer.go): not after an
		// interrupt, as a stopped program runs none.
		if derr := s.runDeferred(ctx.Err() == nil); derr != nil && err == nil {
			res, err = Result{}, derr
		}
	}()
	for _, seg := range instrumentErr(programMain(splitCell(code))) {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		switch seg.kind {
		case segShell:
			if err := s.shell(ctx, seg); err != nil {
				return Result{}, err
			}
		case segMagic:
			if err := s.magic(seg); err != nil {
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

// runRewritten runs a typed-rewritten Go segment through the segment and
// piece passes; orig is the segment as written (the last fallback of a
// segment that stays one piece).
func (s *Session) runRewritten(ctx context.Context, seg segment, orig string) error {
	decl := seg.kind == segDecl
	if decl {
		// A type declared again: yaegi would keep the first (redefine.go).
		for _, t := range typeNames(seg.src) {
			s.mu.Lock()
			kind := s.known[t]
			s.mu.Unlock()
			if kind == "type" {
				forgetType(s.in, t)
			}
		}
	}
	pieces := []piece{{src: seg.src, decl: decl}}
	for _, p := range passesOf(stageSegment) {
		pieces = p.segment(s, pieces)
	}
	for _, p := range pieces {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var fallbacks []string
		if len(pieces) == 1 && !p.decl {
			fallbacks = []string{seg.src, orig}
		}
		if err := s.runPiece(ctx, p.src, p.decl, seg.line+p.line, fallbacks...); err != nil {
			return err
		}
	}
	return nil
}

// runPiece runs src (declarations when decl) through the piece passes: the
// first of these forms that compiles runs, once: src with every piece pass,
// without the last, ..., src as it came, then the fallbacks.
func (s *Session) runPiece(ctx context.Context, src string, decl bool, line int, fallbacks ...string) error {
	passes := passesOf(stagePiece)
	forms := []string{src}
	cur := src
	for _, p := range passes {
		cur = p.piece(s, cur, decl)
		forms = append(forms, cur)
	}
	slices.Reverse(forms)
	_, err := s.run(ctx, line, dedupe(append(forms, fallbacks...))...)
	return err
}

// passImports drops the imports already in place from declaration pieces
// (see dedupeImports); a piece left empty is dropped.
func (s *Session) passImports(pieces []piece) []piece {
	var out []piece
	for _, p := range pieces {
		if p.decl {
			p.src = dedupeImports(p.src, reach.Of(s.in), s.lib.importName)
			if strings.TrimSpace(p.src) == "" {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// passCommaOk cuts the top-level comma-ok forms yaegi cannot compile into
// pieces of their own (see rewriteCommaOk, declCommaOk).
func (s *Session) passCommaOk(pieces []piece) []piece {
	var out []piece
	for _, p := range pieces {
		var sub []piece
		if p.decl {
			sub = declCommaOk(p.src, s.chanElem)
		} else {
			sub = rewriteCommaOk(p.src, s.chanElem)
		}
		for _, q := range sub {
			q.line += p.line
			out = append(out, q)
		}
	}
	return out
}

// passTypesFirst cuts declaration pieces that declare types and functions
// in two (see typesFirst).
func (s *Session) passTypesFirst(pieces []piece) []piece {
	var out []piece
	for _, p := range pieces {
		if !p.decl {
			out = append(out, p)
			continue
		}
		for _, part := range typesFirst(p.src) {
			out = append(out, piece{src: part, decl: true, line: p.line})
		}
	}
	return out
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

// evalExpr evaluates the cell's final expression and renders its value
// (the lastvalue feature).
func (s *Session) evalExpr(ctx context.Context, seg segment) (Result, error) {
	var c *checked
	seg.src, c = s.typedRewrite(seg.src, false)
	if decl, call, ok := hoistFuncLitCall(seg.src, 0); ok {
		// A function literal called at the top level: declared, then
		// called (see isFuncLitCall).
		if err := s.runPiece(ctx, decl, true, seg.line); err != nil {
			return Result{}, err
		}
		seg.src = call
	}
	tv, typed := exprType(c)
	if !typed {
		// The checker could not type it: the result types of a call of a
		// linked package's function, or of a method of a session variable
		// of a compiled type, are known from reflection; other forms are
		// tried wrapped (a multi-value call then fails to compile and
		// runs plainly).
		tv, typed = s.reflectedType(seg.src)
	}
	_, compiledCall := s.callResults(seg.src)
	forms := displayForms(seg.src, tv, typed, compiledCall)
	if len(forms) == 1 {
		_, err := s.run(ctx, seg.line, forms...)
		return Result{}, err
	}
	s.mu.Lock()
	s.sink = sinkValue{}
	s.mu.Unlock()
	if _, err := s.run(ctx, seg.line, forms...); err != nil {
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

// exprType is the type of the final expression c checked.
func exprType(c *checked) (types.TypeAndValue, bool) {
	if c == nil || c.info == nil || c.body == nil || len(c.body.List) != 1 || len(c.errs) > 0 {
		return types.TypeAndValue{}, false
	}
	es, ok := c.body.List[0].(*ast.ExprStmt)
	if !ok {
		return types.TypeAndValue{}, false
	}
	tv, ok := c.info.Types[es.X]
	return tv, ok && (tv.Type != nil || tv.IsVoid())
}

// reflectedType is the type of src when it calls a compiled function or a
// method of a session variable of a compiled type (see callResults).
func (s *Session) reflectedType(src string) (types.TypeAndValue, bool) {
	results, known := s.callResults(src)
	if !known {
		return types.TypeAndValue{}, false
	}
	var vars []*types.Var
	for _, r := range results {
		var t types.Type = types.Typ[types.Invalid]
		if r == errorType {
			t = types.Universe.Lookup("error").Type()
		}
		vars = append(vars, types.NewVar(token.NoPos, nil, "", t))
	}
	switch len(vars) {
	case 0:
		return types.TypeAndValue{Type: types.NewTuple()}, true
	case 1:
		return types.TypeAndValue{Type: vars[0].Type()}, true
	}
	return types.TypeAndValue{Type: types.NewTuple(vars...)}, true
}

// displayForms returns the forms the final expression src is compiled in
// (the first that compiles runs, once): a value is shown
// (_conclabShow), a final (value, error) shows the value or fails with the
// error as a failed check does (see errcheck.go), a final call of a
// compiled function returning an error (os.Chdir(dir)) fails when it is not
// nil (another error value is shown), and a print's (n, err) shows nothing.
// An expression with no value, a type or several values runs as it is.
func displayForms(src string, tv types.TypeAndValue, typed, compiledCall bool) []string {
	errT := types.Universe.Lookup("error").Type()
	if !typed {
		return []string{"_conclabShow(" + src + ")", "_conclabShowPair(" + src + ")", src}
	}
	switch t := tv.Type.(type) {
	case nil:
		return []string{src}
	case *types.Tuple:
		if t.Len() == 2 && types.Identical(t.At(1).Type(), errT) {
			if isPrintCall(src) {
				return []string{"_conclabCheckPair(" + src + ")", src}
			}
			return []string{"_conclabShowPair(" + src + ")", src}
		}
		return []string{src}
	}
	if tv.IsType() || tv.IsVoid() {
		return []string{src}
	}
	if types.Identical(tv.Type, errT) && compiledCall {
		return []string{"_conclabShowErr(" + src + ")", src}
	}
	return []string{"_conclabShow(" + src + ")", src}
}

// isPrintCall reports whether src calls a function returning a byte or
// item count beside its error, as fmt.Print*, Write* and io.Copy* do.
func isPrintCall(src string) bool {
	fun, _ := callFun(src)
	name := fun[strings.LastIndexByte(fun, '.')+1:]
	for _, p := range []string{"Print", "Fprint", "Sprint", "Write", "Copy", "Read", "Scan", "Fscan", "Sscan"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

var errorType = reflect.TypeFor[error]()

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
