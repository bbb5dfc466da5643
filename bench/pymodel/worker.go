package pymodel

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
)

var (
	modesMu sync.Mutex
	modes   = map[string]func() int{}
)

// RegisterWorkerMode adds a worker mode that WorkerMain dispatches to when
// the process was started with that mode (prefork servers register theirs).
// It panics on a duplicate name.
func RegisterWorkerMode(name string, run func() int) {
	modesMu.Lock()
	defer modesMu.Unlock()
	if _, dup := modes[name]; dup || name == "pool" {
		panic("pymodel: duplicate worker mode " + name)
	}
	modes[name] = run
}

// IsWorker reports whether this process was started as a worker.
func IsWorker() bool { return os.Getenv(workerEnv) != "" }

// WorkerMain runs this process as a worker if it was started as one, and
// returns its exit code with handled=true; otherwise it returns at once with
// handled=false. Call it first thing in main and in TestMain.
func WorkerMain() (code int, handled bool) {
	mode := os.Getenv(workerEnv)
	if mode == "" {
		return 0, false
	}
	os.Unsetenv(workerEnv) // children of workers are not workers
	if mode == "pool" {
		return poolWorker(), true
	}
	modesMu.Lock()
	run := modes[mode]
	modesMu.Unlock()
	if run == nil {
		fmt.Fprintf(os.Stderr, "pymodel: unknown worker mode %q\n", mode)
		return 2, true
	}
	return run(), true
}

// poolWorker serves steps from fd 3 and answers on fd 4 until EOF.
func poolWorker() int {
	in := os.NewFile(3, "pool-in")
	out := os.NewFile(4, "pool-out")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "pymodel: pool worker started without its pipes")
		return 2
	}
	// A pool worker is one single-threaded process (one CPU's worth), like
	// a ProcessPoolExecutor worker: work that would spread over goroutines
	// (imaging's operations) stays on one core.
	runtime.GOMAXPROCS(1)
	hdr, _ := json.Marshal(frameHeader{Ready: true, PID: os.Getpid()})
	if err := writeFrame(out, hdr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "pymodel: pool worker:", err)
		return 1
	}
	r := bufio.NewReaderSize(in, 64<<10)
	t := &pythread{gil: NewGIL(0, true), crowds: &crowds{}} // one thread per worker: no contention
	for {
		req, payload, err := readFrame(r, true)
		if err != nil {
			return 0 // EOF: the pool closed us
		}
		var resp frameHeader
		// The result is as big as the arguments (an image in, an image out),
		// unless a registered kind returns its own result.
		result := payload
		if req.Step == nil {
			resp.Err = "no step in request"
		} else if _, ok := registered(req.Step.Kind); ok {
			runtime.LockOSThread()
			start := threadCPU()
			out, err := runRegistered(context.Background(), *req.Step, payload)
			if err != nil {
				resp.Err = err.Error()
			}
			result = out
			resp.CPUNs = int64(threadCPU() - start)
			runtime.UnlockOSThread()
		} else {
			runtime.LockOSThread()
			start := threadCPU()
			if err := t.run(context.Background(), *req.Step); err != nil {
				resp.Err = err.Error()
			}
			resp.CPUNs = int64(threadCPU() - start)
			runtime.UnlockOSThread()
		}
		rh, _ := json.Marshal(resp)
		if err := writeFrame(out, rh, result); err != nil {
			return 1
		}
	}
}

// WorkerCommand returns an unstarted command that re-executes this binary
// in the given worker mode (see RegisterWorkerMode), or runs override
// instead when it is not empty. The child is killed if this process dies.
func WorkerCommand(mode string, override []string) (*exec.Cmd, error) {
	return workerCommand(override, mode)
}

// ProcUsage returns CPU seconds and peak RSS (MB) of a live process from
// /proc; pid 0 means this process. Zeros where unavailable.
func ProcUsage(pid int) (cpuSeconds, peakRSSMB float64) { return procUsage(pid) }
