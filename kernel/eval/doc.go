// Package eval runs Go code cell by cell in one in-process interpreter
// session (github.com/traefik/yaegi), the engine behind conclab's Jupyter
// kernel and headless notebook runner. It knows nothing of Jupyter, nor of
// the lab.
//
// State persists across cells: variables, functions, types, imports and
// goroutines. The standard library is linked in; the packages besides it
// (the lab's, imaging, go-echarts) come from Options.Symbols, which the
// command fills from internal/symbols. Both are importable without a
// compiler. When display is among them it is imported in every session and
// a gophernotes-compatible `Display(display.Data) error` function is defined,
// so gophernotes notebooks run unchanged. Lines starting with `$` run a shell
// command; `%cd DIR` changes the working directory.
//
// A cell's output (fmt.Print*, os.Stdout, os.Stderr, log) is forwarded to
// Options.Stdout and Options.Stderr as it is produced, coalesced, and at most
// MaxStreamBytes per cell (the rest is dropped with one notice). Eval returns
// only after everything the cell wrote has been forwarded.
//
// Re-running cells is safe: an import already in place is a no-op, and
// constructs the interpreter cannot take at the top level of a cell
// (comma-ok definitions, calls of function literals) are rewritten into
// forms it takes. A `$ cmd` line runs in a process group of its own, killed
// on interrupt and by Close.
//
// Cancelling the context passed to Eval interrupts the cell: time.Sleep
// returns and cell.Context() (package kernel/cell) is cancelled so that lab
// code started from the cell stops; a cell still running 250 ms later
// (interpreted loops, channel waits) is stopped by the interpreter (see
// interrupt.go for what that does to other goroutines). Eval then returns
// promptly with ctx's error and the session stays usable.
//
// A cell that does not compile declares nothing, and a name it uses that
// nothing declares is reported as "undefined: x" at its first use.
//
// The error idiom: a top-level statement assigning to err (x, err := f())
// is followed by a check, and a cell's final (value, error) shows the value
// or fails; a non-nil error fails the cell with an *Error named by the
// error's type, with no Go stack (see errcheck.go).
package eval
