package eval

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// syncMarker is written into an output pipe by sync; the forwarder strips it
// and signals, proving every byte written before it has been forwarded.
const syncMarker = "\x00\x1bconclab:sync\x1b\x00"

// forwarder copies what is written to the write end of a pipe to dst as it
// arrives, so output streams while a cell runs.
type forwarder struct {
	r, w   *os.File
	dst    io.Writer
	mu     sync.Mutex // serialises sync calls
	synced chan struct{}
	done   chan struct{}
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
	buf := make([]byte, 32<<10)
	var pending []byte
	for {
		n, err := f.r.Read(buf)
		if n > 0 {
			data := append(pending, buf[:n]...)
			pending = nil
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
			// Keep a trailing partial marker for the next read.
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
				pending = append([]byte(nil), data[len(data)-keep:]...)
			}
		}
		if err != nil {
			if len(pending) > 0 {
				_, _ = f.dst.Write(pending)
			}
			return
		}
	}
}

// sync waits until everything written to the pipe so far has been passed to
// dst, or timeout elapses.
func (f *forwarder) sync(timeout time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
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
