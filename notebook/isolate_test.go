package notebook

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conclab/conclab/internal/crashreport"
)

// childArg makes the test binary the child process of ExecuteIsolated.
const childArg = "notebook-child"

func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == childArg {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := ChildMain(ctx, lab(Options{}))
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func childCmd() *exec.Cmd { return exec.Command(os.Args[0], childArg) }

// The child process reproduces exactly what Execute records in process:
// streams, displays updated in place in earlier cells, clears, results,
// errors, execution counts and metadata.
func TestExecuteIsolatedMatchesExecute(t *testing.T) {
	run := func(isolated bool) ([]byte, string, error) {
		nb, err := ReadFile("testdata/go-outputs.ipynb")
		if err != nil {
			t.Fatal(err)
		}
		var progress bytes.Buffer
		opts := lab(Options{Name: "go-outputs.ipynb", AllowErrors: true, Progress: &progress, Dir: "testdata"})
		if isolated {
			err = ExecuteIsolated(context.Background(), nb, opts, childCmd())
		} else {
			err = Execute(context.Background(), nb, opts)
		}
		// stdout and stderr reach the recorder through two pipes, so how
		// their chunks interleave varies from run to run: compare each
		// cell's streams joined per name, after its other outputs.
		for _, c := range nb.Cells {
			var rest []*Output
			streams := map[string]*Output{}
			for _, o := range c.Outputs {
				if o.Type != OutputStream {
					rest = append(rest, o)
				} else if s := streams[o.Name]; s != nil {
					s.Text += o.Text
				} else {
					streams[o.Name] = &Output{Type: OutputStream, Name: o.Name, Text: o.Text}
				}
			}
			for _, n := range []string{"stdout", "stderr"} {
				if s := streams[n]; s != nil {
					rest = append(rest, s)
				}
			}
			c.Outputs = rest
		}
		var b bytes.Buffer
		if werr := nb.Write(&b); werr != nil {
			t.Fatal(werr)
		}
		return b.Bytes(), progress.String(), err
	}
	want, wantProgress, err := run(false)
	if err != nil {
		t.Fatalf("Execute = %v", err)
	}
	got, gotProgress, err := run(true)
	if err != nil {
		t.Fatalf("ExecuteIsolated = %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("ExecuteIsolated recorded another notebook than Execute:\n got %s\nwant %s", got, want)
	}
	strip := func(s string) string { // timings differ
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if i := strings.LastIndex(l, " ("); i > 0 {
				l = l[:i]
			}
			out = append(out, l)
		}
		return strings.Join(out, "\n")
	}
	if strip(gotProgress) != strip(wantProgress) {
		t.Errorf("progress differs:\n got %s\nwant %s", gotProgress, wantProgress)
	}
}

// Errors come back as in process: a failing cell is a *CellError naming the
// cell, a timeout sets Timeout, and ctx ending interrupts the running cell.
func TestExecuteIsolatedErrors(t *testing.T) {
	nb := goNotebook(t, `fmt.Println("one")`, `panic("boom")`, `fmt.Println("not run")`)
	err := ExecuteIsolated(context.Background(), nb, lab(Options{Name: "p"}), childCmd())
	var ce *CellError
	if !errors.As(err, &ce) || ce.Cell != 2 || ce.Timeout || !strings.Contains(err.Error(), "boom") {
		t.Errorf("panicking cell: err = %v; want a *CellError for cell 2 mentioning boom", err)
	}
	if nb.Cells[2].ExecutionCount != nil {
		t.Error("the cell after the failure ran")
	}

	nb = goNotebook(t, "for {\n}")
	err = ExecuteIsolated(context.Background(), nb, lab(Options{Name: "t", Timeout: 300 * time.Millisecond}), childCmd())
	if !errors.As(err, &ce) || !ce.Timeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("endless cell: err = %v; want a timeout *CellError", err)
	}

	nb = goNotebook(t, `fmt.Println("waiting")`, "time.Sleep(time.Minute)")
	ctx, cancel := context.WithCancel(context.Background())
	progress := &syncBuffer{mu: make(chan struct{}, 1)}
	go func() {
		for !strings.Contains(progress.String(), "[1/2]") {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	err = ExecuteIsolated(ctx, nb, lab(Options{Name: "i", Progress: progress}), childCmd())
	if !errors.Is(err, context.Canceled) || !errors.As(err, &ce) || ce.Cell != 2 {
		t.Errorf("interrupted: err = %v; want context.Canceled in cell 2", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("interrupt took %s", d)
	}
	if got := outputTypes(nb.Cells[1]); got != OutputError {
		t.Errorf("interrupted cell outputs = %s; want an error", got)
	}
}

// A cell that clears its outputs ends with none in the parent too.
func TestExecuteIsolatedClear(t *testing.T) {
	// The display is reported by a snapshot while the cell sleeps; the clear
	// must reach the parent as "no outputs", not as "nothing new".
	nb := goNotebook(t, "display.Display(display.HTML(\"<b>gone</b>\"))\ntime.Sleep(2 * time.Second)\ndisplay.Clear(false)", `fmt.Println("kept")`)
	if err := ExecuteIsolated(context.Background(), nb, lab(Options{Name: "c"}), childCmd()); err != nil {
		t.Fatal(err)
	}
	if got := outputTypes(nb.Cells[0]); got != "" {
		t.Errorf("cleared cell outputs = %q; want none", got)
	}
	if got := outputTypes(nb.Cells[1]); got != OutputStream {
		t.Errorf("second cell outputs = %q; want its stream", got)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu chan struct{}
	b  bytes.Buffer
}

func (s *syncBuffer) lock() {
	if s.mu == nil {
		panic("syncBuffer used before init")
	}
	s.mu <- struct{}{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.lock()
	defer func() { <-s.mu }()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.lock()
	defer func() { <-s.mu }()
	return s.b.String()
}

func TestCrashLog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, stderr      string
		wantName, wantVal string
	}{
		{"stack overflow", "runtime: goroutine stack exceeds 1000000000-byte limit\nruntime: sp=0xc\nfatal error: stack overflow\n\nruntime stack:\nruntime.throw(...)\ngoroutine 1 [running]:\n",
			"FatalError", "stack overflow (goroutine stack exceeds 1000000000-byte limit)"},
		{"out of memory", "fatal error: runtime: out of memory\n\ngoroutine 7 [running]:\n", "FatalError", "out of memory"},
		{"map writes", "fatal error: concurrent map writes\n\ngoroutine 9 [running]:\ninternal/runtime/maps.fatal(...)\n", "FatalError", "concurrent map writes"},
		{"goroutine panic", "panic: boom\n\ngoroutine 12 [running]:\nmain.f()\n", "panic", "boom (in a goroutine nothing recovered)"},
		{"segfault", "unexpected fault address 0x8\nfatal error: fault\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x8 pc=0x1]\n", "FatalError", "fault"},
		{"signal only", "SIGILL: illegal instruction\nPC=0x0 m=0 sigcode=2\n", "Signal", "SIGILL: illegal instruction"},
		{"silent exit", "some line\nlast words", "Exited", "it last printed: last words"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := &crashLog{}
			// Written in small pieces, with a huge dump after.
			for i := 0; i < len(tt.stderr); i += 5 {
				l.Write([]byte(tt.stderr[i:min(i+5, len(tt.stderr))]))
			}
			for range 1000 {
				l.Write([]byte("goroutine 99 [select]:\n\tsome/frame.go:12 +0x1f\n"))
			}
			if tt.name == "silent exit" {
				l = &crashLog{}
				l.Write([]byte(tt.stderr))
			}
			fe := l.cause(nil)
			if fe.Name != tt.wantName || !strings.Contains(fe.Value, tt.wantVal) {
				t.Errorf("cause = %s: %s; want %s: …%s…", fe.Name, fe.Value, tt.wantName, tt.wantVal)
			}
			if n := l.TailLen(); n > crashreport.Tail {
				t.Errorf("kept %d tail lines; want at most %d", n, crashreport.Tail)
			}
		})
	}
}
