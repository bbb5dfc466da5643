// Command conclab is the concurrency lab's one binary: a Jupyter kernel for Go,
// a headless notebook runner, a load generator and a strategy server.
//
// Each subcommand lives in its own file (cmd_*.go) and registers itself with
// register in an init function, so subcommands can be added independently.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/kernel"
	"github.com/conclab/conclab/notebook"
)

// command is one subcommand of the binary.
type command struct {
	name    string
	summary string
	// run executes the subcommand. args excludes the subcommand name.
	// It returns the process exit code; errors are printed by run itself
	// or returned, in which case main prints "conclab NAME: err" and exits 1.
	run func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error)
}

var commands = map[string]command{}

// register adds a subcommand; it panics on a duplicate name (a programming error
// caught by every test run).
func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("conclab: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(mainCode(os.Args[1:], os.Stdout, os.Stderr))
}

func mainCode(args []string, stdout, stderr io.Writer) int {
	if code, handled := reexecMain(args); handled {
		return code
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "conclab: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := c.run(ctx, args[1:], stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "conclab %s: %v\n", c.name, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// A reexec is a helper process this binary runs as when it re-executes
// itself, told by its environment or arguments.
type reexec struct {
	name string
	// main runs the process as the helper when it was started as one:
	// it returns the exit code and handled=true; otherwise handled=false,
	// at once.
	main func(args []string) (code int, handled bool)
}

// reexecs are all the helpers. reexecMain, first thing in main (and in the
// tests' TestMain), is their one dispatcher: no package takes a process
// over from an init function.
var reexecs = []reexec{
	{"kernel crash watcher (started by kernel.Start)", func([]string) (int, bool) { return kernel.CrashWatchMain() }},
	{"process-pool and prefork worker (bench/pymodel, bench/strategy)", func([]string) (int, bool) { return pymodel.WorkerMain() }},
	{"notebook child process (started by conclab run)", runChildMain},
}

// reexecMain runs the process as the helper it was started as, if any.
func reexecMain(args []string) (code int, handled bool) {
	for _, r := range reexecs {
		if code, handled := r.main(args); handled {
			return code, true
		}
	}
	return 0, false
}

// runChildMain runs `conclab run`'s notebook child process: the arguments
// are exactly "run" and runChildArg.
func runChildMain(args []string) (int, bool) {
	if len(args) != 2 || args[0] != "run" || args[1] != runChildArg {
		return 0, false
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return notebook.ChildMain(ctx, runnerOptions()), true
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: conclab COMMAND [ARGS]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'conclab COMMAND -h' for a command's flags.")
}
