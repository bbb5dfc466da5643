package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// syncMarker is written into an output pipe by sync; the forwarder strips it
// and signals, proving every byte written before it has been forwarded.
const syncMarker = "\x00\x1bconclab:sync\x1b\x00"

// forwarder copies what is written to the write end of a pipe to dst as it
// arrives, so output streams while a cell runs.
//
// sync proves that everything written so far has reached dst. Its fast path
// needs no round trip: the forwarder raises inflight before it takes bytes
// out of the pipe and lowers it after passing them on, so when the pipe is
// empty (FIONREAD) and nothing is in flight, nothing is pending. Otherwise a
// marker is written and sync waits for the forwarder to reach it.
type forwarder struct {
	r, w     *os.File
	co       *coalescer
	budget   *budget
	mu       sync.Mutex // serialises sync calls
	synced   chan struct{}
	done     chan struct{}
	inflight atomic.Int32
	pending  []byte // a trailing partial marker, kept for the next read
}

// MaxStreamBytes bounds the stdout and stderr text a cell passes on, the
// two streams together (16 MiB, the cap of the notebook runner's record).
// Beyond it the cell's output is read and dropped, and one notice says so
// on stderr; the budget starts afresh with each cell. Output of goroutines
// after their cell ended counts for the last cell.
const MaxStreamBytes = 16 << 20

// coalesceBytes and coalesceDelay bound how output is batched: the bytes
// waiting are passed on when they reach coalesceBytes, coalesceDelay after
// the first of them arrived, or at a sync.
const (
	coalesceBytes = 64 << 10
	coalesceDelay = 20 * time.Millisecond
)

func newForwarder(dst io.Writer, b *budget) (*forwarder, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	if dst == nil {
		dst = io.Discard
	}
	f := &forwarder{r: r, w: w, co: &coalescer{dst: dst}, budget: b,
		synced: make(chan struct{}, 1), done: make(chan struct{})}
	go f.loop()
	return f, nil
}

// budget is the per-cell output allowance shared by a session's stdout and
// stderr forwarders.
type budget struct {
	mu      sync.Mutex
	max     int
	used    int
	noticed bool
	notice  func() // writes the truncation notice; set once both forwarders exist
}

// reset starts a new cell's budget.
func (b *budget) reset() {
	b.mu.Lock()
	b.used, b.noticed = 0, false
	b.mu.Unlock()
}

// take returns how many of n bytes may pass, and whether the caller must
// write the notice (once per cell, when output is first dropped).
func (b *budget) take(n int) (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	allowed := min(n, max(b.max-b.used, 0))
	b.used += allowed
	if allowed < n && !b.noticed {
		b.noticed = true
		return allowed, true
	}
	return allowed, false
}

// coalescer batches writes to dst (see coalesceBytes). It holds at most
// coalesceBytes plus one write.
type coalescer struct {
	mu    sync.Mutex
	dst   io.Writer
	buf   []byte
	timer *time.Timer
}

func (c *coalescer) write(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf = append(c.buf, p...)
	if len(c.buf) >= coalesceBytes {
		c.flushLocked()
		return
	}
	if c.timer == nil {
		c.timer = time.AfterFunc(coalesceDelay, c.flush)
	}
}

func (c *coalescer) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
}

func (c *coalescer) flushLocked() {
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if len(c.buf) == 0 {
		return
	}
	_, _ = c.dst.Write(c.buf)
	if cap(c.buf) > 4*coalesceBytes {
		c.buf = nil
	} else {
		c.buf = c.buf[:0]
	}
}

func (c *coalescer) empty() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.buf) == 0
}

// emit passes p on within the cell's budget.
func (f *forwarder) emit(p []byte) {
	n, notice := len(p), false
	if f.budget != nil {
		n, notice = f.budget.take(len(p))
	}
	if n > 0 {
		f.co.write(p[:n])
	}
	if notice && f.budget.notice != nil {
		f.budget.notice()
	}
}

// truncationNotice is written on stderr when a cell's output is cut.
func truncationNotice() string {
	return fmt.Sprintf("\n[conclab: output of this cell truncated after %d MiB; the rest of it is dropped]\n", MaxStreamBytes>>20)
}

func (f *forwarder) loop() {
	defer close(f.done)
	rc, err := f.r.SyscallConn()
	if err != nil || !haveRawRead {
		f.copyLoop()
		return
	}
	buf := make([]byte, 32<<10)
	for {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			f.inflight.Store(1)
			n, rerr = rawRead(fd, buf)
			if rerr == syscall.EAGAIN {
				f.inflight.Store(0)
				return false // wait until readable
			}
			if rerr == syscall.EINTR {
				f.inflight.Store(0)
				return false
			}
			return true
		})
		if n > 0 {
			f.consume(buf[:n])
		}
		f.inflight.Store(0)
		if err != nil || rerr != nil || n == 0 {
			f.finish()
			return
		}
	}
}

// copyLoop is the portable fallback (no raw fd access): plain reads.
func (f *forwarder) copyLoop() {
	buf := make([]byte, 32<<10)
	for {
		f.inflight.Store(1)
		n, err := f.r.Read(buf)
		if n > 0 {
			f.consume(buf[:n])
		}
		if err != nil {
			f.finish()
			return
		}
	}
}

func (f *forwarder) finish() {
	if len(f.pending) > 0 {
		f.emit(f.pending)
		f.pending = nil
	}
	f.co.flush()
}

// consume passes p on to dst, stripping sync markers and signalling them.
func (f *forwarder) consume(p []byte) {
	data := p
	if len(f.pending) > 0 {
		data = append(f.pending, p...)
		f.pending = nil
	}
	for {
		i := bytes.Index(data, []byte(syncMarker))
		if i < 0 {
			break
		}
		if i > 0 {
			f.emit(data[:i])
		}
		data = data[i+len(syncMarker):]
		f.co.flush()
		select {
		case f.synced <- struct{}{}:
		default:
		}
	}
	keep := 0
	for k := min(len(syncMarker)-1, len(data)); k > 0; k-- {
		if bytes.HasSuffix(data, []byte(syncMarker[:k])) {
			keep = k
			break
		}
	}
	if out := data[:len(data)-keep]; len(out) > 0 {
		f.emit(out)
	}
	if keep > 0 {
		f.pending = append([]byte(nil), data[len(data)-keep:]...)
	}
}

// idle reports whether everything written so far has been passed on: the
// pipe is empty and the forwarder holds nothing. The pipe is checked first:
// bytes leave it only after inflight is raised.
func (f *forwarder) idle() bool {
	rc, err := f.r.SyscallConn()
	if err != nil {
		return false
	}
	n := -1
	if err := rc.Control(func(fd uintptr) { n = pendingBytes(fd) }); err != nil || n != 0 {
		return false
	}
	return f.inflight.Load() == 0 && f.co.empty()
}

// sync waits until everything written to the pipe so far has been passed to
// dst, or timeout elapses.
func (f *forwarder) sync(timeout time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.idle() {
		return nil
	}
	select { // drop a stale signal
	case <-f.synced:
	default:
	}
	if _, err := f.w.Write([]byte(syncMarker)); err != nil {
		return err
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-f.synced:
		return nil
	case <-f.done:
		return errors.New("output forwarder stopped")
	case <-t.C:
		return errors.New("timed out flushing cell output")
	}
}

// close closes the write end and waits for the remaining output.
func (f *forwarder) close() {
	_ = f.w.Close()
	select {
	case <-f.done:
	case <-time.After(2 * time.Second):
	}
	_ = f.r.Close()
}

// lineReader is the cell's stdin when Options.Input is set: each line is
// requested from the front end when a read finds the buffer empty.
type lineReader struct {
	mu    sync.Mutex
	buf   []byte
	input func(prompt string, password bool) (string, error)
}

func (l *lineReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) == 0 {
		s, err := l.input("", false)
		if err != nil {
			return 0, err
		}
		l.buf = append(l.buf, s...)
		l.buf = append(l.buf, '\n')
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}
