package workload_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/workload"
)

// writeSyscalls reads the process's write(2) count (syscw) from /proc.
func writeSyscalls(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skipf("no /proc/self/io: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "syscw: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Skip("/proc/self/io has no syscw")
	return 0
}

// TestPrintModesMakeRealSyscalls counts the process's write system calls
// (kernel's count, /proc/self/io) around 2000 lines in each mode. Not
// parallel, so other tests' writes do not interfere.
func TestPrintModesMakeRealSyscalls(t *testing.T) {
	const lines = 2000
	tests := []struct {
		mode     string
		min, max int64
	}{
		{workload.PrintSync, lines, lines + 50},
		{workload.PrintAsync, 1, lines / 4},
		{workload.PrintNone, 0, 50},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			sink, err := workload.DevNullSink()
			if err != nil {
				t.Fatal(err)
			}
			defer sink.Close()
			p, err := workload.NewPrinter(tc.mode, sink, 0)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			before := writeSyscalls(t)
			for i := range lines {
				if err := p.Println(ctx, "GET /doPrint 200 request "+strconv.Itoa(i)); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			got := writeSyscalls(t) - before
			p.Close()
			st := p.Stats()
			if got < tc.min || got > tc.max {
				t.Errorf("%s: %d write syscalls for %d lines; want %d..%d", tc.mode, got, lines, tc.min, tc.max)
			}
			if st.Lines != lines || st.Writes > got {
				t.Errorf("%s stats %+v: want %d lines and no more writes than the kernel counted (%d)", tc.mode, st, lines, got)
			}
		})
	}
}

// TestPipeBackPressure prints 20 KB through a 4 KiB pipe drained at
// 40 KB/s: a sync printer is held up about (20000-4096)/40000 ≈ 0.4 s, an
// async printer returns at once and its queue drains at the pipe's pace.
func TestPipeBackPressure(t *testing.T) {
	// Not parallel: timing-sensitive, kept apart from the CPU-heavy tests.
	const (
		rate  = 40_000.0
		lines = 200
		size  = 100 // bytes per line, newline included
	)
	line := strings.Repeat("x", size-1)
	run := func(mode string) (printing, flushed time.Duration, st workload.PrintStats, drained int64) {
		sink, err := workload.NewPipeSink(rate, 0, 4096)
		if err != nil {
			t.Fatal(err)
		}
		defer sink.Close()
		p, err := workload.NewPrinter(mode, sink, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		for range lines {
			if err := p.Println(ctx, line); err != nil {
				t.Fatal(err)
			}
		}
		printing = time.Since(start)
		if err := p.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		flushed = time.Since(start)
		drained, _ = sink.Drained()
		return printing, flushed, p.Stats(), drained
	}
	total := float64(lines * size)
	lo := time.Duration(0.8 * (total - 2*4096) / rate * float64(time.Second))
	hi := time.Duration((1.2*total/rate + 0.2) * raceSlack * float64(time.Second))

	syncPrint, _, st, _ := run(workload.PrintSync)
	if syncPrint < lo || syncPrint > hi {
		t.Errorf("sync: printing took %v; want %v..%v (held up by the slow pipe)", syncPrint, lo, hi)
	}
	if st.Writes != lines || st.MaxWrite < 10*time.Millisecond {
		t.Errorf("sync stats %+v: want %d writes, some blocked >= 10ms", st, lines)
	}
	asyncPrint, asyncFlush, st, drained := run(workload.PrintAsync)
	if asyncPrint > syncPrint/4 {
		t.Errorf("async: printing took %v; want well under sync's %v", asyncPrint, syncPrint)
	}
	if asyncFlush < lo || asyncFlush > hi {
		t.Errorf("async: flush done after %v; want %v..%v (the pipe's pace)", asyncFlush, lo, hi)
	}
	if st.Bytes != int64(total) || drained < int64(total)-8192 {
		t.Errorf("async: wrote %d bytes, reader drained %d; want %v written", st.Bytes, drained, total)
	}
}

func TestPipeLinesPerSecond(t *testing.T) {
	// Not parallel: timing-sensitive.
	sink, err := workload.NewPipeSink(0, 100, 0) // 100 lines/s, 64 KiB pipe
	if err != nil {
		t.Fatal(err)
	}
	p, _ := workload.NewPrinter(workload.PrintSync, sink, 0)
	defer p.Close()
	for i := range 30 {
		p.Println(context.Background(), strconv.Itoa(i))
	}
	start := time.Now()
	deadline := start.Add(5 * time.Second)
	for {
		if _, l := sink.Drained(); l >= 30 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	el := time.Since(start)
	// The reader takes lines at 100/s: 30 lines ≈ 0.3 s (less the first read).
	if el < 150*time.Millisecond || el > 600*time.Millisecond*raceSlack {
		t.Errorf("reader drained 30 lines in %v; want about 300ms at 100 lines/s", el)
	}
	p.Close()
	sink.Close()
}

// TestSinkCloseReleasesBlockedWriter: a writer stuck on a pipe drained at
// 100 B/s finishes promptly once the sink is closed.
func TestSinkCloseReleasesBlockedWriter(t *testing.T) {
	t.Parallel()
	sink, err := workload.NewPipeSink(100, 0, 4096)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := workload.NewPrinter(workload.PrintSync, sink, 0)
	done := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < 100 && err == nil; i++ {
			err = p.Println(context.Background(), strings.Repeat("y", 99))
		}
		done <- err
	}()
	time.Sleep(150 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("10 KB through a 4 KiB pipe at 100 B/s finished in 150ms; the pipe is not slow")
	default:
	}
	start := time.Now()
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("writer still blocked 5s after sink Close")
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("Close took %v", el)
	}
	if err := sink.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestFileSinkGetsEveryLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.log")
	for _, mode := range []string{workload.PrintSync, workload.PrintAsync} {
		sink, err := workload.OpenSink("file:" + path)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := workload.NewPrinter(mode, sink, 16)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					p.Println(context.Background(), fmt.Sprintf("g%d line %d", g, i))
				}
			}()
		}
		wg.Wait()
		p.Flush(context.Background())
		p.Close()
		sink.Close()
		f, _ := os.Open(path)
		n := 0
		for sc := bufio.NewScanner(f); sc.Scan(); n++ {
			if !strings.HasPrefix(sc.Text(), "g") {
				t.Errorf("%s: torn line %q", mode, sc.Text())
			}
		}
		f.Close()
		if n != 200 {
			t.Errorf("%s: file has %d lines; want 200", mode, n)
		}
	}
}

func TestAsyncCloseDropsQueued(t *testing.T) {
	t.Parallel()
	sink, _ := workload.NewPipeSink(50, 0, 4096) // very slow
	defer sink.Close()
	p, _ := workload.NewPrinter(workload.PrintAsync, sink, 1000)
	for range 1000 {
		if err := p.Println(context.Background(), strings.Repeat("z", 99)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := p.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Flush of 100 KB at 50 B/s = %v; want deadline exceeded", err)
	}
	// The drainer is blocked writing a 64 KB batch into a pipe that takes
	// 50 B/s: Close must not wait 20 minutes for it.
	start := time.Now()
	p.Close()
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("Close took %v with a write blocked on a slow pipe", el)
	}
	st := p.Stats()
	if st.Dropped == 0 || st.Lines != 1000 || st.Bytes/100+st.Dropped != 1000 {
		t.Errorf("stats %+v: want 1000 lines accepted, each either written or dropped, some dropped", st)
	}
	if err := p.Println(context.Background(), "late"); err == nil {
		t.Error("Println after Close succeeded")
	}
}

func TestOpenSinkSpecs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec, wantName, wantErr string
	}{
		{"devnull", "devnull", ""},
		{"/dev/null", "devnull", ""},
		{"pipe", "pipe", ""},
		{"pipe:200lines/s", "pipe 200 lines/s", ""},
		{"pipe:9600B/s", "pipe 9600 bytes/s", ""},
		{"pipe:64KB/s", "pipe 64000 bytes/s", ""},
		{"pipe:1.5MB/s", "pipe 1.5e+06 bytes/s", ""},
		{"pipe:0lines/s", "", "positive"},
		{"pipe:fast", "", "want devnull"},
		{"tty", "", "want devnull"},
		{"file:", "", "want devnull"},
		{"file:/nonexistent/dir/x", "", "print file"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			s, err := workload.OpenSink(tc.spec)
			if tc.wantErr != "" {
				if err == nil || !contains(err.Error(), tc.wantErr) {
					t.Fatalf("OpenSink(%q) err = %v; want one containing %q", tc.spec, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Name() != tc.wantName {
				t.Errorf("Name() = %q; want %q", s.Name(), tc.wantName)
			}
		})
	}
}

func TestPrinterBadInput(t *testing.T) {
	t.Parallel()
	sink, _ := workload.DevNullSink()
	defer sink.Close()
	tests := []struct {
		mode  string
		sink  *workload.Sink
		queue int
		want  string
	}{
		{"loud", sink, 0, `print mode "loud"`},
		{workload.PrintSync, nil, 0, "needs a sink"},
		{workload.PrintAsync, sink, -1, "queue -1"},
	}
	for _, tc := range tests {
		if _, err := workload.NewPrinter(tc.mode, tc.sink, tc.queue); err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("NewPrinter(%q, %v, %d) err = %v; want %q", tc.mode, tc.sink != nil, tc.queue, err, tc.want)
		}
	}
	for _, r := range [][2]float64{{-1, 0}, {1, 1}, {2e12, 0}} {
		if _, err := workload.NewPipeSink(r[0], r[1], 0); err == nil {
			t.Errorf("NewPipeSink(%v, %v) succeeded", r[0], r[1])
		}
	}
	if _, err := workload.NewPipeSink(0, 0, -1); err == nil {
		t.Error("NewPipeSink with size -1 succeeded")
	}
}

// TestPrintLeavesNothingRunning: sinks and printers stop their goroutines.
func TestPrintLeavesNothingRunning(t *testing.T) {
	base := runtime.NumGoroutine()
	for range 5 {
		sink, err := workload.NewPipeSink(1e6, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := workload.NewPrinter(workload.PrintAsync, sink, 0)
		p.Println(context.Background(), "hello")
		p.Flush(context.Background())
		p.Close()
		sink.Close()
	}
	waitGoroutines(t, base)
}

func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func BenchmarkPrintln(b *testing.B) {
	for _, mode := range []string{workload.PrintSync, workload.PrintAsync, workload.PrintNone} {
		b.Run(mode, func(b *testing.B) {
			sink, err := workload.DevNullSink()
			if err != nil {
				b.Fatal(err)
			}
			defer sink.Close()
			p, _ := workload.NewPrinter(mode, sink, 0)
			defer p.Close()
			b.ReportAllocs()
			for b.Loop() {
				p.Println(context.Background(), "GET /doPrint 200")
			}
		})
	}
}

func ExampleNewPrinter() {
	// Source 000 chapter 2: print per request, one write(2) per line.
	sink, err := workload.OpenSink("devnull")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sink.Close()
	p, err := workload.NewPrinter(workload.PrintSync, sink, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	for i := range 3 {
		p.Println(context.Background(), fmt.Sprint("request ", i))
	}
	st := p.Stats()
	fmt.Println(st.Mode, st.Lines, st.Writes, st.Bytes)
	// Output: sync 3 3 30
}

func ExampleOpenSink() {
	// A terminal-like pipe that renders 200 lines a second.
	sink, err := workload.OpenSink("pipe:200lines/s")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sink.Close()
	fmt.Println(sink.Name())
	// Output: pipe 200 lines/s
}

func ExampleNewPipeSink() {
	// A 4 KiB pipe whose reader takes 1000 lines a second, like a slow terminal.
	start := time.Now()
	sink, err := workload.NewPipeSink(0, 1000, 4096)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sink.Close()
	p, _ := workload.NewPrinter(workload.PrintSync, sink, 0)
	defer p.Close()
	for i := range 50 {
		p.Println(context.Background(), fmt.Sprint("line ", i)) // fits in the pipe: returns at once
	}
	for _, lines := sink.Drained(); lines < 50; _, lines = sink.Drained() {
		time.Sleep(time.Millisecond)
	}
	// The reader's pace: 50 lines at 1000 lines/s take at least 50 ms.
	fmt.Println(p.Stats().Writes, time.Since(start) >= 50*time.Millisecond)
	// Output: 50 true
}

func TestSinkSetRate(t *testing.T) {
	t.Parallel()
	sink, err := workload.NewPipeSink(0, 10, 0) // 10 lines/s
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	p, _ := workload.NewPrinter(workload.PrintSync, sink, 0)
	defer p.Close()
	for i := range 20 {
		p.Println(context.Background(), strconv.Itoa(i))
	}
	time.Sleep(150 * time.Millisecond)
	if _, l := sink.Drained(); l > 3 {
		t.Fatalf("drained %d lines in 150ms at 10 lines/s; want <= 3", l)
	}
	if err := sink.SetRate(0, 1000); err != nil {
		t.Fatal(err)
	}
	if b, l := sink.Rate(); b != 0 || l != 1000 {
		t.Errorf("Rate() = %v, %v; want 0, 1000", b, l)
	}
	start := time.Now()
	for _, l := sink.Drained(); l < 20; _, l = sink.Drained() {
		if time.Since(start) > 2*time.Second {
			t.Fatalf("only %d of 20 lines drained 2s after speeding up to 1000 lines/s", l)
		}
		time.Sleep(2 * time.Millisecond)
	}
	// 18 lines at 1000/s ≈ 18 ms, plus the remainder of the old line's wait.
	if el := time.Since(start); el > 500*time.Millisecond*raceSlack {
		t.Errorf("speeding up took %v to drain the rest", el)
	}
	file, _ := workload.DevNullSink()
	defer file.Close()
	for _, c := range []struct {
		s    *workload.Sink
		b, l float64
		want string
	}{
		{file, 10, 0, "only a pipe"},
		{sink, -1, 0, "want 0 (unlimited)"},
		{sink, 5, 5, "not both"},
	} {
		if err := c.s.SetRate(c.b, c.l); err == nil || !contains(err.Error(), c.want) {
			t.Errorf("SetRate(%v, %v) on %s = %v; want %q", c.b, c.l, c.s.Name(), err, c.want)
		}
	}
}
