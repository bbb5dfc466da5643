package workload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench/frame"
)

// Print modes (source 000, chapter 2: print per request under
// PYTHONUNBUFFERED=1 vs an async print vs none).
const (
	PrintSync  = "sync"  // one blocking write(2) per line, on the caller's thread
	PrintAsync = "async" // lines queued; one goroutine drains the queue, many lines per write(2)
	PrintNone  = "none"  // lines counted and dropped: no system call
)

// Print defaults.
const (
	DefaultPrintQueue = 10_000   // lines an async Printer holds before Println waits
	asyncBatchBytes   = 64 << 10 // most bytes the async drainer puts in one write
	MaxPipeRate       = 1e12     // largest drain rate NewPipeSink accepts
)

// Sink is a print target: an *os.File whose every Write is a write(2)
// system call — a pipe drained at a set rate like a terminal, a file, or
// /dev/null. The caller must call Close. Safe for concurrent use.
type Sink struct {
	name string
	w    *os.File
	r    *os.File // pipe read end; nil for files

	rateMu       sync.Mutex
	pace         pace          // guarded by rateMu
	rateChanged  chan struct{} // wakes the reader after SetRate
	fast         chan struct{} // closed by hurry: drain at full speed
	hurryOnce    sync.Once
	readerDone   chan struct{}
	drainedBytes atomic.Int64
	drainedLines atomic.Int64

	closeOnce sync.Once
	closeErr  error
}

// NewPipeSink returns a real os.Pipe whose read end one goroutine drains
// at bytesPerSec or linesPerSec (0 means unlimited; at most one may be
// set), like a terminal rendering output. When the pipe's buffer is full a
// write blocks until the reader catches up: that is the back-pressure a
// slow terminal puts on print. pipeBytes sets the pipe's buffer (Linux
// F_SETPIPE_SZ, rounded up to a page; 0 keeps the default 64 KiB).
func NewPipeSink(bytesPerSec, linesPerSec float64, pipeBytes int) (*Sink, error) {
	if err := checkRate(bytesPerSec, linesPerSec); err != nil {
		return nil, err
	}
	if pipeBytes < 0 {
		return nil, fmt.Errorf("workload: pipe size %d, want >= 0", pipeBytes)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("workload: pipe: %w", err)
	}
	// Fd puts the write end in blocking mode: a full pipe blocks the
	// writing thread in write(2), as it blocks a Python thread.
	fd := w.Fd()
	if pipeBytes > 0 {
		if err := setPipeSize(fd, pipeBytes); err != nil {
			r.Close()
			w.Close()
			return nil, fmt.Errorf("workload: pipe size %d: %w", pipeBytes, err)
		}
	}
	s := &Sink{w: w, r: r, pace: pace{bytesPerSec: bytesPerSec, linesPerSec: linesPerSec, t0: time.Now()},
		rateChanged: make(chan struct{}, 1), fast: make(chan struct{}), readerDone: make(chan struct{})}
	s.name = s.pace.name()
	go s.drain()
	return s, nil
}

func checkRate(bytesPerSec, linesPerSec float64) error {
	if !(bytesPerSec >= 0 && linesPerSec >= 0 && bytesPerSec <= MaxPipeRate && linesPerSec <= MaxPipeRate) {
		return fmt.Errorf("workload: pipe rate %v bytes/s, %v lines/s: want 0 (unlimited) up to %g", bytesPerSec, linesPerSec, MaxPipeRate)
	}
	if bytesPerSec > 0 && linesPerSec > 0 {
		return errors.New("workload: pipe rate: set bytes/s or lines/s, not both")
	}
	return nil
}

// pace is a pipe reader's rate, counted from t0 when b0 bytes and l0
// lines had been drained.
type pace struct {
	bytesPerSec, linesPerSec float64
	t0                       time.Time
	b0, l0                   int64
}

func (p pace) name() string {
	switch {
	case p.bytesPerSec > 0:
		return fmt.Sprintf("pipe %g bytes/s", p.bytesPerSec)
	case p.linesPerSec > 0:
		return fmt.Sprintf("pipe %g lines/s", p.linesPerSec)
	}
	return "pipe"
}

// due is when the reader may have drained b bytes and l lines in all
// (zero time: at once).
func (p pace) due(b, l int64) time.Time {
	switch {
	case p.bytesPerSec > 0:
		return p.t0.Add(time.Duration(float64(b-p.b0) / p.bytesPerSec * float64(time.Second)))
	case p.linesPerSec > 0:
		return p.t0.Add(time.Duration(float64(l-p.l0) / p.linesPerSec * float64(time.Second)))
	}
	return time.Time{}
}

// SetRate changes a pipe's drain rate from now on (the same arguments as
// NewPipeSink: bytes/s or lines/s, 0 for unlimited). It is an error for a
// file sink or a bad rate. Name keeps the rate the sink was opened with.
func (s *Sink) SetRate(bytesPerSec, linesPerSec float64) error {
	if s.r == nil {
		return fmt.Errorf("workload: %s: only a pipe has a drain rate", s.name)
	}
	if err := checkRate(bytesPerSec, linesPerSec); err != nil {
		return err
	}
	s.rateMu.Lock()
	s.pace = pace{bytesPerSec: bytesPerSec, linesPerSec: linesPerSec, t0: time.Now(),
		b0: s.drainedBytes.Load(), l0: s.drainedLines.Load()}
	s.rateMu.Unlock()
	select {
	case s.rateChanged <- struct{}{}:
	default:
	}
	return nil
}

// Rate returns the pipe's current drain rate (0, 0: unlimited or a file).
func (s *Sink) Rate() (bytesPerSec, linesPerSec float64) {
	s.rateMu.Lock()
	defer s.rateMu.Unlock()
	return s.pace.bytesPerSec, s.pace.linesPerSec
}

func (s *Sink) currentPace() pace {
	s.rateMu.Lock()
	defer s.rateMu.Unlock()
	return s.pace
}

// drain reads the pipe until EOF, pacing itself so that by time t it has
// taken at most rate*t bytes (or lines): after each read it waits until the
// bytes — or, line by line, the lines — it just read are due, and only then
// counts them as drained. A read takes at most ~10 ms of output (256 bytes
// in lines mode), so the pipe is never emptied far ahead of the rate.
func (s *Sink) drain() {
	defer close(s.readerDone)
	buf := make([]byte, 64<<10)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	// waitFor blocks until b bytes and l lines in all are due at the
	// current rate, re-reading the rate when SetRate changes it.
	waitFor := func(b, l int64) {
		for {
			due := s.currentPace().due(b, l)
			wait := time.Until(due)
			if due.IsZero() || wait <= 0 {
				return
			}
			timer.Reset(wait)
			select {
			case <-timer.C:
				return
			case <-s.rateChanged:
				timer.Stop()
			case <-s.fast:
				timer.Stop()
				return
			}
		}
	}
	var nbytes, nlines int64
	for {
		p := s.currentPace()
		size := len(buf)
		if p.bytesPerSec > 0 {
			size = int(max(1, min(float64(size), p.bytesPerSec/100)))
		} else if p.linesPerSec > 0 {
			size = 256
		}
		n, err := s.r.Read(buf[:size])
		chunk := buf[:n]
		if p.linesPerSec > 0 {
			for len(chunk) > 0 {
				i := bytes.IndexByte(chunk, '\n')
				if i < 0 {
					nbytes += int64(len(chunk))
					s.drainedBytes.Add(int64(len(chunk)))
					break
				}
				nbytes += int64(i + 1)
				nlines++
				waitFor(nbytes, nlines)
				s.drainedBytes.Add(int64(i + 1))
				s.drainedLines.Add(1)
				chunk = chunk[i+1:]
			}
		} else if n > 0 {
			nbytes += int64(n)
			k := int64(countLines(chunk))
			nlines += k
			waitFor(nbytes, nlines)
			s.drainedBytes.Add(int64(n))
			s.drainedLines.Add(k)
		}
		if err != nil {
			return
		}
	}
}

func countLines(b []byte) int { return bytes.Count(b, []byte{'\n'}) }

// OpenFileSink creates (or truncates) the file at path as a print target.
func OpenFileSink(path string) (*Sink, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("workload: print file: %w", err)
	}
	return &Sink{name: "file " + path, w: f}, nil
}

// DevNullSink opens /dev/null as a print target: every write is a system
// call that the kernel discards.
func DevNullSink() (*Sink, error) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("workload: open %s: %w", os.DevNull, err)
	}
	return &Sink{name: "devnull", w: f}, nil
}

var pipeSpecRE = regexp.MustCompile(`^pipe(?::([0-9.eE+]+)\s*(lines|[kKmM]?B)/s)?$`)

// OpenSink opens a sink from a spec: "devnull", "file:PATH", "pipe"
// (unlimited), "pipe:200lines/s", "pipe:9600B/s", "pipe:64KB/s",
// "pipe:1MB/s" (KB and MB are 1000 and 1e6 bytes).
func OpenSink(spec string) (*Sink, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "devnull" || spec == os.DevNull:
		return DevNullSink()
	case strings.HasPrefix(spec, "file:") && len(spec) > len("file:"):
		return OpenFileSink(strings.TrimPrefix(spec, "file:"))
	}
	m := pipeSpecRE.FindStringSubmatch(spec)
	if m == nil {
		return nil, fmt.Errorf("workload: print target %q: want devnull, file:PATH, pipe, pipe:N lines/s or pipe:N B/s|KB/s|MB/s", spec)
	}
	if m[1] == "" {
		return NewPipeSink(0, 0, 0)
	}
	rate, err := strconv.ParseFloat(m[1], 64)
	if err != nil || rate <= 0 {
		return nil, fmt.Errorf("workload: print target %q: rate must be a positive number", spec)
	}
	switch strings.ToUpper(m[2]) {
	case "LINES":
		return NewPipeSink(0, rate, 0)
	case "KB":
		rate *= 1e3
	case "MB":
		rate *= 1e6
	}
	return NewPipeSink(rate, 0, 0)
}

// Name describes the sink ("devnull", "file PATH", "pipe 200 lines/s").
func (s *Sink) Name() string { return s.name }

// File is the write end. Every Write on it is one write(2) system call.
func (s *Sink) File() *os.File { return s.w }

// Drained returns the bytes and lines a pipe's reader has consumed so far
// (0, 0 for a file).
func (s *Sink) Drained() (bytes, lines int64) {
	return s.drainedBytes.Load(), s.drainedLines.Load()
}

// Close closes the write end. For a pipe it first lets the reader drain at
// full speed, so writers blocked on a full pipe finish, then waits for the
// reader to see EOF. Safe to call twice.
func (s *Sink) Close() error {
	s.closeOnce.Do(func() {
		if s.r == nil {
			s.closeErr = s.w.Close()
			return
		}
		s.hurry()
		s.closeErr = s.w.Close()
		<-s.readerDone
		if err := s.r.Close(); s.closeErr == nil {
			s.closeErr = err
		}
	})
	if s.closeErr != nil {
		return fmt.Errorf("workload: close %s: %w", s.name, s.closeErr)
	}
	return nil
}

// hurry makes a pipe's reader drain at full speed from now on, so no
// writer stays blocked on a full pipe.
func (s *Sink) hurry() {
	if s.r != nil {
		s.hurryOnce.Do(func() { close(s.fast) })
	}
}

// PrintStats counts what a Printer did.
type PrintStats struct {
	Mode      string
	Lines     int64         // Println calls accepted
	Writes    int64         // write(2) calls made
	Bytes     int64         // bytes written
	Dropped   int64         // async lines still queued at Close, never written
	WriteTime time.Duration // total time spent inside write calls
	MaxWrite  time.Duration // longest single write call
}

// Row returns the stats as a frame row: mode, count (lines), writes,
// bytes_out, dropped, write_ms, max_write_ms. PrintFrame keeps that order.
func (s PrintStats) Row() frame.Row {
	return frame.Row{"mode": s.Mode, "count": s.Lines, "writes": s.Writes, "bytes_out": s.Bytes,
		"dropped": s.Dropped, "write_ms": ms(s.WriteTime), "max_write_ms": ms(s.MaxWrite)}
}

// Printer prints lines to a sink in one of the print modes. Safe for
// concurrent use; the caller must call Close (which does not close the
// sink).
type Printer struct {
	mode string
	sink *Sink
	w    io.Writer

	mu     sync.RWMutex // guards closed against sends on queue
	closed bool
	queue  chan []byte
	stop   chan struct{}
	done   chan struct{}

	lines, writes, bytes, dropped atomic.Int64
	pending                       atomic.Int64 // async lines accepted, not yet written
	writeNs, maxWriteNs           atomic.Int64
	closeOnce                     sync.Once
}

// NewPrinter returns a printer in mode (PrintSync, PrintAsync, PrintNone)
// writing to sink (may be nil for PrintNone). queue is the async queue
// length in lines (0 means DefaultPrintQueue).
func NewPrinter(mode string, sink *Sink, queue int) (*Printer, error) {
	p := &Printer{mode: mode}
	switch mode {
	case PrintNone:
		return p, nil
	case PrintSync, PrintAsync:
	default:
		return nil, fmt.Errorf("workload: print mode %q, want %q, %q or %q", mode, PrintSync, PrintAsync, PrintNone)
	}
	if sink == nil {
		return nil, fmt.Errorf("workload: print mode %q needs a sink", mode)
	}
	if queue < 0 {
		return nil, fmt.Errorf("workload: print queue %d, want >= 0", queue)
	}
	p.sink, p.w = sink, sink.File()
	if mode == PrintAsync {
		if queue == 0 {
			queue = DefaultPrintQueue
		}
		p.queue = make(chan []byte, queue)
		p.stop = make(chan struct{})
		p.done = make(chan struct{})
		go p.drain()
	}
	return p, nil
}

// Mode is the printer's mode.
func (p *Printer) Mode() string { return p.mode }

// Println prints line followed by a newline. PrintSync makes exactly one
// write(2) on the calling goroutine's thread and returns when the kernel
// has taken the bytes — blocking while a pipe is full; ctx cannot
// interrupt a write in progress. PrintAsync enqueues the line and returns,
// waiting (until ctx is done) only while the queue is full. PrintNone
// counts the line. After Close it is an error.
func (p *Printer) Println(ctx context.Context, line string) error {
	switch p.mode {
	case PrintNone:
		p.lines.Add(1)
		return nil
	case PrintSync:
		p.mu.RLock()
		defer p.mu.RUnlock()
		if p.closed {
			return errors.New("workload: print after Close")
		}
		b := make([]byte, len(line)+1)
		copy(b, line)
		b[len(line)] = '\n'
		p.lines.Add(1)
		return p.write(b)
	}
	b := make([]byte, len(line)+1)
	copy(b, line)
	b[len(line)] = '\n'
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return errors.New("workload: print after Close")
	}
	p.pending.Add(1)
	select {
	case p.queue <- b:
		p.lines.Add(1)
		return nil
	case <-ctx.Done():
		p.pending.Add(-1)
		return fmt.Errorf("workload: print queue full: %w", ctx.Err())
	}
}

func (p *Printer) write(b []byte) error {
	start := time.Now()
	n, err := p.w.Write(b)
	d := int64(time.Since(start))
	p.writes.Add(1)
	p.bytes.Add(int64(n))
	p.writeNs.Add(d)
	for {
		m := p.maxWriteNs.Load()
		if d <= m || p.maxWriteNs.CompareAndSwap(m, d) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("workload: print: %w", err)
	}
	return nil
}

// drain is the async printer's one writer: it takes whatever is queued (up
// to asyncBatchBytes) and writes it in one call.
func (p *Printer) drain() {
	defer close(p.done)
	buf := make([]byte, 0, asyncBatchBytes)
	for {
		select {
		case <-p.stop:
			return
		default:
		}
		var b []byte
		select {
		case b = <-p.queue:
		case <-p.stop:
			return
		}
		buf = append(buf[:0], b...)
		k := int64(1)
	batch:
		for len(buf) < asyncBatchBytes {
			select {
			case b = <-p.queue:
				buf = append(buf, b...)
				k++
			default:
				break batch
			}
		}
		_ = p.write(buf)
		p.pending.Add(-k)
	}
}

// Flush waits until an async printer's queue is empty and written, or ctx
// is done. For other modes it returns at once.
func (p *Printer) Flush(ctx context.Context) error {
	if p.mode != PrintAsync {
		return nil
	}
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		if p.pending.Load() == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("workload: print flush: %d lines still queued: %w", len(p.queue), ctx.Err())
		case <-t.C:
		}
	}
}

// Stats returns the counts so far.
func (p *Printer) Stats() PrintStats {
	return PrintStats{Mode: p.mode, Lines: p.lines.Load(), Writes: p.writes.Load(), Bytes: p.bytes.Load(),
		Dropped: p.dropped.Load(), WriteTime: time.Duration(p.writeNs.Load()), MaxWrite: time.Duration(p.maxWriteNs.Load())}
}

// Close stops the printer: later Println calls fail; an async printer
// waits for the write in progress and drops (and counts) lines still
// queued — call Flush first to keep them. So that Close never waits on a
// slow reader, it first makes a pipe sink drain at full speed from then on
// (writes in progress finish promptly); it does not close the sink. Close
// the sink after its printers. Safe to call twice.
func (p *Printer) Close() error {
	p.closeOnce.Do(func() {
		if p.sink != nil {
			p.sink.hurry()
		}
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		if p.mode == PrintAsync {
			close(p.stop)
			<-p.done
			p.dropped.Store(int64(len(p.queue)))
		}
	})
	return nil
}

// PrintFrame returns stats as a frame, one row each, columns in the order
// of PrintStats.Row.
func PrintFrame(name string, stats []PrintStats) *frame.Frame {
	f := newFrame(name, map[string]bool{"mode": true}, "mode", "count", "writes", "bytes_out", "dropped", "write_ms", "max_write_ms")
	for _, s := range stats {
		f.MustAppend(s.Row())
	}
	return f
}
