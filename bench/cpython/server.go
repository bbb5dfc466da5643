package cpython

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/conclab/conclab/internal/reuseport"
)

// Default timings of a Server.
const (
	DefaultStartTimeout = 60 * time.Second
	DefaultStopGrace    = 3 * time.Second
)

// Options tune how Python processes are run. The zero value uses the
// defaults.
type Options struct {
	// Python is the interpreter; "" resolves as ResolvePython does.
	Python string
	// Dir is where the server's temporary directory is made; "" means the
	// system's temporary directory.
	Dir string
	// StartTimeout bounds Start (0 means DefaultStartTimeout).
	StartTimeout time.Duration
	// StopGrace is how long Close waits after SIGTERM before SIGKILL
	// (0 means DefaultStopGrace).
	StopGrace time.Duration
	// AccessLog turns uvicorn's / gunicorn's access log on (off by default:
	// it is a write per request that the sources' measurements of handler
	// styles do not need).
	AccessLog bool
	// Output, if not nil, also receives the server's stdout and stderr
	// (they always go to the log file in the server's directory).
	Output io.Writer
	// Cores, when positive, pins the server (every process it starts) to
	// the machine's first Cores cores (taskset -c 0-(Cores-1)), to see
	// what it does on fewer cores than the machine has. At most the
	// machine's cores; 0 is all of them.
	Cores int
	// Trace makes the app record every request's phases (a small
	// middleware, _conclab.py's trace_fastapi / trace_flask: a line per
	// interval written to a file in the server's directory), read back
	// with Server.Trace. Off by default: it is a write per request.
	Trace bool
}

func (o Options) startTimeout() time.Duration {
	if o.StartTimeout > 0 {
		return o.StartTimeout
	}
	return DefaultStartTimeout
}

func (o Options) stopGrace() time.Duration {
	if o.StopGrace > 0 {
		return o.StopGrace
	}
	return DefaultStopGrace
}

// Server is a real-CPython strategy: one App served by uvicorn or gunicorn
// in its own process group on a loopback port. Create it with NewServer,
// then Start; the caller must call Close. Methods are safe for concurrent
// use.
type Server struct {
	app  App
	opts Options

	mu      sync.Mutex
	started bool
	closed  bool
	dir     string
	cmd     *exec.Cmd
	pgid    int
	url     string
	env     *Env
	table   string
	done    chan struct{}
	waitErr error
	stop    func() bool

	addr     string   // "" means 127.0.0.1:0 (Real sets it from StartOptions)
	portHold *os.File // ReusePort: the bound, never listening socket holding the port

	closeOnce sync.Once
	closeErr  error
}

// NewServer returns a server for app that is not yet started.
func NewServer(app App, opts Options) *Server { return &Server{app: app, opts: opts} }

// Name is the app's name (the strategy label).
func (s *Server) Name() string { return s.app.Name }

// App returns the app the server runs.
func (s *Server) App() App { return s.app }

// URL is the base URL, e.g. "http://127.0.0.1:41234"; "" before Start.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Env is the Python environment the server runs on; nil before Start.
func (s *Server) Env() *Env {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.env
}

// PGID is the server's process group (its leader's pid); 0 before Start.
func (s *Server) PGID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pgid
}

// Dir is the server's temporary directory (apps, log, database, images).
func (s *Server) Dir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

// Table is the database table the app writes ("" without a DB).
func (s *Server) Table() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.table
}

// Log returns the last n bytes of the server's log (stdout and stderr).
func (s *Server) Log(n int) string {
	dir := s.Dir()
	if dir == "" {
		return ""
	}
	b, _ := os.ReadFile(filepath.Join(dir, "server.log"))
	return tail(string(b), n)
}

// Start writes the app to a temporary directory, starts its server and
// waits until it answers GET /ready. Cancelling ctx later closes the server
// as Close does. Start fails with a *MissingError (errors.Is
// ErrUnavailable) when Python or a required module is missing, and with the
// tail of the server's log when it exits or does not answer in time.
func (s *Server) Start(ctx context.Context) error {
	if err := s.app.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return errors.New("cpython: server already started or closed")
	}
	s.started = true
	s.mu.Unlock()
	if err := s.start(ctx); err != nil {
		s.Close()
		return fmt.Errorf("cpython: start %s (%s): %w", s.app.Name, s.app.Module, err)
	}
	stop := context.AfterFunc(ctx, func() { s.Close() })
	s.mu.Lock()
	s.stop = stop
	s.mu.Unlock()
	return nil
}

func (s *Server) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.startTimeout())
	defer cancel()
	env, err := Detect(ctx, s.opts.Python)
	if err != nil {
		return err
	}
	if err := env.Require(s.app.Requires...); err != nil {
		return err
	}
	dir, err := os.MkdirTemp(s.opts.Dir, "conclab-cpython-")
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.env, s.dir = env, dir
	s.mu.Unlock()
	if err := WriteFiles(dir, s.app.Files); err != nil {
		return err
	}
	vars := map[string]string{
		"PYTHONUNBUFFERED":        "1",
		"PYTHONDONTWRITEBYTECODE": "1",
		"CONCLAB_UPLOAD_DIR":      filepath.Join(dir, "uploads"),
	}
	for k, v := range s.app.Env {
		vars[k] = v
	}
	if s.opts.Trace {
		vars["CONCLAB_TRACE_DIR"] = filepath.Join(dir, "trace")
	}
	if s.app.DB != nil {
		table := s.app.DB.Table
		if table == "" {
			table = uniqueTable("conclab")
		}
		s.mu.Lock()
		s.table = table
		s.mu.Unlock()
		dbv, err := s.app.DB.env(dir, table)
		if err != nil {
			return err
		}
		for k, v := range dbv {
			vars[k] = v
		}
	}

	addr := s.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if host, _, err := net.SplitHostPort(addr); err != nil || !isLoopback(host) {
		return fmt.Errorf("listen address %q: want a loopback host:port such as 127.0.0.1:0", addr)
	}
	var lf *os.File
	var tcp *net.TCPAddr
	if s.app.ReusePort {
		// Each gunicorn worker binds a socket of its own to the port; a
		// bound socket that never listens holds the port meanwhile (no
		// race) and gets no connections: only listening sockets do.
		hold, port, err := reuseport.Reserve(addr)
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.portHold = hold
		s.mu.Unlock()
		tcp = port
	} else {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		if err := noDelay(ln.(*net.TCPListener)); err != nil {
			ln.Close()
			return err
		}
		lf, err = ln.(*net.TCPListener).File()
		ln.Close() // the duplicate in lf keeps the socket listening
		if err != nil {
			return err
		}
		defer lf.Close()
		tcp = ln.Addr().(*net.TCPAddr)
	}

	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return err
	}
	defer logf.Close()

	name, args := env.Python, s.args(tcp)
	if c := s.opts.Cores; c > 0 {
		if c > runtime.NumCPU() {
			return fmt.Errorf("Options.Cores %d: this machine has %d", c, runtime.NumCPU())
		}
		ts, err := exec.LookPath("taskset")
		if err != nil {
			return fmt.Errorf("Options.Cores needs taskset (util-linux): %w", err)
		}
		name, args = ts, append([]string{"-c", fmt.Sprintf("0-%d", c-1), env.Python}, args...)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if lf != nil {
		cmd.ExtraFiles = []*os.File{lf} // fd 3
	}
	var out io.Writer = logf
	if s.opts.Output != nil {
		out = io.MultiWriter(logf, s.opts.Output)
	}
	cmd.Stdout, cmd.Stderr = out, out
	setGroup(cmd, false)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("exec %s: %w", env.Python, err)
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.pgid, s.done = cmd, cmd.Process.Pid, done
	s.url = "http://" + net.JoinHostPort(tcp.IP.String(), strconv.Itoa(tcp.Port))
	s.mu.Unlock()
	go func() {
		err := cmd.Wait()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(done)
	}()
	return s.waitReady(ctx, done)
}

func (s *Server) args(addr *net.TCPAddr) []string {
	a := s.app
	workers, threads := a.Workers, a.Threads
	if workers == 0 {
		workers = 1
	}
	if threads == 0 {
		threads = 1
	}
	switch a.Server {
	case Uvicorn:
		args := []string{"-m", "uvicorn", a.Module, "--fd", "3", "--app-dir", ".", "--log-level", "warning"}
		if workers > 1 {
			args = append(args, "--workers", strconv.Itoa(workers))
		}
		if !s.opts.AccessLog {
			args = append(args, "--no-access-log")
		}
		return args
	default:
		bind := []string{"--bind", "fd://3"}
		if a.ReusePort {
			bind = []string{"--bind", addr.String(), "--reuse-port"}
		}
		args := append([]string{"-m", "gunicorn"}, bind...)
		args = append(args, "--chdir", ".",
			"--workers", strconv.Itoa(workers), "--threads", strconv.Itoa(threads),
			"--graceful-timeout", "2", "--timeout", "600", "--log-level", "warning")
		switch a.Server {
		case GunicornUvicorn:
			args = append(args, "--worker-class", "uvicorn.workers.UvicornWorker")
		case GunicornASGI:
			args = append(args, "--worker-class", "asgi")
		}
		if s.opts.AccessLog {
			args = append(args, "--access-logfile", "-")
		}
		return append(args, a.Module)
	}
}

// waitReady polls GET /ready until it answers 200, the process exits, or
// ctx ends.
func (s *Server) waitReady(ctx context.Context, done chan struct{}) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	url := s.URL() + "/ready"
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s.waitWorkers(ctx, client, url, done)
			}
		}
		select {
		case <-done:
			s.mu.Lock()
			werr := s.waitErr
			s.mu.Unlock()
			return fmt.Errorf("server exited (%v) before answering; log: %s", werr, s.Log(1500))
		case <-ctx.Done():
			return fmt.Errorf("server did not answer %s: %w; log: %s", url, ctx.Err(), s.Log(1500))
		case <-tick.C:
		}
	}
}

// waitWorkers returns once every gunicorn worker answers /ready (each
// imports the app after the fork, so the first answer does not mean all
// are up): it polls with bursts of requests until the distinct pids in
// the answers number Workers.
func (s *Server) waitWorkers(ctx context.Context, client *http.Client, url string, done chan struct{}) error {
	want := s.app.Workers
	if want <= 1 {
		return nil
	}
	seen := map[int]bool{}
	var mu sync.Mutex
	for {
		var wg sync.WaitGroup
		for i := 0; i < 2*want; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				resp, err := client.Do(req)
				if err != nil {
					return
				}
				defer resp.Body.Close()
				var body struct {
					PID int `json:"pid"`
				}
				if json.NewDecoder(resp.Body).Decode(&body) == nil && body.PID > 0 {
					mu.Lock()
					seen[body.PID] = true
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n >= want {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("server exited while its workers started; log: %s", s.Log(1500))
		case <-ctx.Done():
			return fmt.Errorf("%d of %d workers answered %s: %w; log: %s", n, want, url, ctx.Err(), s.Log(1500))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Close ends the server's whole process group — SIGTERM, then SIGKILL after
// the grace period — waits for it, drops the table it created and removes
// its directory. It is safe to call more than once and returns the first
// call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Server) close() error {
	s.mu.Lock()
	s.closed = true
	stop, cmd, pgid, done, dir, table, hold := s.stop, s.cmd, s.pgid, s.done, s.dir, s.table, s.portHold
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	var errs []error
	if cmd != nil {
		errs = append(errs, stopGroup(pgid, done, s.opts.stopGrace()))
	}
	if hold != nil {
		errs = append(errs, hold.Close())
	}
	if table != "" && s.app.DB != nil && s.app.DB.Table == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		errs = append(errs, s.app.DB.drop(ctx, table))
		cancel()
	}
	if dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// stopGroup sends SIGTERM to the group, SIGKILL after grace, waits for the
// leader (done), then kills and waits out any member left.
func stopGroup(pgid int, done chan struct{}, grace time.Duration) error {
	_ = killGroup(pgid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		_ = killGroup(pgid, syscall.SIGKILL)
		<-done
	}
	// The leader is gone; anything left in its group (a worker that
	// outlived its master) is killed now.
	_ = killGroup(pgid, syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for len(GroupMembers(pgid)) > 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("cpython: processes %v of group %d survived SIGKILL", GroupMembers(pgid), pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// isLoopback reports whether host is localhost or a loopback IP.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// noDelay sets TCP_NODELAY on the listening socket, which Linux copies to
// every connection it accepts. uvicorn given the socket as --fd wraps it as
// a Unix socket, so asyncio skips its own TCP_NODELAY on accepted
// connections; without this, Nagle's algorithm holds back a response's
// second segment until the client's delayed ACK (about 40 ms), and the real
// server looks forty times slower than it is.
func noDelay(ln *net.TCPListener) error {
	rc, err := ln.SyscallConn()
	if err != nil {
		return fmt.Errorf("listening socket: %w", err)
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	}); err != nil {
		return fmt.Errorf("listening socket: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("listening socket: TCP_NODELAY: %w", serr)
	}
	return nil
}
