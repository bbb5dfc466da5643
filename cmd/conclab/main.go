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
	if hook := workerHook; hook != nil {
		if code, handled := hook(); handled {
			return code
		}
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

// workerHook lets a package that re-executes this binary as a worker process
// (process pools, prefork workers) take over before flag parsing. It returns
// handled=false when the process is not a worker.
var workerHook func() (code int, handled bool)

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
