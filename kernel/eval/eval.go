// Package eval runs Go code cell by cell in one in-process interpreter
// session (github.com/traefik/yaegi), the engine behind conclab's Jupyter
// kernel and headless notebook runner. It knows nothing of Jupyter, nor of
// the lab.
//
// State persists across cells: variables, functions, types, imports and
// goroutines. The standard library is linked in; the packages besides it
// (the lab's, imaging, go-echarts) come from Options.Symbols, which the
// command fills from internal/symbols. Both are importable without a
// compiler. When display is among them it is imported in every session and
// a gophernotes-compatible `Display(display.Data) error` function is defined,
// so gophernotes notebooks run unchanged. Lines starting with `$` run a shell
// command; `%cd DIR` changes the working directory.
//
// A cell's output (fmt.Print*, os.Stdout, os.Stderr, log) is forwarded to
// Options.Stdout and Options.Stderr as it is produced, coalesced, and at most
// MaxStreamBytes per cell (the rest is dropped with one notice). Eval returns
// only after everything the cell wrote has been forwarded.
//
// Re-running cells is safe: an import already in place is a no-op, and
// constructs the interpreter cannot take at the top level of a cell
// (comma-ok definitions, calls of function literals) are rewritten into
// forms it takes. A `$ cmd` line runs in a process group of its own, killed
// on interrupt and by Close.
//
// Cancelling the context passed to Eval interrupts the cell: time.Sleep
// returns and cell.Context() (package kernel/cell) is cancelled so that lab
// code started from the cell stops; a cell still running 250 ms later
// (interpreted loops, channel waits) is stopped by the interpreter (see
// interrupt.go for what that does to other goroutines). Eval then returns
// promptly with ctx's error and the session stays usable.
//
// A cell that does not compile declares nothing, and a name it uses that
// nothing declares is reported as "undefined: x" at its first use.
//
// The error idiom: a top-level statement assigning to err (x, err := f())
// is followed by a check, and a cell's final (value, error) shows the value
// or fails; a non-nil error fails the cell with an *Error named by the
// error's type, with no Go stack (see errcheck.go).
package eval

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/traefik/yaegi/interp"
	yaegiunsafe "github.com/traefik/yaegi/stdlib/unsafe"

	"github.com/conclab/conclab/internal/symbols/stdlib"
	"github.com/conclab/conclab/kernel/eval/internal/genstd"
	"github.com/conclab/conclab/kernel/eval/internal/vfmt"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
)

// Options configure a Session. The zero value discards output.
type Options struct {
	// Stdout and Stderr receive the cells' output as it is produced. They are
	// written from one goroutine each, and not after Close returns.
	Stdout, Stderr io.Writer
	// Dir is the session's working directory ("" keeps the current one). The
	// process working directory is changed to it (interpreted code resolves
	// relative paths against the process's), and restored by Close.
	Dir string

	// Input, when set, is called for a line of input when a cell reads
	// os.Stdin or calls fmt.Scan*, e.g. to send a Jupyter input_request.
	// os.Stdin is then an io.Reader in cells. When nil, cells read the
	// process's standard input.
	Input func(prompt string, password bool) (string, error)
	// CaptureProcessOutput also redirects the process-wide os.Stdout,
	// os.Stderr and the standard logger to the cell streams while the session
	// is open, so compiled packages that print are captured too. Only one
	// session in a process should set it (the kernel does).
	CaptureProcessOutput bool
	// Symbols are the packages linked in besides the standard library (the
	// command passes its tables; see Symbols). Without display among them,
	// cells have no display package and no Display function, and a final
	// value is rendered by its methods but not by a Render() display.Data.
	Symbols Symbols
}

// Result is the value of a cell's final expression statement.
type Result struct {
	// Value is the value (nil when HasValue is false).
	Value any
	// HasValue is true when the cell ended with an expression of one
	// non-nil value.
	HasValue bool
	// Data is the value rendered as a MIME bundle, by its methods (HTML()
	// string, Render() display.Data, image.Image ...) including methods of
	// types declared in cells, which display.Render(Value) cannot see; a
	// value with no such method is rendered as text/plain.
	Data display.Data
}

// Error is a cell failure: a compile error, a panic or a failed shell line.
// Retrieve it with errors.As.
type Error struct {
	// Name is the error class: "CompileError", "panic", "ShellError",
	// "Interrupted".
	Name string
	// Value is the message.
	Value string
	// Line is the 1-based cell line the error points at (0 when unknown).
	Line int
	// Traceback is a human-readable trace, one entry per line.
	Traceback []string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: cell line %d: %s", e.Name, e.Line, e.Value)
	}
	return e.Name + ": " + e.Value
}

// Session is one interpreter session. Eval calls are serialised; Complete and
// Inspect may be called concurrently with Eval. The caller must call Close.
type Session struct {
	opts      Options
	in        *interp.Interpreter
	out, errf *forwarder
	budget    *budget
	diag      *lockedBuffer
	evalMu    sync.Mutex
	mu        sync.Mutex // guards fields below
	closed    bool
	dir       string
	origDir   string
	restores  []func()
	cellCtx   context.Context
	stop      *stopState // the interrupt state of cellCtx's cell
	cellSeq   uint64     // counts Eval calls; goroutines remember theirs
	goPanic   string     // first goroutine panic of cell cellSeq
	sink      sinkValue
	known     map[string]string   // identifiers declared by cells -> kind
	imports   map[string]string   // package name -> import path, imported by cells
	varTypes  map[string]string   // variable -> cell-declared type name, when evident
	methods   map[string][]string // cell-declared type -> its methods
	rootCtx   context.Context
	rootStop  context.CancelFunc
	stdoutVar *os.File
	stderrVar *os.File
	stdinVar  io.Reader
	stdin     io.Reader      // what fmt.Scan* read
	args      []string       // os.Args in cells
	flags     *flag.FlagSet  // flag.CommandLine in cells
	groups    map[int]bool   // process groups of `$ cmd` lines that may be running
	code      string         // the cell being evaluated (guarded by evalMu)
	printers  methodRegistry // printing methods of cell types (vfmt)
	lib       *linked        // the packages linked in
	types     *typeState     // the type checker's context (guarded by evalMu)
	fresh     int            // counter of names the passes make (guarded by evalMu)
}

type sinkValue struct {
	v    any
	d    display.Data
	used bool
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 1<<16 {
		l.b.Write(p)
	}
	return len(p), nil
}

func (l *lockedBuffer) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	l.b.Reset()
	return s
}

const sinkPath = "github.com/conclab/conclab/kernel/eval/internal/sink"

const displayPath = "github.com/conclab/conclab/display"

// preludeDisplay is the part of the prelude for a session that links the
// display package: Display (gophernotes' name) and rendering by a Render()
// display.Data method. display is not imported here: ImportUsed makes it
// (like every linked package) available by name, and a cell may still
// import it explicitly.
const preludeDisplay = `func Display(d display.Data) error { return display.Display(d) }

type _conclabRenderer interface{ Render() display.Data }

func _conclabRender(v interface{}, m map[string]interface{}) (meta map[string]interface{}) {
	defer func() { recover() }()
	switch x := v.(type) {
	case _conclabRenderer:
		d := x.Render()
		for k, y := range d.Data {
			m[k] = y
		}
		meta = d.Metadata
	}
	return meta
}
`

// preludeNoDisplay stands for preludeDisplay without the display package.
const preludeNoDisplay = `func _conclabRender(v interface{}, m map[string]interface{}) map[string]interface{} { return nil }
`

// prelude is evaluated when a session starts, after preludeDisplay or
// preludeNoDisplay.
const prelude = `import _conclabsink "` + sinkPath + `"
import _conclabfmt "fmt"
import _conclabos "os"

func _conclabCell() uint64 { return _conclabsink.Cell() }

func _conclabCheck(v interface{}, line int) { _conclabsink.Check(v, line) }

func _conclabShowPair(v interface{}, err error) {
	_conclabCheck(err, 0)
	_conclabShow(v)
}

func _conclabShowErr(err error) { _conclabCheck(err, 0) }

func _conclabCheckPair(v interface{}, err error) { _conclabCheck(err, 0) }

func _conclabAsError(v interface{}) (error, bool) {
	if e, ok := v.(error); ok {
		return e, true
	}
	return _conclabsink.AsError(v)
}

func _conclabMustError(v interface{}) error {
	if e, ok := _conclabAsError(v); ok {
		return e
	}
	panic(_conclabsink.NotError(v))
}

func _conclabGoPanic(cell uint64, r interface{}) {
	_conclabfmt.Fprintf(_conclabos.Stderr, "panic in goroutine (recovered by conclab): %v\n", r)
	_conclabsink.GoPanic(cell, _conclabfmt.Sprint(r))
}

type _conclabSimple interface{ SimpleRender() map[string]interface{} }
type _conclabHTML interface{ HTML() string }
type _conclabMarkdown interface{ Markdown() string }
type _conclabSVG interface{ SVG() string }
type _conclabLatex interface{ Latex() string }
type _conclabJS interface{ JavaScript() string }
type _conclabPNG interface{ PNG() []byte }
type _conclabJPEG interface{ JPEG() []byte }
type _conclabJSON interface{ JSON() map[string]interface{} }
type _conclabStringer interface{ String() string }

func _conclabTry(f func()) {
	defer func() { recover() }()
	f()
}

func _conclabShow(v interface{}) {
	m := map[string]interface{}{}
	meta := _conclabRender(v, m)
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabSimple:
		for k, y := range x.SimpleRender() {
			m[k] = y
		}
	}
	})
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabHTML:
		m["text/html"] = x.HTML()
	}
	})
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabMarkdown:
		m["text/markdown"] = x.Markdown()
	}
	})
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabSVG:
		m["image/svg+xml"] = x.SVG()
	}
	})
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabLatex:
		m["text/latex"] = x.Latex()
	}
	})
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabJS:
		m["application/javascript"] = x.JavaScript()
	}
	})
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabPNG:
		m["image/png"] = x.PNG()
	}
	})
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabJPEG:
		m["image/jpeg"] = x.JPEG()
	}
	})
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabJSON:
		m["application/json"] = x.JSON()
	}
	})
	text := ""
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabStringer:
		text = x.String()
	}
	})
	_conclabsink.Set(v, m, meta, text)
}
`

// New starts a session. The caller must call Close.
func New(opts Options) (*Session, error) {
	s := &Session{opts: opts, known: map[string]string{}, imports: map[string]string{},
		varTypes: map[string]string{}, methods: map[string][]string{}}
	var err error
	if s.origDir, err = os.Getwd(); err != nil {
		return nil, fmt.Errorf("eval: working directory: %w", err)
	}
	s.dir = s.origDir
	if opts.Dir != "" {
		abs, err := filepath.Abs(opts.Dir)
		if err != nil {
			return nil, fmt.Errorf("eval: dir %q: %w", opts.Dir, err)
		}
		if err := os.Chdir(abs); err != nil {
			return nil, fmt.Errorf("eval: dir: %w", err)
		}
		s.dir = abs
	}
	s.budget = &budget{max: MaxStreamBytes}
	if s.out, err = newForwarder(opts.Stdout, s.budget); err != nil {
		return nil, fmt.Errorf("eval: stdout pipe: %w", err)
	}
	if s.errf, err = newForwarder(opts.Stderr, s.budget); err != nil {
		s.out.close()
		return nil, fmt.Errorf("eval: stderr pipe: %w", err)
	}
	s.budget.notice = func() { s.errf.co.write([]byte(truncationNotice())) }
	s.diag = &lockedBuffer{}
	s.rootCtx, s.rootStop = context.WithCancel(context.Background())
	s.cellCtx = s.rootCtx
	s.stop = newStopState()
	s.stdoutVar, s.stderrVar = s.out.w, s.errf.w

	var stdin io.Reader = os.Stdin
	if opts.Input != nil {
		// fmt.Scan* read the interpreter's stdin; os.Stdin is overridden below.
		s.stdinVar = &lineReader{input: opts.Input}
		stdin = s.stdinVar
	}
	s.stdin = stdin
	s.in = interp.New(interp.Options{
		Stdout:       s.out.w,
		Stderr:       s.diag,
		Stdin:        stdin,
		Unrestricted: true,
		Env:          os.Environ(),
		Args:         []string{"conclab"},
	})
	s.lib = newLinked(opts.Symbols)
	overrides := s.overrides()
	uses := []interp.Exports{stdTables(), yaegiunsafe.Symbols, genstd.RTSymbols()}
	if opts.Symbols.Packages != nil {
		uses = append(uses, opts.Symbols.Packages)
	}
	uses = append(uses, overrides, s.mapTypes(overrides))
	for _, u := range uses {
		if err := s.in.Use(u); err != nil {
			s.Close()
			return nil, fmt.Errorf("eval: loading symbols: %w", err)
		}
	}
	if err := s.in.Use(interp.Exports{".": {"MapTypes": reflect.ValueOf(composedWrappers(s.in))}}); err != nil {
		s.Close()
		return nil, fmt.Errorf("eval: loading symbols: %w", err)
	}
	s.in.ImportUsed()
	if err := s.loadStdSources(); err != nil {
		s.Close()
		return nil, fmt.Errorf("eval: %w", err)
	}
	tables := []map[string]map[string]reflect.Value{stdlib.Symbols, genstd.RTSymbols()}
	if opts.Symbols.Packages != nil {
		tables = append(tables, opts.Symbols.Packages)
	}
	tables = append(tables, map[string]map[string]reflect.Value{sinkPath + "/sink": overrides[sinkPath+"/sink"]})
	s.types = newTypeState(newImporter(tables...), s.resolvePackage)
	first := preludeNoDisplay
	if s.lib.has(displayPath) {
		first = preludeDisplay
		s.imports["display"] = displayPath
	}
	for _, src := range []string{first, prelude} {
		if _, err := s.in.Eval(src); err != nil {
			s.Close()
			return nil, fmt.Errorf("eval: prelude: %w", err)
		}
	}
	if opts.CaptureProcessOutput {
		s.captureProcess()
	}
	return s, nil
}

// overrides are the symbols the session replaces: cell-aware time.Sleep,
// streams, the input reader, and the result sink.
func (s *Session) overrides() interp.Exports {
	logger := log.New(s.stderrVar, "", log.LstdFlags)
	ex := interp.Exports{
		"time/time": {"Sleep": reflect.ValueOf(s.sleep)},
		"os/os": {
			"Stdout": reflect.ValueOf(&s.stdoutVar).Elem(),
			"Stderr": reflect.ValueOf(&s.stderrVar).Elem(),
			// A cell must not end the kernel's process.
			"Exit": reflect.ValueOf(func(code int) {
				panic(fmt.Sprintf("os.Exit(%d) called in a cell: the session keeps running (restart the kernel to start afresh)", code))
			}),
		},
		"log/log": {
			"Fatal":   reflect.ValueOf(func(v ...any) { logFatal(logger, fmt.Sprint(v...)) }),
			"Fatalf":  reflect.ValueOf(func(f string, v ...any) { logFatal(logger, fmt.Sprintf(f, v...)) }),
			"Fatalln": reflect.ValueOf(func(v ...any) { logFatal(logger, fmt.Sprintln(v...)) }),
			"Panic":   reflect.ValueOf(logger.Panic), "Panicf": reflect.ValueOf(logger.Panicf), "Panicln": reflect.ValueOf(logger.Panicln),
			"Print": reflect.ValueOf(logger.Print), "Printf": reflect.ValueOf(logger.Printf), "Println": reflect.ValueOf(logger.Println),
			"Flags": reflect.ValueOf(logger.Flags), "SetFlags": reflect.ValueOf(logger.SetFlags),
			"Output": reflect.ValueOf(logger.Output), "Prefix": reflect.ValueOf(logger.Prefix),
			"SetOutput": reflect.ValueOf(logger.SetOutput), "SetPrefix": reflect.ValueOf(logger.SetPrefix),
			"Writer": reflect.ValueOf(logger.Writer), "Default": reflect.ValueOf(func() *log.Logger { return logger }),
		},
		sinkPath + "/sink": {
			"Set":     reflect.ValueOf(s.setSink),
			"Cell":    reflect.ValueOf(s.currentCell),
			"GoPanic": reflect.ValueOf(s.recordGoPanic),
			"Check":   reflect.ValueOf(checkValue),
		},
	}
	if s.stdinVar != nil {
		ex["os/os"]["Stdin"] = reflect.ValueOf(&s.stdinVar).Elem()
	}
	// fmt's printing goes to the cell's stream and its scanning reads the
	// session's input, os.Args is the interpreter's, and a flag error
	// panics rather than exiting (yaegi does this itself only for tables
	// under "fmt/fmt", see stdTables).
	out := s.out.w
	pa := func(a []any) []any { _, a = vfmt.Args("", a, s.printers.lookup, false); return a }
	pf := func(f string, a []any) (string, []any) { return vfmt.Args(f, a, s.printers.lookup, true) }
	// Errorf keeps its error arguments as they are (%w wraps them).
	pe := func(f string, a []any) (string, []any) {
		var keep []int
		for i, x := range a {
			if _, isErr := x.(error); isErr {
				keep = append(keep, i)
			}
		}
		orig := append([]any(nil), a...)
		f, a = vfmt.Args(f, a, s.printers.lookup, true)
		for _, i := range keep {
			a[i] = orig[i]
		}
		return f, a
	}
	ex[fmtKey] = map[string]reflect.Value{
		"Print":    reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprint(out, pa(a)...) }),
		"Printf":   reflect.ValueOf(func(f string, a ...any) (int, error) { f, a = pf(f, a); return fmt.Fprintf(out, f, a...) }),
		"Println":  reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fprintln(out, pa(a)...) }),
		"Sprint":   reflect.ValueOf(func(a ...any) string { return fmt.Sprint(pa(a)...) }),
		"Sprintf":  reflect.ValueOf(func(f string, a ...any) string { f, a = pf(f, a); return fmt.Sprintf(f, a...) }),
		"Sprintln": reflect.ValueOf(func(a ...any) string { return fmt.Sprintln(pa(a)...) }),
		"Fprint":   reflect.ValueOf(func(w io.Writer, a ...any) (int, error) { return fmt.Fprint(w, pa(a)...) }),
		"Fprintf": reflect.ValueOf(func(w io.Writer, f string, a ...any) (int, error) {
			f, a = pf(f, a)
			return fmt.Fprintf(w, f, a...)
		}),
		"Fprintln": reflect.ValueOf(func(w io.Writer, a ...any) (int, error) { return fmt.Fprintln(w, pa(a)...) }),
		"Errorf":   reflect.ValueOf(func(f string, a ...any) error { f, a = pe(f, a); return fmt.Errorf(f, a...) }),
		"Append":   reflect.ValueOf(func(b []byte, a ...any) []byte { return fmt.Append(b, pa(a)...) }),
		"Appendf":  reflect.ValueOf(func(b []byte, f string, a ...any) []byte { f, a = pf(f, a); return fmt.Appendf(b, f, a...) }),
		"Appendln": reflect.ValueOf(func(b []byte, a ...any) []byte { return fmt.Appendln(b, pa(a)...) }),
		"Scan":     reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fscan(s.stdin, a...) }),
		"Scanf":    reflect.ValueOf(func(f string, a ...any) (int, error) { return fmt.Fscanf(s.stdin, f, a...) }),
		"Scanln":   reflect.ValueOf(func(a ...any) (int, error) { return fmt.Fscanln(s.stdin, a...) }),
	}
	lg := ex["log/log"]
	lg["Print"] = reflect.ValueOf(func(v ...any) { logger.Print(pa(v)...) })
	lg["Printf"] = reflect.ValueOf(func(f string, v ...any) { f, v = pf(f, v); logger.Printf(f, v...) })
	lg["Println"] = reflect.ValueOf(func(v ...any) { logger.Println(pa(v)...) })
	lg["Fatal"] = reflect.ValueOf(func(v ...any) { logFatal(logger, fmt.Sprint(pa(v)...)) })
	lg["Fatalf"] = reflect.ValueOf(func(f string, v ...any) { f, v = pf(f, v); logFatal(logger, fmt.Sprintf(f, v...)) })
	lg["Fatalln"] = reflect.ValueOf(func(v ...any) { logFatal(logger, fmt.Sprintln(pa(v)...)) })
	lg["Panic"] = reflect.ValueOf(func(v ...any) { logger.Panic(pa(v)...) })
	lg["Panicf"] = reflect.ValueOf(func(f string, v ...any) { f, v = pf(f, v); logger.Panicf(f, v...) })
	lg["Panicln"] = reflect.ValueOf(func(v ...any) { logger.Panicln(pa(v)...) })
	ex["encoding/json/json"] = map[string]reflect.Value{"Unmarshal": reflect.ValueOf(jsonUnmarshal),
		"Marshal": reflect.ValueOf(jsonMarshal), "MarshalIndent": reflect.ValueOf(jsonMarshalIndent)}
	ex[sinkPath+"/sink"]["Named"] = reflect.ValueOf(func(v any, t string) any { return vfmt.Named{V: v, Type: t} })
	ex[sinkPath+"/sink"]["Method"] = reflect.ValueOf(s.printers.set)
	ex[sinkPath+"/sink"]["Into"] = reflect.ValueOf(into)
	ex[sinkPath+"/sink"]["Unbox"] = reflect.ValueOf(unbox)
	ex[sinkPath+"/sink"]["Index"] = reflect.ValueOf(checkIndex)
	ex[sinkPath+"/sink"]["Slice"] = reflect.ValueOf(checkSlice)
	ex[sinkPath+"/sink"]["AsError"] = reflect.ValueOf(s.asError)
	ex[sinkPath+"/sink"]["NotError"] = reflect.ValueOf(notError)
	s.args = []string{"conclab"}
	ex["os/os"]["Args"] = reflect.ValueOf(&s.args).Elem()
	fs := flag.NewFlagSet(s.args[0], flag.PanicOnError)
	fs.SetOutput(s.errf.w)
	s.flags = fs
	ex["flag/flag"] = map[string]reflect.Value{"CommandLine": reflect.ValueOf(&s.flags).Elem()}
	return ex
}

// mapTypes is the MapTypes table (see stdlib.MapTypes) with the session's
// replacements of fmt's and log's printing functions added.
func (s *Session) mapTypes(overrides interp.Exports) interp.Exports {
	mt := make(map[reflect.Value][]reflect.Type, len(stdlib.MapTypes)+16)
	for k, v := range stdlib.MapTypes {
		mt[k] = v
	}
	for _, key := range []string{fmtKey, "log/log"} {
		for name, v := range overrides[key] {
			if !strings.Contains(name, "Scan") && name != "Default" && !strings.HasPrefix(name, "Set") && name != "Flags" &&
				name != "Prefix" && name != "Writer" && name != "Output" {
				mt[v] = stdlib.Printing
			}
		}
	}
	mt[overrides[sinkPath+"/sink"]["Named"]] = stdlib.Printing
	mt[overrides["encoding/json/json"]["Unmarshal"]] = stdlib.MapTypes[reflect.ValueOf(json.Unmarshal)]
	mt[overrides["encoding/json/json"]["Marshal"]] = stdlib.MapTypes[reflect.ValueOf(json.Marshal)]
	mt[overrides["encoding/json/json"]["MarshalIndent"]] = stdlib.MapTypes[reflect.ValueOf(json.MarshalIndent)]
	return interp.Exports{".": {"MapTypes": reflect.ValueOf(mt)}}
}

// fatalLog is the panic of log.Fatal* in a cell: the message is logged, and
// the cell fails with error name "log.Fatal" instead of ending the process.
type fatalLog struct{ msg string }

func (f fatalLog) Error() string { return f.msg }

func logFatal(l *log.Logger, msg string) {
	_ = l.Output(3, msg)
	panic(fatalLog{strings.TrimSuffix(msg, "\n")})
}

func (s *Session) setSink(v any, m, meta display.MIMEMap, text string) {
	v = unwrap(v)
	d, _ := display.Render(v)
	if d.Data == nil {
		d.Data = display.MIMEMap{}
	}
	for k, x := range m {
		if k != display.MIMETypeText || d.Data[k] == nil {
			d.Data[k] = x
		}
	}
	for k, x := range meta {
		if d.Metadata == nil {
			d.Metadata = display.MIMEMap{}
		}
		d.Metadata[k] = x
	}
	if text != "" {
		d.Data[display.MIMETypeText] = text
	} else if vfmt.Wraps(v) {
		w := vfmt.Wrap(v, s.printers.lookup)
		// A value of a cell type: printed as Go prints it.
		d.Data[display.MIMETypeText] = fmt.Sprint(w)
	}
	s.mu.Lock()
	s.sink = sinkValue{v: v, d: d, used: true}
	s.mu.Unlock()
}

// currentCell is the sequence number of the cell running now.
func (s *Session) currentCell() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cellSeq
}

// recordGoPanic keeps the first panic of a goroutine started by the cell
// still running; one from an earlier cell was only reported on stderr.
func (s *Session) recordGoPanic(cell uint64, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cell == s.cellSeq && s.goPanic == "" {
		s.goPanic = msg
	}
}

func (s *Session) captureProcess() {
	oldOut, oldErr, oldLog := os.Stdout, os.Stderr, log.Writer()
	os.Stdout, os.Stderr = s.out.w, s.errf.w
	log.SetOutput(s.errf.w)
	s.restores = append(s.restores, func() {
		os.Stdout, os.Stderr = oldOut, oldErr
		log.SetOutput(oldLog)
	})
}

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
		src := dedupeImports(seg.src, interpScope{s.in}, s.lib.importName)
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

var posRE = regexp.MustCompile(`^(?:[^\s:]*\.go:)?(\d+):(\d+): `)

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
	snap, snapped := interpScope{s.in}.snapshot()
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, &compilePanic{v: r}
		}
		if err != nil && snapped {
			snap.restore()
		}
	}()
	return s.in.Compile(src)
}

// compilePanic is a panic of yaegi's compiler.
type compilePanic struct{ v any }

func (c *compilePanic) Error() string {
	if e, ok := c.v.(error); ok {
		return e.Error()
	}
	return fmt.Sprint(c.v)
}

func (s *Session) mapError(err error, src string, line int) error {
	var p interp.Panic
	if errors.As(err, &p) {
		if f, ok := asCellFailure(p.Value); ok {
			// A failed error check (see errcheck.go).
			s.diag.take()
			at := f.line
			if at == 0 {
				at = line
			}
			return failureError(f.err, at, s.code)
		}
		p.Value = unbox(p.Value)
		e := &Error{Name: "panic", Value: fmt.Sprint(p.Value)}
		var errValue error
		if rv, ok := p.Value.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
			if pe, ok := rv.Interface().(error); ok {
				errValue = pe
			}
		}
		if pe, ok := p.Value.(error); ok {
			e.Value = pe.Error()
			errValue = pe
		}
		if fl, ok := p.Value.(fatalLog); ok {
			e.Name = "log.Fatal"
			e.Value = fl.msg
		}
		if h := limitHint(e.Value); h != "" {
			// yaegi's compiler on a construct it lacks.
			e.Name = "CompileError"
			e.Value += h
		}
		// yaegi reports the position of each frame the panic unwinds on
		// its stderr, innermost first (see panicLine).
		var inner int
		e.Line, inner = panicLine(s.diag.take(), src, line)
		e.Traceback = append(e.Traceback, "panic: "+e.Value)
		if n := panicErrorName(errValue); n != "" && e.Name == "panic" {
			// panic(err): named by the error's type, as a failed check is.
			e.Name = n
			e.Traceback[0] = "panic: " + e.Name + ": " + e.Value
		}
		if e.Line > 0 {
			e.Traceback = append(e.Traceback, fmt.Sprintf("  at cell line %d: %s", e.Line, srcLine(src, e.Line-line)))
			if inner > 0 {
				e.Traceback = append(e.Traceback, fmt.Sprintf("  raised in a function called there (line %d of the cell that declared it)", inner))
			}
		}
		return e
	}
	var list scanner.ErrorList
	msgs := []string{err.Error()}
	if errors.As(err, &list) && len(list) > 0 {
		msgs = msgs[:0]
		for _, x := range list {
			msgs = append(msgs, x.Error())
		}
	}
	e := &Error{Name: "CompileError"}
	for i, m := range msgs {
		text := m
		ln := 0
		if sm := posRE.FindStringSubmatch(m); sm != nil {
			ln, _ = strconv.Atoi(sm[1])
			ln-- // the leading newline added by run
			text = m[len(sm[0]):]
			col, _ := strconv.Atoi(sm[2])
			_ = col
		}
		if text == "constant definition loop" {
			// yaegi's report for a name used before it is defined.
			text += " (is a name undefined or misspelled?)"
		}
		text += limitHint(text)
		if i == 0 {
			e.Value, e.Line = text, ln
		}
		if ln > 0 {
			e.Traceback = append(e.Traceback, fmt.Sprintf("cell line %d: %s", ln, text))
			if l := srcLine(src, ln-line); l != "" {
				e.Traceback = append(e.Traceback, "    "+l)
			}
		} else {
			e.Traceback = append(e.Traceback, text)
		}
	}
	return e
}

// limitHint names the interpreter limit behind one of yaegi's internal
// compiler failures and the way around it ("" for other messages). The
// limits are listed in docs/kernel.md, "Known limits".
func limitHint(msg string) string {
	msg = strings.TrimPrefix(msg, "CFG post-order panic: ")
	switch {
	case strings.HasSuffix(msg, "nil type"), strings.HasSuffix(msg, "nil reflect type"):
		return " (a limit of the interpreter, yaegi: its compiler cannot type this construct. " +
			"Known causes: range over an integer whose type it cannot see (write for i := 0; i < n; i++); " +
			"a generic function's multi-value result, or a comma-ok receive from a channel of a cell-declared type, " +
			"assigned with := at the top level of a cell (declare the variables first: var v T; var ok bool; v, ok = ..., " +
			"or do it inside a func). See Known limits in docs/kernel.md)"
	}
	return ""
}

// srcLine returns line i (0-based) of src, trimmed.
func srcLine(src string, i int) string {
	lines := strings.Split(src, "\n")
	if i < 0 || i >= len(lines) {
		return ""
	}
	l := strings.TrimSpace(checkRE.ReplaceAllString(lines[i], ""))
	if strings.HasPrefix(l, "_conclabShow(") && strings.HasSuffix(l, ")") {
		l = l[len("_conclabShow(") : len(l)-1]
	}
	return l
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

func (s *Session) shell(ctx context.Context, seg segment) error {
	if seg.src == "" {
		return nil
	}
	// The shell leads a process group of its own: an interrupt, a timeout
	// (ctx) or Close kills the whole group, so no process a cell started
	// outlives it (a plain kill would end only /bin/sh and leave its
	// children running, reparented to init).
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", seg.src)
	cmd.Dir = s.workDir()
	cmd.Stdout = s.out.w
	cmd.Stderr = s.errf.w
	cmd.WaitDelay = time.Second
	startInGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	err := cmd.Start()
	if err == nil {
		s.addGroup(cmd.Process.Pid)
		err = cmd.Wait()
		if ctx.Err() != nil {
			_ = killGroup(cmd.Process.Pid)
		}
		s.pruneGroups()
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &Error{Name: "ShellError", Value: fmt.Sprintf("$ %s: %v", seg.src, err), Line: seg.line,
			Traceback: []string{fmt.Sprintf("cell line %d: $ %s: %v", seg.line, seg.src, err)}}
	}
	return nil
}

func (s *Session) addGroup(pgid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groups == nil {
		s.groups = map[int]bool{}
	}
	s.groups[pgid] = true
}

// pruneGroups forgets the groups with no process left.
func (s *Session) pruneGroups() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for g := range s.groups {
		if !groupAlive(g) {
			delete(s.groups, g)
		}
	}
}

// killGroups kills what is left of the `$ cmd` process groups (background
// jobs of a shell line).
func (s *Session) killGroups() {
	s.mu.Lock()
	gs := s.groups
	s.groups = nil
	s.mu.Unlock()
	for g := range gs {
		_ = killGroup(g)
	}
}

func (s *Session) cd(seg segment) error {
	dir := seg.src
	if dir == "" || dir == "~" {
		dir, _ = os.UserHomeDir()
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(s.workDir(), dir)
	}
	if err := os.Chdir(dir); err != nil {
		return &Error{Name: "CdError", Value: err.Error(), Line: seg.line,
			Traceback: []string{fmt.Sprintf("cell line %d: %%cd: %v", seg.line, err)}}
	}
	s.mu.Lock()
	s.dir = dir
	s.mu.Unlock()
	fmt.Fprintln(s.out.w, dir)
	return nil
}

func (s *Session) workDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

// Dir returns the session's working directory.
func (s *Session) Dir() string { return s.workDir() }

// Close stops the session: running cells and goroutines waiting on
// cell.Context() are cancelled, the process groups of `$ cmd` lines still
// running are killed, output is flushed, process-wide redirections
// and the working directory are restored. Safe to call twice.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	if s.rootStop != nil {
		s.rootStop()
	}
	restores := s.restores
	s.restores = nil
	s.mu.Unlock()
	s.killGroups()
	for i := len(restores) - 1; i >= 0; i-- {
		restores[i]()
	}
	if s.out != nil {
		s.out.close()
	}
	if s.errf != nil {
		s.errf.close()
	}
	if s.opts.Dir != "" {
		_ = os.Chdir(s.origDir)
	}
	return nil
}
