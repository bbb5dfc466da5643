package eval

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	"github.com/traefik/yaegi/interp"
	yaegiunsafe "github.com/traefik/yaegi/stdlib/unsafe"

	"github.com/conclab/conclab/internal/proctree"
	"github.com/conclab/conclab/internal/symbols/stdlib"
	"github.com/conclab/conclab/kernel/eval/internal/genstd"
	"github.com/conclab/conclab/kernel/eval/internal/reach"
	"github.com/conclab/conclab/kernel/eval/internal/vfmt"

	"github.com/conclab/conclab/display"
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
	// OwnProcess makes the session the one whose cells the process runs:
	// an interrupt then also kills every process started while the cell
	// ran (by a token in the environment) and shuts down the listening
	// sockets the process opened meanwhile (cellscope.go). Only one
	// session in a process should set it (the kernel and the notebook
	// runner's child do).
	OwnProcess bool
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
	// goroutines are the goroutines cells started, and token the
	// session's part of its cells' CellTokenEnv (cellscope.go).
	goroutines cellGoroutines
	token      string
	ownProcess bool
	// deferred are the running cell's top-level deferred calls (celldefer.go).
	deferred  []func()
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
	s.token = proctree.NewToken()
	s.ownProcess = opts.OwnProcess
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
// streams, the input reader, the result sink, and the cell-scoped context
// and exec functions (cellscope.go).
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
			"Defer":   reflect.ValueOf(s.addDefer),
			"GoEnter": reflect.ValueOf(s.goroutines.enter),
			"GoLeave": reflect.ValueOf(s.goroutines.leave),
			"Check":   reflect.ValueOf(checkValue),
		},
	}
	if s.stdinVar != nil {
		ex["os/os"]["Stdin"] = reflect.ValueOf(&s.stdinVar).Elem()
	}
	for pkg, syms := range s.scopeOverrides() {
		ex[pkg] = syms
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
	ex[reach.FmtKey] = map[string]reflect.Value{
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
	for _, key := range []string{reach.FmtKey, "log/log"} {
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
	} else if vfmt.Wraps(v) && d.Data[display.MIMETypeText] == fmt.Sprint(v) {
		// A value holding values of cell types, which display.Render
		// printed plainly: printed as Go prints it.
		d.Data[display.MIMETypeText] = fmt.Sprint(vfmt.Wrap(v, s.printers.lookup))
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
