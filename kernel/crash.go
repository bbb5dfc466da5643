package kernel

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/conclab/conclab/internal/crashreport"
	"github.com/conclab/conclab/internal/proctree"
)

// A Go fatal error (stack overflow, out of memory, concurrent map writes,
// an unrecovered panic in compiled code) ends the kernel's process at once:
// no Go code of the process runs after it, so the kernel cannot turn it into
// a cell error. What the kernel does instead:
//
//   - Its runtime crash report goes (debug.SetCrashOutput) into a pipe read
//     by a small watcher process, a copy of the kernel's own executable
//     started with crashWatchEnv set. The kernel writes into the same pipe
//     which cell is running. When the pipe ends with a crash report, the
//     watcher prints one line on the kernel's stderr naming the fatal error
//     and the cell, and leaves it in a report file for the next kernel on
//     the same connection (a front end restarts a dead kernel with the same
//     connection), which shows it in the first cell it runs.
//   - The goroutine stack limit is lowered to maxStack, so that runaway
//     recursion ends (still fatally) before it takes a gigabyte.
//
// The watcher ends when the pipe closes, i.e. with the kernel's process,
// after killing every process that carries the kernel's KernelTokenEnv.

// crashWatchEnv, when set in the environment of a process linking this
// package, makes it a crash watcher: its value is the report file.
const crashWatchEnv = "CONCLAB_KERNEL_CRASH_WATCH"

// KernelTokenEnv is set in the kernel's environment to a token of its own,
// so every process a cell starts, and all their descendants, carry it: when
// the kernel's process ends — shut down, killed, or by a fatal error — the
// watcher kills every process still carrying it, wherever it was
// reparented. No process started from a cell outlives the kernel.
const KernelTokenEnv = "CONCLAB_KERNEL_TOKEN"

// maxStack is the kernel's goroutine stack limit (Go's default is 1 GB).
const maxStack = 256 << 20

// Lines the kernel writes into the crash pipe.
const (
	notePrefix = "\x00conclab:"
	noteCell   = notePrefix + "cell "
	noteIdle   = notePrefix + "idle"
	noteExit   = notePrefix + "exit"
)

// CrashWatchMain runs this process as a kernel's crash watcher if Start
// started it as one (it re-executes the running binary so), and returns its
// exit code with handled=true; otherwise it returns at once with
// handled=false. A binary that starts kernels calls it first thing in main
// (the conclab binary's one re-exec dispatcher does) and in TestMain.
func CrashWatchMain() (code int, handled bool) {
	report, ok := os.LookupEnv(crashWatchEnv)
	if !ok {
		return 0, false
	}
	code = crashWatch(os.Stdin, os.Stderr, report)
	// The pipe has ended with the kernel's process: what its cells
	// started goes with it.
	if token := os.Getenv(KernelTokenEnv); token != "" {
		proctree.Kill(KernelTokenEnv, token)
	}
	return code, true
}

// crashWatch reads the crash pipe until it closes. It returns 0.
func crashWatch(r io.Reader, stderr io.Writer, report string) int {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	cell := ""
	var crash crashreport.Report
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, noteCell):
			cell = strings.TrimPrefix(l, noteCell)
		case l == noteIdle:
			cell = ""
		case l == noteExit:
			return 0
		case strings.HasPrefix(l, notePrefix):
		default:
			_, _ = crash.Write([]byte(l + "\n"))
		}
	}
	reason := crashReason(crash.Cause())
	if reason == "" {
		return 0
	}
	where := "outside any cell (in a goroutine started earlier)"
	if cell != "" {
		where = "while running cell " + cell
	}
	line := fmt.Sprintf("conclab kernel: the kernel process ended with a Go fatal error %s: %s. "+
		"Fatal errors cannot be recovered: the session's state is lost and the front end restarts the kernel.", where, reason)
	fmt.Fprintln(stderr, line)
	if report != "" {
		_ = os.WriteFile(report, []byte(line+"\n"), 0o600)
	}
	return 0
}

// crashReason names the fatal error of a crash report's cause ("" for an
// empty report).
func crashReason(c crashreport.Cause) string {
	switch {
	case c.Kind == crashreport.FatalError && strings.HasPrefix(c.Message, "stack overflow"):
		return fmt.Sprintf("fatal error: %s (a goroutine's stack passed the kernel's limit of %d MiB: runaway recursion?)", c.Message, maxStack>>20)
	case c.Kind != "":
		return c.String()
	case c.First != "":
		return "fatal error (the Go runtime's report on the kernel's stderr starts with: " + c.First + ")"
	}
	return ""
}

// crashNotes writes the running cell into the crash pipe.
type crashNotes struct {
	mu sync.Mutex
	w  *os.File
}

func (c *crashNotes) note(s string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = c.w.WriteString(s + "\n")
}

// close tells the watcher the kernel ends normally and releases the pipe.
func (c *crashNotes) close() {
	if c == nil {
		return
	}
	c.note(noteExit)
	crashOutputMu.Lock()
	if crashOutput == c {
		_ = debug.SetCrashOutput(nil, debug.CrashOptions{})
		crashOutput = nil
	}
	crashOutputMu.Unlock()
	c.mu.Lock()
	_ = c.w.Close()
	c.mu.Unlock()
}

// crashOutput is the notes whose pipe receives the runtime's crash output
// (the last kernel started in the process).
var (
	crashOutputMu sync.Mutex
	crashOutput   *crashNotes
)

// cellNote is the note of cell [count] whose code is code.
func cellNote(count int, code string) string {
	first := strings.TrimSpace(code)
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i] + " ..."
	}
	if len(first) > 80 {
		first = first[:80] + "..."
	}
	return noteCell + "[" + strconv.Itoa(count) + "] (" + strconv.Quote(first) + ")"
}

// crashReportPath is the report file of the kernel on connection ci.
func crashReportPath(ci ConnectionInfo) string {
	h := sha256.Sum256([]byte(ci.Key + "|" + ci.IP + "|" + strconv.Itoa(ci.ShellPort)))
	return filepath.Join(os.TempDir(), "conclab-kernel-crash-"+hex.EncodeToString(h[:8])+".txt")
}

// takeCrashReport returns and removes the report a previous kernel on the
// same connection left ("" for none). Reports no kernel took within a day
// (their front end did not restart the kernel) are removed too.
func takeCrashReport(path string) string {
	if old, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "conclab-kernel-crash-*.txt")); len(old) > 0 {
		for _, f := range old {
			if st, err := os.Stat(f); err == nil && time.Since(st.ModTime()) > 24*time.Hour {
				_ = os.Remove(f)
			}
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	_ = os.Remove(path)
	return strings.TrimSpace(string(b))
}

// startCrashWatch starts the watcher and routes the runtime's crash output
// to it. stderr is where the watcher prints its line.
func startCrashWatch(report string, stderr *os.File) (*crashNotes, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("crash watcher: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("crash watcher: %w", err)
	}
	token := proctree.NewToken()
	if err := os.Setenv(KernelTokenEnv, token); err != nil {
		return nil, fmt.Errorf("crash watcher: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), crashWatchEnv+"="+report)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r, nil, stderr
	// Its own group: a front end killing the kernel's group must not take
	// the watcher before it has read the crash report; it ends on EOF.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("crash watcher: %w", err)
	}
	r.Close()
	go func() { _ = cmd.Wait() }()
	if err := debug.SetCrashOutput(w, debug.CrashOptions{}); err != nil {
		w.Close()
		return nil, fmt.Errorf("crash watcher: %w", err)
	}
	debug.SetMaxStack(maxStack)
	c := &crashNotes{w: w}
	crashOutputMu.Lock()
	crashOutput = c
	crashOutputMu.Unlock()
	return c, nil
}
