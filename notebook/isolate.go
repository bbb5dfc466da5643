package notebook

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// KillGrace is how long ExecuteIsolated lets a cell stop after it was
// interrupted (its timeout passed, or ctx ended) before it kills the
// notebook's process and everything that process started.
const KillGrace = 5 * time.Second

// exitGrace is how long ExecuteIsolated waits for the child to exit once it
// has reported its result, before killing it.
const exitGrace = 2 * time.Second

// snapshotEvery is how often the child reports the running cell's outputs
// (when they changed), so a cell that ends its process keeps what it showed.
const snapshotEvery = time.Second

// RunTokenEnv is the environment variable ExecuteIsolated sets, to a token
// of its own, in the notebook's process. Every process a cell starts inherits
// it, so when the notebook ends the processes still carrying the token are
// found (on Linux, through /proc) and killed, wherever they were reparented.
const RunTokenEnv = "CONCLAB_RUN_TOKEN"

// FatalError reports that the process running a notebook (see
// ExecuteIsolated) ended while a cell ran, without reporting a result: a
// fatal error of the Go runtime (stack overflow, out of memory, concurrent
// map writes), a panic in a goroutine nothing recovered, or a signal.
type FatalError struct {
	// Name is a one-word kind: "FatalError" (the Go runtime's "fatal
	// error"), "panic", "Signal" (a fault the runtime reported), "Killed"
	// (ended by a signal, e.g. the system's out-of-memory killer) or
	// "Exited" (the process exited on its own, e.g. syscall.Exit).
	Name string
	// Value is the runtime's one-line message, e.g. "stack overflow".
	Value string
	// Status is the process's exit status, e.g. "exit status 2".
	Status string
}

func (e *FatalError) Error() string { return e.Name + ": " + e.Value }

// ExecuteIsolated is Execute with the interpreter session in a child process:
// cmd, which must run ChildMain (the conclab binary's `conclab run` does;
// cmd's Stdin, Stdout, Stderr, ExtraFiles and process attributes are set
// here). The notebook is sent to the child; the child reports each cell's
// start, its outputs (when it ends, and every second while it runs) and the
// final notebook. nb ends up as Execute would leave it, and the error is the
// one Execute would return, with these differences:
//
//   - When the child ends without a result (a fatal error of the Go runtime,
//     a signal), the cell that was running gets an error output naming the
//     fatal error in one line, keeps the outputs it had shown up to a second
//     before, and the error is a *CellError whose Err is a *FatalError.
//   - A cell that does not stop within KillGrace of its timeout, or of ctx
//     ending, is not waited for: the child and everything it started are
//     killed, and the cell fails (a *CellError, Timeout set for a timeout).
//   - When the notebook ends, every process it started and left running
//     is killed: the child's process group, and on Linux every process that
//     inherited the run's RunTokenEnv.
//
// Progress lines are written to opts.Progress as the child runs the cells.
// The child's own standard output and error (a crash dump) are not shown.
func ExecuteIsolated(ctx context.Context, nb *Notebook, opts Options, cmd *exec.Cmd) error {
	name, timeout, err := prepare(nb, opts)
	if err != nil {
		return err
	}
	dir := opts.Dir
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		dir = abs
	}
	var req bytes.Buffer
	hdr, _ := json.Marshal(childRequest{Name: name, Dir: dir, Timeout: timeout, AllowErrors: opts.AllowErrors})
	req.Write(hdr)
	req.WriteByte('\n')
	if err := nb.Write(&req); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}

	evR, evW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer evR.Close()
	token, err := newToken()
	if err != nil {
		evW.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	crash := &crashLog{}
	cmd.Stdin = &req
	cmd.Stdout, cmd.Stderr = crash, crash
	cmd.ExtraFiles = []*os.File{evW}
	cmd.Env = append(cmd.Environ(), RunTokenEnv+"="+token)
	cmd.WaitDelay = time.Second
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		evW.Close()
		return fmt.Errorf("%s: starting the notebook's process: %w", name, err)
	}
	evW.Close()
	pid := cmd.Process.Pid
	waitCh := make(chan error, 1)
	go func() { waitCh <- cmd.Wait() }()

	quit := make(chan struct{})
	defer close(quit)
	events := make(chan childEvent)
	go readEvents(evR, events, quit)

	var (
		lastStarted int       // the 1-based number of the cell started last
		running     bool      // that cell has not ended
		runStart    time.Time // when it started
		final       *childEvent
		killed      string // "timeout" or "interrupt" when the child was killed
		graceC      <-chan time.Time
		afterKill   <-chan time.Time
		ctxDone     = ctx.Done()
	)
	watchdog := time.NewTimer(time.Hour)
	watchdog.Stop()
	defer watchdog.Stop()
	codeCells := countCodeCells(nb)
	var live *livePrinter
	if opts.Progress != nil {
		live = newLivePrinter(opts.Progress, name, opts.Terminal)
	}
	defer live.end()
loop:
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				break loop
			}
			switch ev.Type {
			case evStart:
				if c := cellAt(nb, ev.Cell); c != nil {
					n := ev.Count
					c.ExecutionCount = &n
					lastStarted, running, runStart = ev.Cell, true, time.Now()
					watchdog.Reset(timeout + KillGrace)
				}
			case evCell:
				if c := cellAt(nb, ev.Cell); c != nil {
					if ev.Set {
						c.Outputs = fromWireOutputs(ev.Outputs)
					}
					if ev.Final && ev.Cell == lastStarted {
						running = false
						watchdog.Stop()
						live.end()
					}
				}
			case evLive:
				live.update(ev.Cell, ev.Line)
			case evProgress:
				if opts.Progress != nil {
					live.end()
					io.WriteString(opts.Progress, ev.Line)
				}
			case evDone:
				final = &ev
				break loop
			}
		case <-watchdog.C:
			if running && killed == "" {
				killed = "timeout"
				killGroup(cmd.Process)
			}
		case <-ctxDone:
			ctxDone = nil
			_ = interruptProcess(cmd.Process)
			graceC = time.After(KillGrace)
		case <-graceC:
			if killed == "" {
				killed = "interrupt"
				killGroup(cmd.Process)
			}
		case <-afterKill:
			break loop // the events did not end with the child: give up on them
		}
		if killed != "" && afterKill == nil {
			afterKill = time.After(exitGrace)
		}
	}

	live.end()
	// The notebook is over: stop what it left running, then the child.
	var waitErr error
	exited := false
	if final != nil {
		killTokenProcesses(token, pid)
		select {
		case waitErr = <-waitCh:
			exited = true
		case <-time.After(exitGrace):
		}
	}
	if !exited {
		killGroup(cmd.Process)
		waitErr = <-waitCh
	}
	killGroup(cmd.Process) // the group may outlive its leader
	killTokenProcesses(token, 0)

	if final != nil {
		for _, wc := range final.Cells {
			if c := cellAt(nb, wc.Cell); c != nil {
				c.Outputs = fromWireOutputs(wc.Outputs)
			}
		}
		if final.Metadata != nil {
			nb.Metadata = final.Metadata
		}
		return final.Error.err(name)
	}

	c := cellAt(nb, lastStarted)
	var cerr error
	var out *Output
	switch killed {
	case "timeout":
		cerr = fmt.Errorf("timed out after %s (interrupted); the cell did not stop within %s, so its process was killed and the rest of the notebook was not run: %w",
			timeout, KillGrace, context.DeadlineExceeded)
		out = &Output{Type: OutputError, EName: "Timeout", EValue: cerr.Error(), Traceback: []string{"Timeout: " + cerr.Error()}}
	case "interrupt":
		cerr = fmt.Errorf("interrupted; the cell did not stop within %s, so its process was killed: %w", KillGrace, ctx.Err())
		out = &Output{Type: OutputError, EName: "Interrupted", EValue: cerr.Error(), Traceback: []string{"Interrupted: " + cerr.Error()}}
	default:
		fe := crash.cause(waitErr)
		cerr = fe
		out = &Output{Type: OutputError, EName: fe.Name, EValue: fe.Value, Traceback: []string{
			fe.Error(),
			fmt.Sprintf("The notebook's process ended (%s) while this cell ran; the cells after it were not run.", fe.Status),
		}}
	}
	if c == nil {
		return fmt.Errorf("%s: the notebook's process ended before running a cell: %w", name, cerr)
	}
	c.Outputs = append(c.Outputs, out)
	if opts.Progress != nil {
		count := 0
		if c.ExecutionCount != nil {
			count = *c.ExecutionCount
		}
		fmt.Fprintln(opts.Progress, progressLine(name, count, codeCells, lastStarted, c, cerr, time.Since(runStart)))
	}
	return &CellError{Notebook: name, Cell: lastStarted, ID: c.ID, Timeout: killed == "timeout", Err: cerr}
}

// cellAt returns the cell with 1-based number i, or nil.
func cellAt(nb *Notebook, i int) *Cell {
	if i < 1 || i > len(nb.Cells) {
		return nil
	}
	return nb.Cells[i-1]
}

func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// readEvents decodes the child's events into ch until the stream ends or
// quit is closed; it closes ch.
func readEvents(r io.Reader, ch chan<- childEvent, quit <-chan struct{}) {
	defer close(ch)
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	dec.UseNumber() // numbers in outputs' JSON data round-trip exactly
	for {
		var ev childEvent
		if err := dec.Decode(&ev); err != nil {
			return // the end, or a line cut short by the child's death
		}
		select {
		case ch <- ev:
		case <-quit:
			return
		}
	}
}

// The protocol between ExecuteIsolated and ChildMain: the request (a JSON
// header line, then the notebook) on the child's standard input; events,
// one JSON object per line, on its file descriptor 3.
type childRequest struct {
	Name        string        `json:"name"`
	Dir         string        `json:"dir"`
	Timeout     time.Duration `json:"timeout"`
	AllowErrors bool          `json:"allow_errors"`
}

// Event types.
const (
	evStart    = "start"    // Cell started; Count is its execution count
	evCell     = "cell"     // Cell's Outputs (Final when the cell ended)
	evProgress = "progress" // a progress Line
	evLive     = "live"     // a live progress Line of Cell (see live.go)
	evDone     = "done"     // the final Notebook and Error
)

type childEvent struct {
	Type    string       `json:"type"`
	Cell    int          `json:"cell,omitempty"`
	Count   int          `json:"count,omitempty"`
	Final   bool         `json:"final,omitempty"`
	Set     bool         `json:"set,omitempty"` // Outputs are the cell's (possibly none)
	Outputs []wireOutput `json:"outputs,omitempty"`
	Line    string       `json:"line,omitempty"`
	// Done: the cells whose outputs changed since they were last sent
	// (display updates), the notebook metadata and the result.
	Cells    []wireCell     `json:"cells,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
	Error    *wireError     `json:"error,omitempty"`
}

// wireCell is the outputs of the cell numbered Cell.
type wireCell struct {
	Cell    int          `json:"cell"`
	Outputs []wireOutput `json:"outputs"`
}

// wireOutput is an Output as sent between the processes: one plain struct,
// so a long stream text costs one JSON string (nbformat's shapes would be
// decoded several times).
type wireOutput struct {
	Type           string         `json:"t"`
	Name           string         `json:"n,omitempty"`
	Text           string         `json:"x,omitempty"`
	Data           map[string]any `json:"d,omitempty"`
	Metadata       map[string]any `json:"m,omitempty"`
	ExecutionCount *int           `json:"c,omitempty"`
	EName          string         `json:"en,omitempty"`
	EValue         string         `json:"ev,omitempty"`
	Traceback      []string       `json:"tb,omitempty"`
}

// wireError carries Execute's error from the child.
type wireError struct {
	Message string `json:"message"`
	// For a *CellError: its fields, and Err's message.
	Cell     int    `json:"cell,omitempty"`
	ID       string `json:"id,omitempty"`
	Timeout  bool   `json:"timeout,omitempty"`
	Cause    string `json:"cause,omitempty"`
	Canceled bool   `json:"canceled,omitempty"`
	Deadline bool   `json:"deadline,omitempty"`
}

func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Message: err.Error(), Canceled: errors.Is(err, context.Canceled),
		Deadline: errors.Is(err, context.DeadlineExceeded)}
	var ce *CellError
	if errors.As(err, &ce) {
		w.Cell, w.ID, w.Timeout, w.Cause = ce.Cell, ce.ID, ce.Timeout, ce.Err.Error()
	}
	return w
}

// err rebuilds the error in the parent: a *CellError for a cell's failure;
// errors.Is finds context.Canceled / DeadlineExceeded as in the child.
func (w *wireError) err(name string) error {
	if w == nil {
		return nil
	}
	var base error = remoteError{w.Cause, w}
	if w.Cell > 0 {
		return &CellError{Notebook: name, Cell: w.Cell, ID: w.ID, Timeout: w.Timeout, Err: base}
	}
	return remoteError{w.Message, w}
}

// remoteError is an error message from the child process.
type remoteError struct {
	msg string
	w   *wireError
}

func (e remoteError) Error() string { return e.msg }

func (e remoteError) Is(target error) bool {
	return (target == context.Canceled && e.w.Canceled) || (target == context.DeadlineExceeded && e.w.Deadline)
}

func toWireOutputs(outs []*Output) []wireOutput {
	w := make([]wireOutput, len(outs))
	for i, o := range outs {
		w[i] = wireOutput(*o)
	}
	return w
}

func fromWireOutputs(w []wireOutput) []*Output {
	outs := make([]*Output, len(w))
	for i := range w {
		o := Output(w[i])
		outs[i] = &o
	}
	return outs
}

// ChildMain is the child side of ExecuteIsolated: it reads the request from
// standard input, executes the notebook (ctx ending interrupts it, as for
// Execute) and reports on file descriptor 3. base gives what cannot cross
// the processes, Symbols, NewPage and Metadata (its other fields are the
// request's).
// It returns the process's exit code: 0 when the result was reported
// (whether or not a cell failed), 1 when it could not be. A binary calls it
// when started as ExecuteIsolated's cmd.
func ChildMain(ctx context.Context, base Options) int {
	events := os.NewFile(3, "conclab-events")
	if _, err := events.Stat(); err != nil {
		fmt.Fprintln(os.Stderr, "conclab: the notebook child process needs its event pipe on file descriptor 3")
		return 1
	}
	childSetup(events)
	w := &childWriter{enc: json.NewEncoder(events)}
	in := bufio.NewReader(os.Stdin)
	hdr, err := in.ReadBytes('\n')
	var req childRequest
	if err == nil {
		err = json.Unmarshal(hdr, &req)
	}
	if err != nil {
		err = fmt.Errorf("reading the request: %w", err)
		fmt.Fprintln(os.Stderr, "conclab: the notebook child process (for conclab run's own use):", err)
		w.done(nil, nil, err)
		return 1
	}
	nb, err := Read(in)
	if err != nil {
		w.done(nil, nil, fmt.Errorf("%s: %w", req.Name, err))
		return 1
	}
	opts := Options{Name: req.Name, Dir: req.Dir, Timeout: req.Timeout, AllowErrors: req.AllowErrors, Progress: progressWriter{w},
		Symbols: base.Symbols, NewPage: base.NewPage, Metadata: base.Metadata}
	err = execute(ctx, nb, opts, w)
	if !w.sent {
		w.done(nb, nil, err) // execute failed before running cells
	}
	if w.err != nil {
		return 1
	}
	return 0
}

// childWriter sends the child's events. Its methods are safe for concurrent
// use and do nothing on a nil *childWriter (Execute in process).
type childWriter struct {
	mu   sync.Mutex
	enc  *json.Encoder
	err  error // the first write error
	sent bool  // done was sent
	// versions are the recorder's versions of the cells as last sent;
	// guarded by the recorder's mu.
	versions map[*Cell]uint64
}

func (w *childWriter) send(ev childEvent) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = w.enc.Encode(ev)
	}
}

func (w *childWriter) start(cell, count int) {
	if w != nil {
		w.send(childEvent{Type: evStart, Cell: cell, Count: count})
	}
}

// changedLocked returns c's outputs when they changed since they were last
// sent, and marks them sent. The caller holds rec.mu.
func (w *childWriter) changedLocked(rec *recorder, c *Cell) ([]wireOutput, bool) {
	v := rec.versions[c]
	if w.versions == nil {
		w.versions = map[*Cell]uint64{}
	}
	if c == nil || v == w.versions[c] {
		return nil, false
	}
	w.versions[c] = v
	return toWireOutputs(c.Outputs), true
}

// cell reports that rec's current cell, number index, ended, with its
// outputs when they changed since last sent.
func (w *childWriter) cell(rec *recorder, index int) {
	if w == nil {
		return
	}
	rec.mu.Lock()
	outs, changed := w.changedLocked(rec, rec.cell)
	rec.mu.Unlock()
	w.send(childEvent{Type: evCell, Cell: index, Final: true, Set: changed, Outputs: outs})
}

// watch sends the running cell's outputs every snapshotEvery when they
// changed, until the returned stop is called.
func (w *childWriter) watch(rec *recorder) (stop func()) {
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(snapshotEvery)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			rec.mu.Lock()
			index := rec.index
			outs, changed := w.changedLocked(rec, rec.cell)
			rec.mu.Unlock()
			if changed {
				w.send(childEvent{Type: evCell, Cell: index, Set: true, Outputs: outs})
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}

// done sends the result: the outputs of nb's cells that changed since they
// were last sent (rec may be nil: none ran), nb's metadata, and err.
func (w *childWriter) done(nb *Notebook, rec *recorder, err error) {
	if w == nil {
		return
	}
	ev := childEvent{Type: evDone, Error: toWire(err)}
	if nb != nil {
		ev.Metadata = nb.Metadata
	}
	if nb != nil && rec != nil {
		rec.mu.Lock()
		for i, c := range nb.Cells {
			if outs, ok := w.changedLocked(rec, c); ok {
				ev.Cells = append(ev.Cells, wireCell{Cell: i + 1, Outputs: outs})
			}
		}
		rec.mu.Unlock()
	}
	w.send(ev)
	w.mu.Lock()
	w.sent = true
	w.mu.Unlock()
}

// live sends a live progress line of cell.
func (w *childWriter) live(cell int, line string) {
	w.send(childEvent{Type: evLive, Cell: cell, Line: line})
}

// progressWriter sends what is written as progress lines.
type progressWriter struct{ w *childWriter }

func (p progressWriter) Write(b []byte) (int, error) {
	p.w.send(childEvent{Type: evProgress, Line: string(b)})
	return len(b), nil
}
