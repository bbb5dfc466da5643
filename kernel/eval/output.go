package eval

import (
	"bytes"
	"errors"
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
	dst      io.Writer
	mu       sync.Mutex // serialises sync calls
	synced   chan struct{}
	done     chan struct{}
	inflight atomic.Int32
	pending  []byte // a trailing partial marker, kept for the next read
}

func newForwarder(dst io.Writer) (*forwarder, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	if dst == nil {
		dst = io.Discard
	}
	f := &forwarder{r: r, w: w, dst: dst, synced: make(chan struct{}, 1), done: make(chan struct{})}
	go f.loop()
	return f, nil
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
		_, _ = f.dst.Write(f.pending)
		f.pending = nil
	}
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
			_, _ = f.dst.Write(data[:i])
		}
		data = data[i+len(syncMarker):]
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
		_, _ = f.dst.Write(out)
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
	return f.inflight.Load() == 0
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
