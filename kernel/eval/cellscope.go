package eval

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/conclab/conclab/internal/proctree"
)

// What a cell starts goes with the cell's interrupt, whatever context the
// cell passes (the interrupt feature). A cell's context (cell.Context())
// is cancelled when the cell is interrupted — not when it ends: servers and
// goroutines a cell starts run on into later cells. Cells written as plain
// Go pass context.Background() or context.TODO(), or start processes with
// exec.Command, which no context reaches. So, in cells:
//
//   - context.Background() and context.TODO() are the running cell's
//     context: everything given it, or a context derived from it, stops
//     when the cell is interrupted — lab code (bench.Run stops its servers
//     and kills its worker processes), net/http's Server.Shutdown through
//     a context.AfterFunc, a loop on ctx.Done();
//   - exec.Command and exec.CommandContext start their process as the
//     leader of a process group of its own, killed with everything in it
//     when the cell that made the command is interrupted (or the context
//     given to exec.CommandContext ends);
//   - with Options.OwnProcess (the kernel, the notebook runner's child):
//     every process started while the cell ran, by any code (lab code's
//     worker processes, a prefork server's children), carries the cell's
//     token in its environment (CellTokenEnv) and is killed, wherever it
//     was reparented, once the interrupted cell has stopped (Linux);
//   - the goroutines the cell's go statements started end (cellGoroutines);
//   - with Options.OwnProcess, the ports the cell listens on are freed: on
//     Linux, the listening sockets (TCP, Unix) the process opened while
//     the interrupted cell ran are shut down once the cell has stopped, so
//     a server the cell started with no context at all (http.Serve(ln, h),
//     http.ListenAndServe) stops accepting and its Serve returns.
//
// Compiled code is unaffected: net/http's own context.Background() is
// Go's. A goroutine blocked for good in compiled code (a sync.Mutex that is
// never unlocked) cannot be stopped: Go has no way to end a goroutine from
// outside (docs/kernel.md, Known limits).

// CellTokenEnv is set, in the process's environment, to a token of the
// running cell while it runs: every process started meanwhile inherits it
// (see internal/proctree).
const CellTokenEnv = "CONCLAB_CELL_TOKEN"

// cellToken is the token of cell seq of the session.
func (s *Session) cellToken(seq uint64) string {
	return s.token + "." + strconv.FormatUint(seq, 10)
}

// killCellProcesses kills every process that carries the token of cell seq.
func (s *Session) killCellProcesses(seq uint64) {
	proctree.Kill(CellTokenEnv, s.cellToken(seq))
}

// scopeOverrides are the cell-scoped context and exec functions.
func (s *Session) scopeOverrides() map[string]map[string]reflect.Value {
	return map[string]map[string]reflect.Value{
		"context/context": {
			"Background": reflect.ValueOf(func() context.Context { return s.background("context.Background", context.Background()) }),
			"TODO":       reflect.ValueOf(func() context.Context { return s.background("context.TODO", context.TODO()) }),
		},
		"os/exec/exec": {
			"Command": reflect.ValueOf(func(name string, arg ...string) *exec.Cmd {
				return s.cellCommand(exec.Command(name, arg...))
			}),
			"CommandContext": reflect.ValueOf(func(ctx context.Context, name string, arg ...string) *exec.Cmd {
				cmd := s.cellCommand(exec.CommandContext(ctx, name, arg...))
				cmd.Cancel = func() error { return killCommand(cmd) }
				return cmd
			}),
		},
	}
}

// cellBackground is context.Background() or context.TODO() in a cell: the
// cell's context, printed as Go prints the context it stands for (and
// contexts derived from it as Go prints theirs: "context.Background.WithCancel").
type cellBackground struct {
	context.Context
	name string
}

func (c cellBackground) String() string { return c.name }

// AfterFunc lets contexts derived from c follow its cancellation without a
// goroutine each (context.WithCancel and the like look for it).
func (c cellBackground) AfterFunc(f func()) func() bool { return context.AfterFunc(c.Context, f) }

// background is context.Background() or context.TODO() (named name) in a
// cell: the cell's context, but in a testing/synctest bubble, where a
// context cancelled from outside would close a channel of the bubble (a
// fatal error), Go's own (goo).
func (s *Session) background(name string, goo context.Context) context.Context {
	if inSynctestBubble() {
		return goo
	}
	return cellBackground{s.cellContext(), name}
}

// cellContext is the context of the cell running now (of the last one,
// between cells).
func (s *Session) cellContext() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cellCtx
}

// cellCommand makes cmd's process the leader of a process group that the
// cell's interrupt kills whole; the process is then reaped, so that a cell
// that started it and never waited for it leaves no zombie. A cell that
// sets cmd.SysProcAttr itself keeps its own attributes; the interrupt then
// kills the process alone.
func (s *Session) cellCommand(cmd *exec.Cmd) *exec.Cmd {
	startInGroup(cmd)
	context.AfterFunc(s.cellContext(), func() {
		if cmd.Process == nil || killCommand(cmd) != nil {
			return
		}
		// The cell may be waiting for it (cmd.Run): let that Wait reap it.
		time.Sleep(100 * time.Millisecond)
		if cmd.Process.Signal(syscall.Signal(0)) != os.ErrProcessDone {
			_, _ = cmd.Process.Wait()
		}
	})
	return cmd
}

// killCommand kills cmd's process group when it leads one, else its process.
func killCommand(cmd *exec.Cmd) error {
	if isGroupLeader(cmd) && killGroup(cmd.Process.Pid) == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// cellGoroutines are the goroutines cells started (the go statements of
// cells, guarded by goGuard) while they run, by goroutine id, and the cells
// interrupted. A goroutine of an interrupted cell ends (runtime.Goexit,
// which runs its deferred calls) at its next time.Sleep; one blocked in a
// channel operation ends then too (yaegi ends it: the cell's done channel
// is closed), and one running interpreted code at the interrupt is stopped
// by yaegi (interrupt.go).
type cellGoroutines struct {
	mu          sync.Mutex
	cellOf      map[uint64]uint64 // goroutine id -> cell
	interrupted map[uint64]bool   // cells
	any         atomic.Bool       // some cell was interrupted
}

func (g *cellGoroutines) enter(cell uint64) {
	id := goroutineID()
	g.mu.Lock()
	if g.cellOf == nil {
		g.cellOf = map[uint64]uint64{}
	}
	g.cellOf[id] = cell
	g.mu.Unlock()
}

func (g *cellGoroutines) leave() {
	id := goroutineID()
	g.mu.Lock()
	delete(g.cellOf, id)
	g.mu.Unlock()
}

// interrupt marks cell interrupted.
func (g *cellGoroutines) interrupt(cell uint64) {
	g.mu.Lock()
	if g.interrupted == nil {
		g.interrupted = map[uint64]bool{}
	}
	g.interrupted[cell] = true
	g.mu.Unlock()
	g.any.Store(true)
}

// doomed reports whether the calling goroutine was started by a cell that
// was interrupted since.
func (g *cellGoroutines) doomed() bool {
	if !g.any.Load() {
		return false
	}
	id := goroutineID()
	g.mu.Lock()
	defer g.mu.Unlock()
	cell, ok := g.cellOf[id]
	return ok && g.interrupted[cell]
}

// count is how many goroutines of cell are running.
func (g *cellGoroutines) count(cell uint64) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, c := range g.cellOf {
		if c == cell {
			n++
		}
	}
	return n
}

// goroutineID is the calling goroutine's id, from the first line of its
// stack ("goroutine 123 [running]:").
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}
