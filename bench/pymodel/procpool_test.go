package pymodel_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

func TestProcessPoolRunsStepsWithPayload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, err := pymodel.NewProcessPool(ctx, pymodel.PoolConfig{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := pymodel.CPU(1_000_000)
	s.Payload = 1 << 20
	res, err := p.Run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.BytesIn != 1<<20 || res.BytesOut != 1<<20 || res.PID <= 0 {
		t.Errorf("result %+v; want 1 MiB each way from a worker pid", res)
	}
	if st := p.Stats(); st.IPCBytes != 2<<20 || st.Workers != 2 || st.Tasks != 1 {
		t.Errorf("stats %+v", st)
	}
	if _, err := p.Run(ctx, pymodel.Custom("fn", false, func(context.Context) error { return nil })); err == nil {
		t.Error("custom step ran in a process pool; want an error")
	}
}

// Killing a worker mid-request fails that request; the pool replaces the
// worker and later requests complete.
func TestProcessPoolReplacesKilledWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, err := pymodel.NewProcessPool(ctx, pymodel.PoolConfig{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	before := p.PIDs()
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(ctx, pymodel.Sleep(10*time.Second))
		done <- err
	}()
	time.Sleep(150 * time.Millisecond)
	if err := syscall.Kill(before[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "died") {
			t.Fatalf("request on killed worker: err = %v; want 'died'", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("request on killed worker did not fail")
	}
	for i := 0; i < 3; i++ {
		if _, err := p.Run(ctx, pymodel.Sleep(100*time.Millisecond)); err != nil {
			t.Fatalf("run %d after replacement: %v", i, err)
		}
	}
	after := p.PIDs()
	if len(after) != 1 || after[0] == before[0] {
		t.Errorf("pids before %v after %v; want one new worker", before, after)
	}
	if st := p.Stats(); st.Failures != 1 || st.Replaced != 1 {
		t.Errorf("stats %+v; want 1 failure, 1 replacement", st)
	}
}

func TestProcessPoolWorkerCannotStart(t *testing.T) {
	t.Parallel()
	for _, cmd := range [][]string{{"/bin/false"}, {"/nonexistent/worker"}, {"/bin/sh", "-c", "echo boom >&2; exit 3"}} {
		_, err := pymodel.NewProcessPool(context.Background(), pymodel.PoolConfig{Workers: 2, Command: cmd})
		if err == nil || !strings.Contains(err.Error(), "worker") {
			t.Errorf("pool with worker %q: err = %v; want a worker start error", cmd, err)
		}
		if cmd[0] == "/bin/sh" && !strings.Contains(err.Error(), "boom") {
			t.Errorf("error %v does not carry the worker's stderr", err)
		}
	}
	if _, err := pymodel.NewProcessPool(context.Background(), pymodel.PoolConfig{Workers: 0}); err == nil {
		t.Error("zero workers: want error")
	}
}

// ProcessPool offload from the runtime: CPU work runs in parallel across
// worker processes while the GIL serialises threads.
func TestRuntimeProcessExecutor(t *testing.T) {
	t.Parallel()
	rec := trace.NewRecorder(0)
	rt := startRuntime(t, pymodel.Config{CPUs: 2, StartProcessPool: true, Trace: rec})
	s := pymodel.Sleep(wait)
	s.Call = pymodel.ProcessExecutor
	// 4 waits on 2 workers: two waves, read from the trace (exact), and a
	// batch that cannot beat them.
	d := burst(t, rt, 4, pymodel.Handler{Async: true, Steps: []pymodel.Step{s}})
	evs := rec.Snapshot().Events
	if got := fmt.Sprint(trace.Waves(evs, trace.Pool)); got != "[2 2]" {
		t.Errorf("waves of pool runs = %s; want [2 2]", got)
	}
	if got := trace.MaxOverlap(evs, trace.Pool); got != 2 {
		t.Errorf("pool runs at once = %d; want 2 (two workers)", got)
	}
	lanes := map[string]bool{}
	for _, e := range trace.Filter(evs, trace.Pool) {
		lanes[e.Thread] = true
	}
	if len(lanes) != 2 {
		t.Errorf("pool runs on %d worker lanes (%v); want 2", len(lanes), lanes)
	}
	if n := len(trace.Filter(evs, trace.ExecutorWait)); n != 4 {
		t.Errorf("%d waits for a pool worker; want 4", n)
	}
	if d < 2*wait {
		t.Errorf("4 sleeps of %v on 2 workers took %v; two waves take at least %v", wait, d, 2*wait)
	}
	if st := rt.Stats(); st.Pool.Tasks%4 != 0 || st.Pool.Workers != 2 {
		t.Errorf("pool stats %+v", st.Pool)
	}
	pids := rt.ProcessPool().PIDs()
	rt.Close()
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("worker %d still running after Close", pid)
		}
	}
}

func TestRuntimeBadWorkerFailsStart(t *testing.T) {
	t.Parallel()
	rt, err := pymodel.New(pymodel.Config{StartProcessPool: true, WorkerCommand: []string{"/bin/false"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(context.Background()); err == nil {
		t.Error("Start with a worker that cannot start: want error")
	}
	rt.Close()
}
