package strategy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// preforkEnv carries a prefork child's strategy and workload.
const preforkEnv = "CONCLAB_STRATEGY_PREFORK"

const childReadyTimeout = 15 * time.Second

func init() { pymodel.RegisterWorkerMode("prefork", preforkMain) }

// preforkConfig is what a prefork child is told.
type preforkConfig struct {
	Strategy spec            `json:"strategy"`
	Workload json.RawMessage `json:"workload"`
	// ImageDir is the parent's image output directory, for workloads with
	// an image step.
	ImageDir string `json:"image_dir,omitempty"`
	// Worker is the child's number (1, 2, ...) and TraceEvents its trace
	// cap (0: not tracing).
	Worker      int `json:"worker"`
	TraceEvents int `json:"trace_events,omitempty"`
}

// child is one prefork worker process as seen by the parent.
type child struct {
	cmd    *exec.Cmd
	pid    int
	ctlW   *os.File // parent -> child commands
	ctlR   *bufio.Reader
	ctlRF  *os.File
	stderr *stderrTail
	waited chan struct{}

	mu sync.Mutex // one stats exchange at a time
}

// WorkerCommand, if set, replaces the command that starts prefork worker
// processes (default: this executable in worker mode). For tests of failure
// paths; not safe to change while servers start.
var WorkerCommand []string

// startPrefork starts Workers child processes that accept on ln's socket,
// each running the strategy with one worker, and waits until all are ready.
func (s *server) startPrefork(ctx context.Context, ln net.Listener) error {
	var f *os.File
	switch l := ln.(type) {
	case *net.TCPListener:
		var err error
		if f, err = l.File(); err != nil {
			return fmt.Errorf("prefork: sharing the socket: %w", err)
		}
		defer f.Close()
	case *reservedListener:
		f = l.f // each worker binds its own socket to this one's port
	default:
		return fmt.Errorf("prefork needs a TCP listener, got %T", ln)
	}
	one := s.st
	one.Workers = 1
	wl, err := pymodel.MarshalWorkload(s.w)
	if err != nil {
		return err
	}
	pc := preforkConfig{Strategy: one, Workload: wl, TraceEvents: s.traceEvents}
	for _, st := range s.steps {
		if st.Kind == pymodel.KindImage {
			if pc.ImageDir, err = s.images.get(); err != nil {
				return err
			}
			break
		}
	}
	turns, err := turnRing(s.st.Accept, s.st.Workers)
	if err != nil {
		return err
	}
	defer closeAll(turns)
	for i := 0; i < s.st.Workers; i++ {
		pc.Worker = i + 1
		cfg, err := json.Marshal(pc)
		if err != nil {
			return err
		}
		var extra []*os.File
		if turns != nil {
			extra = []*os.File{turns[2*i], turns[2*((i+1)%s.st.Workers)+1]}
		}
		c, err := spawnChild(ctx, f, cfg, extra...)
		if err != nil {
			return fmt.Errorf("prefork worker %d of %d: %w", i+1, s.st.Workers, err)
		}
		s.mu.Lock()
		s.children = append(s.children, c)
		s.mu.Unlock()
	}
	return nil
}

// turnRing makes the balanced policy's ring of accept turns: one pipe per
// worker, read end at 2i and write end at 2i+1; worker i reads its turn
// from pipe i and passes it on to pipe i+1 (mod n). The token starts in
// pipe 0. Nil for any other policy. The caller closes the files once the
// workers have their copies.
func turnRing(policy string, n int) ([]*os.File, error) {
	if policy != AcceptBalanced {
		return nil, nil
	}
	var fs []*os.File
	for i := 0; i < n; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(fs)
			return nil, fmt.Errorf("prefork: accept turns: %w", err)
		}
		fs = append(fs, r, w)
	}
	if _, err := fs[1].Write([]byte{1}); err != nil {
		closeAll(fs)
		return nil, fmt.Errorf("prefork: accept turns: %w", err)
	}
	return fs, nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// spawnChild starts one worker with the shared socket (fd 3), its control
// pipes (fds 4 and 5) and any extra files (from fd 6: the balanced
// policy's turn pipes, in and out).
func spawnChild(ctx context.Context, sock *os.File, cfg []byte, extra ...*os.File) (*child, error) {
	cmd, err := pymodel.WorkerCommand("prefork", WorkerCommand)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, preforkEnv+"="+string(cfg))
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	c := &child{cmd: cmd, ctlW: inW, ctlRF: outR, ctlR: bufio.NewReader(outR), stderr: &stderrTail{}, waited: make(chan struct{})}
	cmd.ExtraFiles = append([]*os.File{sock, inR, outW}, extra...)
	cmd.Stderr = c.stderr
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("starting %q: %w", cmd.Path, err)
	}
	c.pid = cmd.Process.Pid
	go func() {
		cmd.Wait()
		outR.Close()
		close(c.waited)
	}()
	line := make(chan string, 1)
	go func() {
		l, _ := c.ctlR.ReadString('\n')
		line <- l
	}()
	tm := time.NewTimer(childReadyTimeout)
	defer tm.Stop()
	var got string
	var why error
	select {
	case got = <-line:
		if !strings.HasPrefix(got, "ready") {
			why = fmt.Errorf("exited before ready (%s)", strings.TrimSpace(got))
			if got == "" {
				why = errors.New("exited before ready")
			}
		}
	case <-tm.C:
		why = fmt.Errorf("not ready after %v", childReadyTimeout)
	case <-ctx.Done():
		why = ctx.Err()
	}
	if why != nil {
		c.kill()
		<-c.waited
		if st := cmd.ProcessState; st != nil {
			why = fmt.Errorf("%w: %v", why, st)
		}
		if msg := strings.TrimSpace(c.stderr.String()); msg != "" {
			why = fmt.Errorf("%w; stderr: %s", why, msg)
		}
		return nil, fmt.Errorf("worker pid %d: %w", c.pid, why)
	}
	return c, nil
}

func (c *child) kill() {
	c.ctlW.Close()
	c.cmd.Process.Kill()
}

// totals asks the child for its counters and adds its CPU and peak RSS
// from /proc. A child that does not answer within 2 s contributes only
// those.
func (c *child) totals() totals {
	c.mu.Lock()
	defer c.mu.Unlock()
	cpu, rss := pymodel.ProcUsage(c.pid)
	var t totals
	ans := make(chan string, 1)
	if _, err := c.ctlW.Write([]byte("stats\n")); err == nil {
		go func() {
			l, _ := c.ctlR.ReadString('\n')
			ans <- l
		}()
		select {
		case l := <-ans:
			json.Unmarshal([]byte(l), &t)
		case <-time.After(2 * time.Second):
		}
	}
	// The whole worker process's CPU replaces its measured step CPU; its
	// own pool workers are added.
	t.CPUNs = int64(cpu*float64(time.Second)) + t.PoolCPUNs
	t.RSSMB += rss
	t.Processes++
	return t
}

// stopChildren closes every child's control pipe (a graceful stop), then
// kills those still running after 3 s, and waits for all.
func stopChildren(cs []*child) error {
	for _, c := range cs {
		c.ctlW.Close()
	}
	deadline := time.NewTimer(3 * time.Second)
	defer deadline.Stop()
	expired := false
	for _, c := range cs {
		if !expired {
			select {
			case <-c.waited:
				continue
			case <-deadline.C:
				expired = true // the timer fires once: every child left is killed
			}
		}
		c.cmd.Process.Kill()
		<-c.waited
	}
	return nil
}

// preforkMain is a prefork child: serve on fd 3, commands on fd 4, answers
// on fd 5; exit when fd 4 reaches EOF.
func preforkMain() int {
	// Ctrl-C in a terminal reaches the whole process group; the parent
	// stops its workers (closing fd 4) once it has read their figures and
	// traces, and they die with it (Pdeathsig) if it is killed.
	signal.Ignore(os.Interrupt)
	var cfg preforkConfig
	if err := json.Unmarshal([]byte(os.Getenv(preforkEnv)), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "strategy: prefork worker: bad config:", err)
		return 2
	}
	var w pymodel.Workload
	if err := json.Unmarshal(cfg.Workload, &w); err != nil {
		fmt.Fprintln(os.Stderr, "strategy: prefork worker: bad workload:", err)
		return 2
	}
	sock, ctlIn, ctlOut := os.NewFile(3, "socket"), os.NewFile(4, "ctl-in"), os.NewFile(5, "ctl-out")
	if sock == nil || ctlIn == nil || ctlOut == nil {
		fmt.Fprintln(os.Stderr, "strategy: prefork worker started without its files")
		return 2
	}
	policy := cfg.Strategy.Accept
	var ln net.Listener
	var err error
	if policy == AcceptReusePort {
		// fd 3 is the parent's reserved port: listen on a socket of this
		// worker's own there, then accept from it as the greedy loop does.
		ln, err = listenOwn(sock)
		policy = AcceptGreedy
	} else {
		ln, err = net.FileListener(sock)
	}
	sock.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "strategy: prefork worker: socket:", err)
		return 2
	}
	srv, err := newServer(cfg.Strategy, w)
	if err != nil {
		fmt.Fprintln(os.Stderr, "strategy: prefork worker:", err)
		return 2
	}
	srv.worker = cfg.Worker
	srv.traceEvents = cfg.TraceEvents
	var turnIn, turnOut *os.File
	if cfg.Strategy.Accept == AcceptBalanced {
		// Non-blocking, so that closing them ends a read or write.
		for _, fd := range []int{6, 7} {
			if err := syscall.SetNonblock(fd, true); err != nil {
				fmt.Fprintln(os.Stderr, "strategy: prefork worker: accept turns:", err)
				return 2
			}
		}
		turnIn, turnOut = os.NewFile(6, "turn-in"), os.NewFile(7, "turn-out")
	}
	if cfg.ImageDir != "" {
		srv.images = &imageOut{dir: cfg.ImageDir, shared: true}
	}
	if err := srv.startWorker(ln, policy, turnIn, turnOut); err != nil {
		fmt.Fprintln(os.Stderr, "strategy: prefork worker:", err)
		return 1
	}
	defer srv.Close()
	fmt.Fprintf(ctlOut, "ready %d\n", os.Getpid())
	sc := bufio.NewScanner(ctlIn)
	for sc.Scan() {
		switch sc.Text() {
		case "stats":
			b, _ := json.Marshal(srv.totals(false))
			b = append(b, '\n')
			ctlOut.Write(b)
		case "trace":
			b, _ := json.Marshal(srv.rec.Snapshot())
			b = append(b, '\n')
			ctlOut.Write(b)
		}
	}
	return 0
}

// startWorker starts a prefork child's server on its share of ln, with the
// accept loop of policy (see AcceptGreedy) on the worker's GIL.
func (s *server) startWorker(ln net.Listener, policy string, turnIn, turnOut *os.File) error {
	a, err := newAcceptor(ln, policy, nil, s.worker, turnIn, turnOut)
	if err != nil {
		return err
	}
	a.perPoll = policy != AcceptBalanced && s.st.Kind == kindGunicorn
	s.ln = a
	if err := s.start(context.Background()); err != nil {
		return err
	}
	a.rec = s.rec
	if s.rt == nil {
		s.Close()
		return errors.New("prefork worker: no Python runtime to accept on")
	}
	go a.run(s.rt.GIL())
	return nil
}

// trace asks the child for its trace. A child that does not answer within
// 10 s contributes nothing.
func (c *child) trace() (trace.Snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.ctlW.Write([]byte("trace\n")); err != nil {
		return trace.Snapshot{}, fmt.Errorf("worker pid %d: asking for its trace: %w", c.pid, err)
	}
	ans := make(chan string, 1)
	go func() {
		l, _ := c.ctlR.ReadString('\n')
		ans <- l
	}()
	select {
	case l := <-ans:
		var s trace.Snapshot
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			return trace.Snapshot{}, fmt.Errorf("worker pid %d: its trace: %w", c.pid, err)
		}
		return s, nil
	case <-time.After(10 * time.Second):
		return trace.Snapshot{}, fmt.Errorf("worker pid %d: no trace after 10 s", c.pid)
	}
}

// stderrTail keeps the last 4 KiB of a child's stderr.
type stderrTail struct {
	mu sync.Mutex
	b  []byte
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = append([]byte(nil), t.b[len(t.b)-4096:]...)
	}
	return len(p), nil
}

func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.b))
}
