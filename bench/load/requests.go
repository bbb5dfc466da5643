package load

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// A Request is one request of a run, as Options.Requests receives it (the
// raw results; conclab load --out writes them as CSV or SQLite rows, see
// bench/load/requestlog).
type Request struct {
	// Intended is when the request was due: in an open model its time in
	// the schedule, otherwise when it was sent. Start is when its first
	// byte went out (after the dial, when it opened a connection).
	Intended, Start time.Time
	// Latency is from Intended to the response's last byte, the figure
	// the histograms hold; Uncorrected is from Start. Both are 0 without
	// a response.
	Latency, Uncorrected time.Duration
	// Status is the response's status code, 0 without a response.
	Status  int
	Outcome metrics.Outcome
	// BytesIn and BytesOut are the bytes received and sent (for HTTP/2,
	// the body's).
	BytesIn, BytesOut int64
	// Err is why the request failed, nil when it got a response.
	Err error
	// Worker is the VU (closed models) or sender (open models) that sent
	// it, from 0; Conn the connection that carried it, numbered from 1 in
	// the order the run opened them (0: none was opened).
	Worker int
	Conn   int64
}

// The raw results travel in batches: each worker fills its own, hands it
// to the writer goroutine when full (or when it stops) and takes an empty
// one. Memory is bounded by the batches in existence: one per worker, the
// queue's and the writer's.
const (
	requestBatch = 64
	requestQueue = 64
)

type requestLog struct {
	sink    func([]Request) error
	queue   chan []Request
	free    chan []Request
	done    chan struct{}
	err     error        // the sink's first error; read after done
	waited  atomic.Int64 // ns workers spent waiting for the writer
	onError func(string) // stops the run
}

func newRequestLog(sink func([]Request) error, onError func(string)) *requestLog {
	l := &requestLog{sink: sink, queue: make(chan []Request, requestQueue), free: make(chan []Request, requestQueue+8),
		done: make(chan struct{}), onError: onError}
	go l.write()
	return l
}

func (l *requestLog) write() {
	defer close(l.done)
	for b := range l.queue {
		if l.err == nil {
			if err := l.sink(b); err != nil {
				l.err = fmt.Errorf("load: raw results: %w", err)
				l.onError(fmt.Sprintf("stopped: writing the raw results failed: %v", err))
			}
		}
		select {
		case l.free <- b[:0]:
		default:
		}
	}
}

// batch returns an empty batch.
func (l *requestLog) batch() []Request {
	select {
	case b := <-l.free:
		return b
	default:
		return make([]Request, 0, requestBatch)
	}
}

// submit hands b to the writer, waiting when it is behind, and returns an
// empty batch.
func (l *requestLog) submit(b []Request) []Request {
	select {
	case l.queue <- b:
	default:
		t := time.Now()
		l.queue <- b
		l.waited.Add(int64(time.Since(t)))
	}
	return l.batch()
}

// close waits for the writer to finish every batch submitted; call it
// once every worker has stopped.
func (l *requestLog) close() error {
	close(l.queue)
	<-l.done
	return l.err
}
