package pymodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/conclab/conclab/bench/trace"
)

// Environment variable that puts a re-executed binary in worker mode.
const workerEnv = "CONCLAB_PYMODEL_WORKER"

// workerReadyTimeout bounds how long a worker may take to start.
const workerReadyTimeout = 15 * time.Second

// PoolConfig configures a ProcessPool.
type PoolConfig struct {
	// Workers is the number of worker processes; it must be positive.
	Workers int
	// Command overrides the worker command line (default: this executable
	// with CONCLAB_PYMODEL_WORKER=pool). For tests of failure paths.
	Command []string
}

// PoolResult is what a worker reports for one step.
type PoolResult struct {
	PID     int           // the worker that ran it
	CPU     time.Duration // CPU time the step used in the worker
	BytesIn int           // payload bytes sent to the worker
	// BytesOut is the result bytes sent back.
	BytesOut int
}

// ProcessPool is a ProcessPoolExecutor: real worker processes, each the
// running binary re-executed in worker mode, fed one step at a time through
// pipes with the step's payload serialised, so the IPC cost is real. A worker
// that dies fails the step it was running and is replaced. Create it with
// NewProcessPool; the caller must call Close. Safe for concurrent use.
type ProcessPool struct {
	cfg  PoolConfig
	idle chan *procWorker

	mu      sync.Mutex
	closed  bool
	live    map[int]*procWorker
	exited  childUsage
	wg      sync.WaitGroup
	stopped chan struct{}

	tasks    atomic.Int64
	failures atomic.Int64
	replaced atomic.Int64
	bytesIO  atomic.Int64
}

type procWorker struct {
	cmd    *exec.Cmd
	pid    int
	lane   string   // "pool worker N", N in order of start (traces)
	toW    *os.File // parent's write end
	fromW  *os.File // parent's read end
	r      *bufio.Reader
	stderr *tailBuffer
	waited chan struct{}
	err    error // from Wait
}

// NewProcessPool starts cfg.Workers worker processes and waits until each is
// ready. If any cannot start, the others are stopped and an error naming the
// problem (with the worker's stderr) is returned.
func NewProcessPool(ctx context.Context, cfg PoolConfig) (*ProcessPool, error) {
	if cfg.Workers <= 0 {
		return nil, fmt.Errorf("pymodel: process pool needs a positive number of workers, got %d", cfg.Workers)
	}
	p := &ProcessPool{cfg: cfg, idle: make(chan *procWorker, cfg.Workers), live: map[int]*procWorker{}, stopped: make(chan struct{})}
	for i := 0; i < cfg.Workers; i++ {
		w, err := p.spawn(ctx)
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("pymodel: process pool worker %d of %d: %w", i+1, cfg.Workers, err)
		}
		p.idle <- w
	}
	return p, nil
}

// workerCommand is the command line of a worker in the given mode.
func workerCommand(override []string, mode string) (*exec.Cmd, error) {
	var cmd *exec.Cmd
	if len(override) > 0 {
		cmd = exec.Command(override[0], override[1:]...)
	} else {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("locating this executable: %w", err)
		}
		// -test.run=^$ keeps a test binary without the worker hook from
		// running its tests; conclab ignores it in worker mode.
		cmd = exec.Command(exe, "-test.run=^$")
	}
	cmd.Env = append(os.Environ(), workerEnv+"="+mode)
	cmd.SysProcAttr = workerAttr()
	return cmd, nil
}

func (p *ProcessPool) spawn(ctx context.Context) (*procWorker, error) {
	cmd, err := workerCommand(p.cfg.Command, "pool")
	if err != nil {
		return nil, err
	}
	childIn, toW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromW, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		toW.Close()
		return nil, err
	}
	w := &procWorker{lane: fmt.Sprintf("pool worker %d", poolWorkers.Add(1)), cmd: cmd, toW: toW, fromW: fromW, r: bufio.NewReaderSize(fromW, 64<<10), stderr: &tailBuffer{max: 4096}, waited: make(chan struct{})}
	cmd.ExtraFiles = []*os.File{childIn, childOut}
	cmd.Stderr = w.stderr
	err = cmd.Start()
	childIn.Close()
	childOut.Close()
	if err != nil {
		toW.Close()
		fromW.Close()
		return nil, fmt.Errorf("starting worker %q: %w", cmd.Path, err)
	}
	w.pid = cmd.Process.Pid
	p.mu.Lock()
	p.live[w.pid] = w
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		w.err = cmd.Wait()
		p.mu.Lock()
		delete(p.live, w.pid)
		p.exited.add(cmd.ProcessState)
		p.mu.Unlock()
		fromW.Close() // unblocks a reader if the worker died
		close(w.waited)
	}()
	// Wait for the ready frame, bounded in time.
	type ready struct {
		hdr frameHeader
		err error
	}
	rc := make(chan ready, 1)
	go func() {
		hdr, _, err := readFrame(w.r, false)
		rc <- ready{hdr, err}
	}()
	tm := time.NewTimer(workerReadyTimeout)
	defer tm.Stop()
	var got ready
	received := false
	select {
	case got = <-rc:
		received = true
	case <-tm.C:
		got.err = fmt.Errorf("not ready after %v", workerReadyTimeout)
	case <-ctx.Done():
		got.err = ctx.Err()
	}
	if got.err == nil && !got.hdr.Ready {
		got.err = errors.New("unexpected first message")
	}
	if got.err != nil {
		w.kill()
		<-w.waited
		if !received {
			<-rc
		}
		msg := strings.TrimSpace(w.stderr.String())
		if w.err != nil {
			got.err = fmt.Errorf("%v (exit: %v)", got.err, w.err)
		}
		if msg != "" {
			return nil, fmt.Errorf("worker pid %d did not start: %w; stderr: %s", w.pid, got.err, msg)
		}
		return nil, fmt.Errorf("worker pid %d did not start: %w", w.pid, got.err)
	}
	return w, nil
}

func (w *procWorker) kill() {
	w.toW.Close()
	if w.cmd.Process != nil {
		w.cmd.Process.Kill()
	}
}

// Run sends s (and s.Payload bytes) to an idle worker, waiting for one in
// FIFO order, and waits for its result. If the worker dies, Run fails and the
// worker is replaced. Cancelling ctx kills the worker running s.
func (p *ProcessPool) Run(ctx context.Context, s Step) (PoolResult, error) {
	return p.RunTraced(ctx, s, nil, 0, 0)
}

// poolWorkers numbers pool worker processes for their trace lanes.
var poolWorkers atomic.Int64

// RunTraced is Run recording, when rec is not nil, the wait for an idle
// worker process (executor_wait, lane "process pool wait") and the step's
// round trip on the worker that ran it (pool, lane "pool worker N"), for
// request req of worker process worker.
func (p *ProcessPool) RunTraced(ctx context.Context, s Step, rec *trace.Recorder, worker int, req int64) (PoolResult, error) {
	if !s.Portable() {
		return PoolResult{}, fmt.Errorf("pymodel: step %s is a Go function of this process and cannot run in a process pool", s.Label())
	}
	if err := s.Validate(); err != nil {
		return PoolResult{}, err
	}
	var w *procWorker
	var t0 time.Time
	if rec != nil {
		t0 = time.Now()
	}
	select {
	case w = <-p.idle:
	case <-ctx.Done():
		return PoolResult{}, ctx.Err()
	case <-p.stopped:
		return PoolResult{}, errors.New("pymodel: process pool closed")
	}
	if rec != nil {
		t0 = rec.Span(req, worker, ProcessPoolLane+" wait", trace.ExecutorWait, t0)
	}
	p.tasks.Add(1)
	res, stepErr, err := p.exchange(ctx, w, s)
	if rec != nil {
		// Ended before the worker goes back to the idle ones: the next
		// run's span on it starts after this one's, so that a lane's
		// spans never overlap (on a busy machine a deferred end came
		// after the next run had begun).
		rec.Span(req, worker, w.lane, trace.Pool, t0)
	}
	if err == nil {
		p.idle <- w
		return res, stepErr
	}
	p.failures.Add(1)
	w.kill()
	<-w.waited
	p.replace()
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, fmt.Errorf("pymodel: process pool worker pid %d died running step %s: %w", w.pid, s.Label(), err)
}

// replace starts a worker in place of a dead one, unless the pool is closed.
func (p *ProcessPool) replace() {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return
	}
	nw, err := p.spawn(context.Background())
	if err != nil {
		// The pool shrinks; Run still works while any worker remains.
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		nw.kill()
		return
	}
	p.mu.Unlock()
	p.replaced.Add(1)
	p.idle <- nw
}

// exchange sends s to w and reads the result. stepErr is the step's own
// failure (the worker is fine); err means the worker is unusable.
func (p *ProcessPool) exchange(ctx context.Context, w *procWorker, s Step) (res PoolResult, stepErr, err error) {
	stop := context.AfterFunc(ctx, w.kill)
	defer stop()
	hdr, err := json.Marshal(frameHeader{Step: &s})
	if err != nil {
		return PoolResult{}, nil, err
	}
	payload := makePayload(s.Payload)
	if k, ok := registered(s.Kind); ok && k.payload != nil {
		if payload, err = k.payload(ctx, s); err != nil {
			return PoolResult{}, fmt.Errorf("pymodel: step %s: payload: %w", s.Label(), err), nil
		}
	}
	if err := writeFrame(w.toW, hdr, payload); err != nil {
		return PoolResult{}, nil, fmt.Errorf("sending step: %w", err)
	}
	rh, out, err := readFrame(w.r, true)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed) {
			err = errors.New("pipe closed (worker exited)")
		}
		return PoolResult{}, nil, err
	}
	p.bytesIO.Add(int64(len(payload) + len(out)))
	res = PoolResult{PID: w.pid, CPU: time.Duration(rh.CPUNs), BytesIn: len(payload), BytesOut: len(out)}
	if rh.Err != "" {
		return res, fmt.Errorf("pymodel: step %s failed in worker pid %d: %s", s.Label(), w.pid, rh.Err), nil
	}
	return res, nil, nil
}

// PIDs returns the process ids of the live workers.
func (p *ProcessPool) PIDs() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]int, 0, len(p.live))
	for pid := range p.live {
		out = append(out, pid)
	}
	return out
}

// PoolStats are cumulative counters of a process pool.
type PoolStats struct {
	Workers  int     // live workers now
	Tasks    int64   // steps sent
	Failures int64   // steps whose worker died or was killed
	Replaced int64   // workers started in place of dead ones
	IPCBytes int64   // payload bytes through the pipes, both ways
	CPU      float64 // CPU seconds of all workers, live and exited
	PeakRSS  float64 // sum of the workers' peak RSS, MB
}

// Stats returns the pool's counters, reading live workers' CPU and peak RSS
// from /proc.
func (p *ProcessPool) Stats() PoolStats {
	if p == nil {
		return PoolStats{}
	}
	p.mu.Lock()
	u := p.exited
	for pid := range p.live {
		u.addPID(pid)
	}
	n := len(p.live)
	p.mu.Unlock()
	return PoolStats{Workers: n, Tasks: p.tasks.Load(), Failures: p.failures.Load(), Replaced: p.replaced.Load(), IPCBytes: p.bytesIO.Load(), CPU: u.cpu, PeakRSS: u.rssMB}
}

// Close stops every worker (closing its pipe, then killing it) and waits
// for them to exit. It is safe to call more than once.
func (p *ProcessPool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.stopped)
	ws := make([]*procWorker, 0, len(p.live))
	for _, w := range p.live {
		ws = append(ws, w)
	}
	p.mu.Unlock()
	for _, w := range ws {
		w.toW.Close() // EOF: a worker exits by itself
	}
	for _, w := range ws {
		select {
		case <-w.waited:
		case <-time.After(2 * time.Second):
			w.kill()
		}
	}
	p.wg.Wait()
	return nil
}

// frameHeader is the JSON header of a pipe message.
type frameHeader struct {
	Ready bool   `json:"ready,omitempty"`
	PID   int    `json:"pid,omitempty"`
	Step  *Step  `json:"step,omitempty"`
	Err   string `json:"err,omitempty"`
	CPUNs int64  `json:"cpu_ns,omitempty"`
}

// maxFrame bounds a frame's parts read from a pipe.
const maxFrame = 1 << 30

// writeFrame writes [len hdr][hdr][len payload][payload].
func writeFrame(w io.Writer, hdr, payload []byte) error {
	var n [8]byte
	binary.BigEndian.PutUint32(n[:4], uint32(len(hdr)))
	binary.BigEndian.PutUint32(n[4:], uint32(len(payload)))
	buf := make([]byte, 0, 8+len(hdr)+len(payload))
	buf = append(buf, n[:4]...)
	buf = append(buf, hdr...)
	buf = append(buf, n[4:]...)
	buf = append(buf, payload...)
	_, err := w.Write(buf)
	return err
}

// readFrame reads one frame; withPayload false discards the payload.
func readFrame(r *bufio.Reader, withPayload bool) (frameHeader, []byte, error) {
	var hdr frameHeader
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return hdr, nil, err
	}
	hl := binary.BigEndian.Uint32(n[:])
	if hl > maxFrame {
		return hdr, nil, fmt.Errorf("frame header of %d bytes is too large", hl)
	}
	hb := make([]byte, hl)
	if _, err := io.ReadFull(r, hb); err != nil {
		return hdr, nil, err
	}
	if err := json.Unmarshal(hb, &hdr); err != nil {
		return hdr, nil, fmt.Errorf("bad frame header: %w", err)
	}
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return hdr, nil, err
	}
	pl := binary.BigEndian.Uint32(n[:])
	if pl > maxFrame {
		return hdr, nil, fmt.Errorf("frame payload of %d bytes is too large", pl)
	}
	payload := make([]byte, pl)
	if _, err := io.ReadFull(r, payload); err != nil {
		return hdr, nil, err
	}
	if !withPayload {
		payload = nil
	}
	return hdr, payload, nil
}

// makePayload returns n deterministic bytes standing for pickled arguments.
func makePayload(n int) []byte {
	if n <= 0 {
		return nil
	}
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// tailBuffer keeps the last max bytes written to it; safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if t.b.Len() > t.max {
		rest := t.b.Bytes()[t.b.Len()-t.max:]
		nb := append([]byte(nil), rest...)
		t.b.Reset()
		t.b.Write(nb)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

// childUsage sums CPU seconds and peak RSS (MB) of child processes.
type childUsage struct {
	cpu   float64
	rssMB float64
}

func (u *childUsage) add(ps *os.ProcessState) {
	if ps == nil {
		return
	}
	u.cpu += (ps.UserTime() + ps.SystemTime()).Seconds()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		u.rssMB += float64(ru.Maxrss) / 1024 // KB on Linux
	}
}

// addPID adds a live process's usage from /proc.
func (u *childUsage) addPID(pid int) {
	cpu, rss := procUsage(pid)
	u.cpu += cpu
	u.rssMB += rss
}

// clockTicks is USER_HZ, 100 on every Linux the lab runs on.
const clockTicks = 100

// procUsage reads CPU seconds and peak RSS (MB) of pid from /proc; zeros
// where /proc is unavailable.
func procUsage(pid int) (cpu, rssMB float64) {
	p := "/proc/" + strconv.Itoa(pid)
	if pid == 0 {
		p = "/proc/self"
	}
	if b, err := os.ReadFile(p + "/stat"); err == nil {
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			f := strings.Fields(s[i+1:])
			// fields after ")": state(0) ... utime(11) stime(12)
			if len(f) > 12 {
				ut, _ := strconv.ParseFloat(f[11], 64)
				st, _ := strconv.ParseFloat(f[12], 64)
				cpu = (ut + st) / clockTicks
			}
		}
	}
	rssMB = peakRSS(p)
	return cpu, rssMB
}

// peakRSS reads VmHWM (MB) from a /proc/PID directory.
func peakRSS(dir string) float64 {
	b, err := os.ReadFile(dir + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return kb / 1024
			}
		}
	}
	return 0
}

// SelfPeakRSS is this process's peak RSS in MB (VmHWM), 0 if unknown.
func SelfPeakRSS() float64 { return peakRSS("/proc/self") }
