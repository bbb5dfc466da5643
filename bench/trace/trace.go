// Package trace records what happened to each request inside a server —
// where it waited and for what, where it ran, its steps — and, per
// process, who held the GIL and when the event loop was blocked. Each fact
// is an Event: one interval of one phase on one lane (a worker process's
// thread). The package is a leaf: the Python model (bench/pymodel) and the
// strategy servers (bench/strategy) record into a Recorder; bench turns the
// events into a frame; WriteChrome exports them as Chrome trace event JSON
// for Perfetto UI and chrome://tracing.
//
// A nil *Recorder records nothing and costs a nil check, so tracing is off
// until a server is given a Recorder.
package trace

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Phase names an interval. The names are the event names of the Chrome
// export and the phase column of the trace frame.
type Phase = string

// Per-request phases, in the order a request usually meets them.
const (
	// Queue is the wait for the event loop to start the request's
	// callback (uvicorn: every request passes through the loop).
	Queue Phase = "queue"
	// LimiterWait is the wait for a thread-limiter token: AnyIO's 40
	// tokens for def handlers and run_in_threadpool, or a Go semaphore.
	LimiterWait Phase = "limiter_wait"
	// ExecutorWait is the wait for a thread of asyncio's default executor
	// (to_thread) or of the app's ThreadPoolExecutor.
	ExecutorWait Phase = "executor_wait"
	// ThreadWait is a WSGI request's wait for one of the worker's threads.
	ThreadWait Phase = "thread_wait"
	// Handler spans the handler from its start to its return, on the
	// thread (or, for an async def, the task) that ran it.
	Handler Phase = "handler"
	// GILWait is a thread waiting to take the GIL.
	GILWait Phase = "gil_wait"
	// CPU is CPU work holding the GIL (for Go-native servers: CPU work).
	CPU Phase = "cpu"
	// CPUNoGIL is C-extension work that released the GIL (Pillow).
	CPUNoGIL Phase = "cpu_nogil"
	// IO is an I/O wait (sleep, a database call, a downstream request).
	IO Phase = "io"
	// Write is a step's write system calls (a print per line).
	Write Phase = "write"
	// Pool is a step sent to a process pool: pickling, the pipe, the work
	// in the worker process and the way back.
	Pool Phase = "pool"
	// Respond is from the handler's return until the response is written.
	Respond Phase = "respond"
	// Framework is the server stack's own CPU for a request (parsing,
	// routing, serialising, thread hand-offs), holding the GIL: a model
	// runtime's pymodel.FrameworkCost.
	Framework Phase = "framework"
)

// Per-process phases.
const (
	// GIL is an interval a thread held the GIL; Thread names the holder.
	GIL Phase = "gil"
	// LoopBlocked is an event-loop callback running: nothing else could
	// run on the loop. Request is the callback's request.
	LoopBlocked Phase = "loop_blocked"
	// Accept is a prefork worker's accept loop taking a connection off
	// the shared listening socket (its Python work, done holding the
	// worker's GIL).
	Accept Phase = "accept"
)

// RequestPhases are the phases drawn in a request waterfall, in drawing
// (legend) order; LanePhases those drawn in per-thread lanes.
var (
	RequestPhases = []Phase{Queue, LimiterWait, ExecutorWait, ThreadWait, GILWait, Framework, CPU, CPUNoGIL, IO, Write, Pool, Respond}
	LanePhases    = []Phase{GIL, GILWait, LoopBlocked, CPUNoGIL, IO, Write, Pool, Accept}
)

// Waits reports whether a phase is a request waiting for something.
func Waits(p Phase) bool {
	switch p {
	case Queue, LimiterWait, ExecutorWait, ThreadWait, GILWait:
		return true
	}
	return false
}

// Event is one interval. Times are Unix nanoseconds (one clock for every
// process on the machine, so worker processes' events line up).
type Event struct {
	// Request is the request's number within its process (1, 2, ...), or
	// 0 for a process-level interval with no request.
	Request int64 `json:"r"`
	// Worker is the worker process (0 for a single-process server).
	Worker int `json:"w"`
	// Thread is the lane: "loop", "anyio-3", "gthread-2", "goroutines", ...
	Thread string `json:"t"`
	Phase  Phase  `json:"p"`
	Start  int64  `json:"s"`
	End    int64  `json:"e"`
}

// Duration is End - Start.
func (e Event) Duration() time.Duration { return time.Duration(e.End - e.Start) }

// DefaultCap is the number of events a Recorder keeps unless told.
const DefaultCap = 200_000

// Recorder keeps events up to a cap and counts those dropped beyond it. It
// is safe for concurrent use; a nil *Recorder records nothing. Events are
// kept in shards by request number, each with its share of the cap, so a
// full recorder may hold slightly fewer than cap events.
type Recorder struct {
	cap     int
	nextReq atomic.Int64
	shards  [shards]shard

	// Lane and phase names are interned, so stored events hold no
	// pointers and a full recorder costs the garbage collector nothing.
	ids   sync.Map // string -> uint16
	namMu sync.Mutex
	names []string
	// cache finds a name by the address of its bytes: lanes and phases
	// come from a few fixed strings, so this almost always hits.
	cache [256]atomic.Pointer[cached]
}

// cached is a name seen before: its bytes' address and length, and id. p is
// a real pointer, so the bytes stay alive while cached and their address
// cannot be reused by another string: same address and length means the
// same name.
type cached struct {
	p  *byte
	n  int
	id uint16
}

// packed is an Event as stored: no pointers.
type packed struct {
	req, start, end int64
	worker          int32
	thread, phase   uint16
}

// id interns a name.
func (r *Recorder) id(s string) uint16 {
	if len(s) == 0 {
		return 0
	}
	p := unsafe.StringData(s)
	slot := &r.cache[(uintptr(unsafe.Pointer(p))>>3)%uintptr(len(r.cache))]
	if c := slot.Load(); c != nil && c.p == p && c.n == len(s) {
		return c.id
	}
	id := r.lookup(s)
	slot.Store(&cached{p: p, n: len(s), id: id})
	return id
}

// lookup finds or interns a name without the cache.
func (r *Recorder) lookup(s string) uint16 {
	switch s {
	case Queue:
		return 1
	case LimiterWait:
		return 2
	case Handler:
		return 3
	case GIL:
		return 4
	case LoopBlocked:
		return 5
	case Respond:
		return 6
	case GILWait:
		return 7
	case CPU:
		return 8
	case IO:
		return 9
	case "loop":
		return 10
	case "loop queue":
		return 11
	case "asyncio tasks":
		return 12
	case "responses":
		return 13
	case "goroutines":
		return 14
	case "anyio wait":
		return 15
	}
	if v, ok := r.ids.Load(s); ok {
		return v.(uint16)
	}
	r.namMu.Lock()
	defer r.namMu.Unlock()
	if v, ok := r.ids.Load(s); ok {
		return v.(uint16)
	}
	if len(r.names) >= 1<<16-1 {
		return 0 // "" : too many distinct names
	}
	r.names = append(r.names, s)
	id := uint16(len(r.names) - 1)
	r.ids.Store(s, id)
	return id
}

// shards spreads concurrent requests' events over locks (by request
// number), so a server's goroutines seldom wait for each other to record.
const shards = 16

type shard struct {
	mu      sync.Mutex
	cap     int
	chunks  [][]packed // full chunks of chunkSize, then the one being filled
	n       int
	dropped int64
	_       [64]byte // keep shards on their own cache lines
}

// chunkSize is the number of events per allocation: events are never
// copied while recording, whatever the cap.
const chunkSize = 4096

// NewRecorder returns a recorder keeping at most cap events (DefaultCap if
// cap <= 0).
func NewRecorder(cap int) *Recorder {
	if cap <= 0 {
		cap = DefaultCap
	}
	// The ids id finds by switch (the phases and lanes of every request),
	// in its order.
	r := &Recorder{cap: cap, names: []string{"", Queue, LimiterWait, Handler, GIL, LoopBlocked, Respond, GILWait, CPU, IO,
		"loop", "loop queue", "asyncio tasks", "responses", "goroutines", "anyio wait"}}
	for i, n := range r.names {
		r.ids.Store(n, uint16(i))
	}
	for i := range r.shards {
		// The cap split over the shards; the first ones take the remainder.
		r.shards[i].cap = cap / shards
		if i < cap%shards {
			r.shards[i].cap++
		}
	}
	return r
}

// On reports whether r records.
func (r *Recorder) On() bool { return r != nil }

// NextRequest numbers a new request (1, 2, ...); 0 on a nil recorder.
func (r *Recorder) NextRequest() int64 {
	if r == nil {
		return 0
	}
	return r.nextReq.Add(1)
}

// Add records e, or counts it as dropped when the recorder is full. Events
// with End before Start are recorded with End = Start.
func (r *Recorder) Add(e Event) {
	if r == nil {
		return
	}
	if e.End < e.Start {
		e.End = e.Start
	}
	p := packed{req: e.Request, start: e.Start, end: e.End, worker: int32(e.Worker), thread: r.id(e.Thread), phase: r.id(e.Phase)}
	sh := &r.shards[uint64(e.Request)%shards]
	sh.mu.Lock()
	if sh.n >= sh.cap {
		sh.dropped++
		sh.mu.Unlock()
		return
	}
	last := len(sh.chunks) - 1
	if last < 0 || len(sh.chunks[last]) == cap(sh.chunks[last]) {
		sh.chunks = append(sh.chunks, make([]packed, 0, min(chunkSize, sh.cap-sh.n)))
		last++
	}
	sh.chunks[last] = append(sh.chunks[last], p)
	sh.n++
	sh.mu.Unlock()
}

// Span records the interval [start, now] and returns now, for chaining
// phases: start = rec.Span(req, w, thread, phase, start).
func (r *Recorder) Span(req int64, worker int, thread string, p Phase, start time.Time) time.Time {
	now := time.Now()
	if r != nil {
		r.Add(Event{Request: req, Worker: worker, Thread: thread, Phase: p, Start: start.UnixNano(), End: now.UnixNano()})
	}
	return now
}

// Snapshot is a copy of what a recorder holds.
type Snapshot struct {
	Events  []Event `json:"events"`
	Dropped int64   `json:"dropped"`
	Cap     int     `json:"cap"`
}

// Snapshot copies the events so far, sorted by start time.
func (r *Recorder) Snapshot() Snapshot {
	if r == nil {
		return Snapshot{}
	}
	s := Snapshot{Cap: r.cap}
	r.namMu.Lock()
	names := append([]string(nil), r.names...)
	r.namMu.Unlock()
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		for _, c := range sh.chunks {
			for _, p := range c {
				s.Events = append(s.Events, Event{Request: p.req, Worker: int(p.worker), Thread: names[p.thread], Phase: names[p.phase], Start: p.start, End: p.end})
			}
		}
		s.Dropped += sh.dropped
		sh.mu.Unlock()
	}
	Sort(s.Events)
	return s
}

// Sort orders events by start, longer first at equal starts (so an
// enclosing interval comes before what it encloses), then by request.
func Sort(evs []Event) {
	sort.SliceStable(evs, func(i, j int) bool {
		a, b := evs[i], evs[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if a.End != b.End {
			return a.End > b.End
		}
		return a.Request < b.Request
	})
}

// Merge joins snapshots (a prefork server's workers) into one: events
// sorted, dropped counts added.
func Merge(ss ...Snapshot) Snapshot {
	var out Snapshot
	for _, s := range ss {
		out.Events = append(out.Events, s.Events...)
		out.Dropped += s.Dropped
		out.Cap += s.Cap
	}
	Sort(out.Events)
	return out
}
