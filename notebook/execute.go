package notebook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cellout"
	"github.com/conclab/conclab/kernel/eval"
)

// DefaultTimeout is the per-cell time limit when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Minute

// abandonAfter is how long Execute waits for a cell to stop after its
// timeout or interrupt before giving the session up.
const abandonAfter = 15 * time.Second

// Kernel identity written into notebooks that declare none (the conclab
// kernel's kernelspec; see package kernel).
const (
	KernelName        = "conclab"
	KernelDisplayName = "Go (conclab)"
)

// Options configure Execute. The zero value runs with DefaultTimeout, stops
// at the first failing cell and reports no progress.
type Options struct {
	// Name names the notebook in errors and progress lines (usually its path).
	Name string
	// Dir is the working directory cells run in (usually the notebook's
	// directory); "" keeps the current one. It is process-wide while the
	// notebook runs (see eval.Options.Dir).
	Dir string
	// Timeout bounds each cell's run time; 0 means DefaultTimeout. A cell
	// that exceeds it is interrupted and fails with a *CellError whose
	// Timeout is true.
	Timeout time.Duration
	// AllowErrors keeps executing after a failing cell (its error is
	// recorded as an error output); Execute then returns nil unless the run
	// itself could not continue (the context ended, a cell could not be
	// stopped).
	AllowErrors bool
	// Progress, when set, receives one line per executed code cell, and
	// the live progress of cells that update a display (see LiveProgress).
	Progress io.Writer
	// Terminal tells that Progress is a terminal: a cell's live progress
	// line rewrites itself in place instead of one line per update.
	Terminal bool

	// Symbols are the packages linked into the interpreter besides the
	// standard library (see eval.Symbols); the command passes its tables.
	// For ExecuteIsolated they are the child's: see ChildMain.
	Symbols eval.Symbols
	// NewPage, when set, is called before the notebook's first cell in the
	// process that runs the cells: the place to reset per-page state of the
	// linked packages (conclab passes charts.ResetPage, so the notebook's
	// first chart output carries the chart library). For ExecuteIsolated it
	// is the child's: see ChildMain.
	NewPage func()
	// Metadata, when set, is called after the notebook's cells ran (also
	// when one failed), in the process that ran them; the entries it
	// returns are set in the notebook's metadata (conclab passes the
	// widgets' state, which nbclient saves as "widgets"). For
	// ExecuteIsolated it is the child's: see ChildMain.
	Metadata func() map[string]any
}

// CellError is the failure of one cell. Execute returns it (wrapped or not)
// when a cell fails; the error output is also recorded in the cell.
type CellError struct {
	// Notebook is Options.Name.
	Notebook string
	// Cell is the 1-based index of the cell in the notebook; ID its id.
	Cell int
	ID   string
	// Timeout is true when the cell ran out of time.
	Timeout bool
	// Err is the cause: an *eval.Error for failures of the cell's code.
	Err error
}

func (e *CellError) Error() string {
	name := e.Notebook
	if name == "" {
		name = "notebook"
	}
	return fmt.Sprintf("%s: cell %d (id %s): %v", name, e.Cell, e.ID, e.Err)
}

func (e *CellError) Unwrap() error { return e.Err }

// execMu serialises Execute: a session changes the process's working
// directory and captures its standard streams.
var execMu sync.Mutex

// Execute runs nb's code cells in order in a fresh interpreter session and
// replaces their outputs and execution counts with the new ones (cells not
// reached keep none). Empty code cells are skipped. It fails with an error
// naming the notebook when nb declares a language other than Go, and with a
// *CellError for the first failing cell unless opts.AllowErrors. When ctx
// ends, the running cell is interrupted and Execute returns ctx's error.
//
// The session runs in this process: a fatal error of the Go runtime in a
// cell (stack overflow, out of memory, concurrent map writes) ends the
// process. ExecuteIsolated runs the session in a child process instead.
//
// Only one Execute runs at a time in a process; concurrent calls wait.
func Execute(ctx context.Context, nb *Notebook, opts Options) error {
	return execute(ctx, nb, opts, nil)
}

// prepare checks nb's language and clears its outputs; it returns the
// notebook's name and the cell timeout, with their defaults.
func prepare(nb *Notebook, opts Options) (name string, timeout time.Duration, err error) {
	name = opts.Name
	if name == "" {
		name = "notebook"
	}
	if err := nb.CheckLanguage(); err != nil {
		return name, 0, fmt.Errorf("%s: %w", name, err)
	}
	timeout = opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	resetOutputs(nb)
	return name, timeout, nil
}

// execute is Execute, reporting its progress to w when w is not nil (the
// child side of ExecuteIsolated).
func execute(ctx context.Context, nb *Notebook, opts Options, w *childWriter) (err error) {
	name, timeout, err := prepare(nb, opts)
	if err != nil {
		return err
	}

	execMu.Lock()
	defer execMu.Unlock()
	if opts.NewPage != nil {
		opts.NewPage()
	}

	rec := &recorder{displays: map[string][]*Output{}}
	var live *livePrinter
	switch {
	case w != nil:
		rec.live = w.live
	case opts.Progress != nil:
		live = newLivePrinter(opts.Progress, name, opts.Terminal)
		rec.live = live.update
	}
	sess, err := eval.New(eval.Options{
		Stdout: rec.stream("stdout"), Stderr: rec.stream("stderr"), Dir: opts.Dir,
		CaptureProcessOutput: true,
		OwnProcess:           true,
		Symbols:              opts.Symbols,
		Input: func(string, bool) (string, error) {
			return "", errors.New("no input available: the notebook runs headless")
		},
	})
	if err != nil {
		return fmt.Errorf("%s: starting the interpreter: %w", name, err)
	}
	defer sess.Close()
	restore := display.SetPublisher(rec)
	defer restore()
	if w != nil {
		// Runs before the session closes: the result is final, and the
		// parent may stop what the cells left running.
		defer func() { w.done(nb, rec, err) }()
		stop := w.watch(rec)
		defer stop()
	}
	if opts.Metadata != nil {
		defer func() { setMetadata(nb, opts.Metadata()) }() // before w.done sends the notebook
	}

	codeCells := countCodeCells(nb)
	count, failed := 0, 0
	for i, c := range nb.Cells {
		if c.Type != CellCode || strings.TrimSpace(c.Source) == "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s: stopped before cell %d: %w", name, i+1, err)
		}
		count++
		n := count
		c.ExecutionCount = &n
		w.start(i+1, n)
		rec.begin(c, i+1)
		start := time.Now()
		cerr, fatal := runCell(ctx, sess, rec, c, n, timeout)
		rec.end()
		w.cell(rec, i+1)
		elapsed := time.Since(start)
		live.end()
		if opts.Progress != nil {
			fmt.Fprintln(opts.Progress, progressLine(name, count, codeCells, i+1, c, cerr, elapsed))
		}
		if cerr == nil {
			continue
		}
		ce := &CellError{Notebook: name, Cell: i + 1, ID: c.ID, Err: cerr}
		ce.Timeout = errors.Is(cerr, context.DeadlineExceeded) && ctx.Err() == nil
		if fatal || ctx.Err() != nil || !opts.AllowErrors {
			return ce
		}
		failed++
	}
	if failed > 0 && opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "%s: %d cell(s) failed (errors allowed)\n", name, failed)
	}
	return nil
}

// resetOutputs clears every code cell's outputs and execution count and
// records Go as the notebook's language.
func resetOutputs(nb *Notebook) {
	for _, c := range nb.Cells {
		if c.Type == CellCode {
			c.Outputs, c.ExecutionCount = nil, nil
		}
	}
	setGoMetadata(nb)
}

// countCodeCells counts the cells Execute runs (non-empty code cells).
func countCodeCells(nb *Notebook) int {
	n := 0
	for _, c := range nb.Cells {
		if c.Type == CellCode && strings.TrimSpace(c.Source) != "" {
			n++
		}
	}
	return n
}

// progressLine is the progress line of one executed cell: the count-th of
// total code cells, cell number i, failed when cerr is not nil.
func progressLine(name string, count, total, i int, c *Cell, cerr error, elapsed time.Duration) string {
	status := "ok"
	if cerr != nil {
		status = "FAILED: " + oneLine(cerr.Error())
	}
	return fmt.Sprintf("%s [%d/%d] cell %d %s: %s (%s)", name, count, total, i,
		strconv.Quote(firstLine(c.Source)), status, elapsed.Round(time.Millisecond))
}

// runCell evaluates one cell and records its result or error. fatal reports
// that the session cannot be used any more.
func runCell(ctx context.Context, sess *eval.Session, rec *recorder, c *Cell, n int, timeout time.Duration) (err error, fatal bool) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type outcome struct {
		res eval.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if r := recover(); r != nil {
				o = outcome{err: &eval.Error{Name: "panic", Value: fmt.Sprint(r)}}
			}
			done <- o
		}()
		o.res, o.err = sess.Eval(cctx, c.Source)
	}()
	var o outcome
	select {
	case o = <-done:
	case <-cctx.Done():
		select {
		case o = <-done:
		case <-time.After(abandonAfter):
			err := fmt.Errorf("%s; the cell did not stop within %s of being interrupted, so the rest of the notebook was not run: %w",
				cause(ctx, cctx, timeout), abandonAfter, cctx.Err())
			rec.add(errOutput(cellout.Interrupted("Interrupted", err.Error())))
			return err, true
		}
	}
	if o.err != nil {
		if cctx.Err() != nil && errors.Is(o.err, cctx.Err()) {
			o.err = fmt.Errorf("%s: %w", cause(ctx, cctx, timeout), cctx.Err())
			name := "Interrupted"
			if ctx.Err() == nil {
				name = "Timeout"
			}
			rec.add(errOutput(cellout.Interrupted(name, o.err.Error())))
			return o.err, false
		}
		rec.add(errOutput(cellout.ErrorOf(o.err)))
		return o.err, false
	}
	if d, ok := cellout.Result(o.res); ok {
		out := bundleOutput(OutputExecuteResult, d)
		count := n
		out.ExecutionCount = &count
		rec.addBundle(out, d)
	}
	return nil, false
}

func cause(ctx, cctx context.Context, timeout time.Duration) string {
	if ctx.Err() != nil {
		return "interrupted"
	}
	return fmt.Sprintf("timed out after %s (interrupted)", timeout)
}

// errOutput is the error output e.
func errOutput(e cellout.ErrorOutput) *Output {
	return &Output{Type: OutputError, EName: e.EName, EValue: e.EValue, Traceback: e.Traceback}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > 50 {
		s = string(r[:49]) + "…"
	}
	return s
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:299]) + "…"
	}
	return s
}

// setGoMetadata records Go as the notebook's language (the conclab kernel's
// language_info) and the conclab kernelspec when the notebook has none.
func setGoMetadata(nb *Notebook) {
	if nb.Metadata == nil {
		nb.Metadata = map[string]any{}
	}
	if _, ok := nb.Metadata["kernelspec"].(map[string]any); !ok {
		nb.Metadata["kernelspec"] = map[string]any{"name": KernelName, "display_name": KernelDisplayName, "language": "go"}
	}
	li, _ := nb.Metadata["language_info"].(map[string]any)
	if li == nil {
		li = map[string]any{}
		nb.Metadata["language_info"] = li
	}
	li["name"] = "go"
	li["version"] = strings.TrimPrefix(runtime.Version(), "go")
	li["mimetype"] = "text/x-go"
	li["file_extension"] = ".go"
	li["pygments_lexer"] = "go"
	li["codemirror_mode"] = "go"
	li["nbconvert_exporter"] = "script"
}

// bundleOutput is the display_data or execute_result output of d.
func bundleOutput(typ string, d display.Data) *Output {
	b := cellout.BundleOf(d)
	return &Output{Type: typ, Data: b.Data, Metadata: b.Metadata}
}

// recorder collects a running notebook's outputs. It is the display
// Publisher and the session's output writers; safe for concurrent use.
type recorder struct {
	mu           sync.Mutex
	cell         *Cell
	index        int // the 1-based number of cell in the notebook
	clearPending bool
	streamBytes  int // stream bytes recorded for the current cell
	displays     map[string][]*Output
	// versions counts changes to each cell's outputs (the child process
	// reports a cell again when its count moved); owner maps an output
	// with a display id to its cell.
	versions map[*Cell]uint64
	owner    map[*Output]*Cell
	// open is the stream output that writes append to, and openBuf its
	// text: appending to a builder keeps a long stream linear in time.
	open    *Output
	openBuf strings.Builder
	// live, when set, receives the live progress line of a display update
	// with text/plain (see live.go), and liveText is each display's last
	// text.
	live     func(cell int, line string)
	liveText map[string]string
}

// MaxStreamBytes bounds the stdout and stderr text recorded per cell (16
// MiB): the interpreter session passes on no more than this per cell and
// then one notice (eval.MaxStreamBytes, the kernel's cap); the recorder
// drops anything beyond it and its notice itself, with a note of its own in
// the cell's stderr (output that reaches it past the session's budget).
const MaxStreamBytes = eval.MaxStreamBytes

// noticeSlack lets the session's truncation notice through the recorder's
// cap.
const noticeSlack = 1 << 10

func (r *recorder) begin(c *Cell, index int) {
	r.mu.Lock()
	r.closeOpenLocked()
	r.cell, r.index, r.clearPending, r.streamBytes = c, index, false, 0
	r.mu.Unlock()
}

func (r *recorder) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeOpenLocked()
	if r.cell != nil {
		for _, o := range r.cell.Outputs {
			if o.Type == OutputStream {
				if t := cellout.CollapseCR(o.Text); t != o.Text {
					o.Text = t
					r.bumpLocked(r.cell)
				}
			}
		}
	}
	r.clearPending = false
	// Output arriving between cells (from goroutines) still goes to the
	// last cell: r.cell stays set.
}

// bumpLocked records a change to c's outputs.
func (r *recorder) bumpLocked(c *Cell) {
	if c == nil {
		return
	}
	if r.versions == nil {
		r.versions = map[*Cell]uint64{}
	}
	r.versions[c]++
}

// closeOpenLocked ends appending to the open stream output.
func (r *recorder) closeOpenLocked() {
	r.open = nil
	r.openBuf = strings.Builder{}
}

// addLocked appends o to the current cell, applying a pending Clear(true).
func (r *recorder) addLocked(o *Output) {
	if r.cell == nil {
		return
	}
	r.closeOpenLocked()
	if r.clearPending {
		r.cell.Outputs = nil
		r.clearPending = false
	}
	r.cell.Outputs = append(r.cell.Outputs, o)
	r.bumpLocked(r.cell)
}

func (r *recorder) add(o *Output) {
	r.mu.Lock()
	r.addLocked(o)
	r.mu.Unlock()
}

func (r *recorder) addBundle(o *Output, d display.Data) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addLocked(o)
	if id := d.DisplayID(); id != "" {
		r.displays[id] = append(r.displays[id], o)
		if r.owner == nil {
			r.owner = map[*Output]*Cell{}
		}
		r.owner[o] = r.cell
	}
}

// Display implements display.Publisher.
func (r *recorder) Display(d display.Data) error {
	o := bundleOutput(OutputDisplayData, d)
	r.addBundle(o, d)
	if id := d.DisplayID(); id != "" {
		if text, ok := o.Data[display.MIMETypeText].(string); ok {
			r.mu.Lock()
			if r.liveText == nil {
				r.liveText = map[string]string{}
			}
			r.liveText[id] = text
			r.mu.Unlock()
		}
	}
	return nil
}

// Update implements display.Publisher: every output shown with display id id,
// in any cell, is replaced by d in place.
func (r *recorder) Update(id string, d display.Data) error {
	nu := bundleOutput(OutputDisplayData, d)
	text, hasText := nu.Data[display.MIMETypeText].(string)
	r.mu.Lock()
	for _, o := range r.displays[id] {
		o.Data, o.Metadata = nu.Data, nu.Metadata
		r.bumpLocked(r.owner[o])
	}
	live, cell := r.live, r.index
	var line string
	if live != nil && hasText {
		if r.liveText == nil {
			r.liveText = map[string]string{}
		}
		line = liveLine(r.liveText[id], text)
		r.liveText[id] = text
	}
	r.mu.Unlock()
	if line != "" {
		live(cell, line)
	}
	return nil
}

// Clear implements display.Publisher: it clears the current cell's outputs,
// at once or (wait) when the next output arrives.
func (r *recorder) Clear(wait bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if wait {
		r.clearPending = true
	} else if r.cell != nil {
		r.closeOpenLocked()
		r.cell.Outputs = nil
		r.bumpLocked(r.cell)
	}
	return nil
}

var _ display.Publisher = (*recorder)(nil)

type streamWriter struct {
	r    *recorder
	name string
}

func (r *recorder) stream(name string) io.Writer { return streamWriter{r, name} }

// Write appends p to the current cell's last output when that is a stream of
// the same name, else adds a stream output.
func (w streamWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r := w.r
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.cell
	if c == nil || r.streamBytes > MaxStreamBytes+noticeSlack {
		return len(p), nil
	}
	r.streamBytes += len(p)
	if r.streamBytes > MaxStreamBytes+noticeSlack {
		r.addLocked(&Output{Type: OutputStream, Name: "stderr",
			Text: fmt.Sprintf("\n[conclab run: output of this cell truncated after %d MiB]\n", MaxStreamBytes>>20)})
		return len(p), nil
	}
	var last *Output
	if !r.clearPending && len(c.Outputs) > 0 {
		last = c.Outputs[len(c.Outputs)-1]
	}
	if last == nil || last.Type != OutputStream || last.Name != w.name {
		last = &Output{Type: OutputStream, Name: w.name}
		r.addLocked(last)
	}
	if r.open != last {
		r.closeOpenLocked()
		r.open = last
		r.openBuf.WriteString(last.Text)
	}
	r.openBuf.Write(p)
	r.open.Text = r.openBuf.String() // no copy: the builder only appends
	r.bumpLocked(c)
	return len(p), nil
}
