package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/conclab/conclab/notebook"
)

func init() {
	register(command{
		name:    "run",
		summary: "execute notebooks headless; write executed .ipynb and HTML reports",
		run:     runNotebooks,
	})
}

const runUsage = `usage: conclab run [flags] PATH...

Executes each notebook (a .ipynb file, or every .ipynb in a directory, sorted)
cell by cell, with the kernel's interpreter and display package, in a child
process of its own: a fatal error (stack overflow, out of memory, concurrent
map writes) fails that notebook's cell and the other notebooks still run.
A cell that does not stop within 5s of its --timeout is killed with its
process, and every process a notebook started is killed when it ends.
Executed notebooks are written with --out DIR or --inplace (through symlinks,
atomically); HTML reports with --html DIR. With neither --out nor --inplace
the input files are not touched. Flags may come before or after the paths.

-p NAME VALUE (repeatable) sets a parameter for the run, as papermill's -p
does: the notebook's cell tagged "parameters" declares it as a variable
(vus := 20, think := time.Second), and a cell tagged "injected-parameters"
after it sets the value, converted to the variable's type (-p vus 40,
-p think 500ms, -p quick true, -p sizes '[1,10]').

--quick applies the notebook's quick parameters, its metadata
{"conclab": {"quick": {"vus": "4", "duration": "2s"}}} (text values as on
-p), before any -p (an explicit -p wins), and sets CONCLAB_QUICK=1 in the
run's environment for notebooks that read it.

flags:
  -p NAME VALUE
    	set the parameter NAME to VALUE for this run (repeatable)
`

// runNotebooks is `conclab run`. It returns 0 when every notebook ran without
// a failing cell (or with --allow-errors), 1 when some failed, 2 on bad usage.
func runNotebooks(ctx context.Context, args []string, _, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	htmlDir := fs.String("html", "", "write an HTML report per notebook to `DIR`")
	outDir := fs.String("out", "", "write executed notebooks to `DIR`")
	inplace := fs.Bool("inplace", false, "overwrite the input notebooks with the executed ones (only when a notebook succeeds)")
	quick := fs.Bool("quick", false, "quick run: apply each notebook's metadata conclab.quick as -p parameters (an explicit -p wins) and set CONCLAB_QUICK=1")
	timeout := fs.Duration("timeout", notebook.DefaultTimeout, "time limit per cell")
	allowErrors := fs.Bool("allow-errors", false, "keep running after a failing cell; record the error and exit 0")
	fs.Usage = func() {
		fmt.Fprint(stderr, runUsage)
		fs.PrintDefaults()
	}
	args, params, perr := parameterArgs(args)
	if perr != nil {
		fmt.Fprintf(stderr, "conclab run: %v\n", perr)
		return 2, nil
	}
	var paths []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0, nil
			}
			return 2, nil
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	switch {
	case len(paths) == 0:
		fmt.Fprintln(stderr, "conclab run: no notebooks given")
		fs.Usage()
		return 2, nil
	case *inplace && *outDir != "":
		fmt.Fprintln(stderr, "conclab run: --inplace and --out exclude each other")
		return 2, nil
	case *timeout <= 0:
		fmt.Fprintln(stderr, "conclab run: --timeout must be positive")
		return 2, nil
	case *inplace && len(params) > 0:
		fmt.Fprintln(stderr, "conclab run: -p with --inplace would write the parameters into the source notebook; write the run elsewhere with --out DIR")
		return 2, nil
	}
	files, err := notebookFiles(paths)
	if err != nil {
		return 1, err
	}
	if err := checkBasenames(files, *outDir != "" || *htmlDir != ""); err != nil {
		return 2, err
	}
	for _, d := range []string{*outDir, *htmlDir} {
		if d != "" {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return 1, err
			}
		}
	}
	if *quick {
		prev, had := os.LookupEnv("CONCLAB_QUICK")
		os.Setenv("CONCLAB_QUICK", "1")
		defer func() {
			if had {
				os.Setenv("CONCLAB_QUICK", prev)
			} else {
				os.Unsetenv("CONCLAB_QUICK")
			}
		}()
	}

	start := time.Now()
	var failed []string
	for _, f := range files {
		if ctx.Err() != nil {
			failed = append(failed, f+": not run (interrupted)")
			continue
		}
		if err := runOne(ctx, f, runConfig{html: *htmlDir, out: *outDir, inplace: *inplace,
			timeout: *timeout, allowErrors: *allowErrors, params: params, quick: *quick}, stderr); err != nil {
			fmt.Fprintf(stderr, "FAIL %v\n", err)
			failed = append(failed, err.Error())
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(stderr, "conclab run: %d of %d notebook(s) failed in %s:\n", len(failed), len(files), time.Since(start).Round(time.Millisecond))
		for _, f := range failed {
			fmt.Fprintf(stderr, "  %s\n", firstLineOf(f))
		}
		return 1, nil
	}
	fmt.Fprintf(stderr, "conclab run: %d notebook(s) ok in %s\n", len(files), time.Since(start).Round(time.Millisecond))
	return 0, nil
}

// runChildArg, the only argument, makes `conclab run` the child process of
// notebook.ExecuteIsolated (not a flag: it is not for people).
const runChildArg = "--notebook-child-process"

type runConfig struct {
	html, out   string
	inplace     bool
	timeout     time.Duration
	allowErrors bool
	params      []notebook.Parameter
	quick       bool // apply the notebook's quick parameters before params
}

// runOne executes one notebook and writes its outputs. The executed notebook
// and HTML report are written even when a cell failed (they show the error),
// except over the input file, which is replaced only on success.
func runOne(ctx context.Context, path string, cfg runConfig, stderr io.Writer) error {
	nb, err := notebook.ReadFile(path)
	if err != nil {
		return err
	}
	if err := nb.CheckLanguage(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	params := cfg.params
	if cfg.quick {
		qp, err := nb.QuickParameters()
		if err != nil {
			return fmt.Errorf("%s: --quick: %w", path, err)
		}
		if len(qp) > 0 && cfg.inplace {
			return fmt.Errorf("%s: --quick with --inplace would write the notebook's quick parameters into it; write the run elsewhere with --out DIR", path)
		}
		params = append(qp, params...) // an explicit -p comes last and wins
	}
	if err := nb.SetParameters(params); err != nil {
		if cfg.quick && len(params) > len(cfg.params) {
			return fmt.Errorf("%s: quick parameters (metadata conclab.quick): %w", path, err)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(stderr, "== %s (%d cells)\n", path, len(nb.Cells))
	if len(params) > 0 {
		var set []string
		for _, p := range mergedParameters(params) {
			set = append(set, p.Name+"="+p.Text)
		}
		fmt.Fprintf(stderr, "%s: parameters %s\n", path, strings.Join(set, " "))
	}
	start := time.Now()
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("%s: finding this program to run the notebook: %w", path, err)
	}
	runErr := notebook.ExecuteIsolated(ctx, nb, notebook.Options{Name: path, Dir: filepath.Dir(path),
		Timeout: cfg.timeout, AllowErrors: cfg.allowErrors, Progress: stderr, Terminal: isTerminal(stderr)},
		exec.Command(exe, "run", runChildArg))

	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	var werrs []error
	if cfg.out != "" {
		dst := filepath.Join(cfg.out, base+".ipynb")
		if runErr != nil && sameFile(dst, path) {
			fmt.Fprintf(stderr, "%s: not written over the input, because the run failed\n", dst)
		} else if err := nb.WriteFile(dst); err != nil {
			werrs = append(werrs, err)
		}
	}
	if cfg.inplace {
		if runErr != nil {
			fmt.Fprintf(stderr, "%s: left unchanged, because the run failed\n", path)
		} else if err := nb.WriteFile(path); err != nil {
			werrs = append(werrs, err)
		}
	}
	if cfg.html != "" {
		dst := filepath.Join(cfg.html, base+".html")
		if err := nb.WriteFileHTML(dst, htmlOptions()); err != nil {
			werrs = append(werrs, err)
		} else {
			fmt.Fprintf(stderr, "%s: HTML report %s\n", path, dst)
		}
	}
	if runErr != nil {
		return errors.Join(append([]error{runErr}, werrs...)...)
	}
	if len(werrs) > 0 {
		return fmt.Errorf("%s: %w", path, errors.Join(werrs...))
	}
	fmt.Fprintf(stderr, "ok %s (%s)\n", path, time.Since(start).Round(time.Millisecond))
	return nil
}

// mergedParameters is ps with each name once, its last value in the place
// of its first (as Notebook.SetParameters merges them).
func mergedParameters(ps []notebook.Parameter) []notebook.Parameter {
	var out []notebook.Parameter
	index := map[string]int{}
	for _, p := range ps {
		if i, ok := index[p.Name]; ok {
			out[i].Text = p.Text
			continue
		}
		index[p.Name] = len(out)
		out = append(out, p)
	}
	return out
}

// parameterArgs takes the -p NAME VALUE triples (also --p, -parameters,
// --parameters) out of args, up to a "--", and returns the other arguments
// and the parameters in order.
func parameterArgs(args []string) (rest []string, ps []notebook.Parameter, err error) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--":
			return append(rest, args[i:]...), ps, nil
		case "-p", "--p", "-parameters", "--parameters":
			if i+2 >= len(args) {
				return nil, nil, fmt.Errorf("%s needs a name and a value: %s NAME VALUE", a, a)
			}
			ps = append(ps, notebook.Parameter{Name: args[i+1], Text: args[i+2]})
			i += 2
		default:
			rest = append(rest, a)
		}
	}
	return rest, ps, nil
}

// notebookFiles expands paths: files are taken as given (they must exist),
// directories contribute every .ipynb directly inside them, sorted (Jupyter's
// .ipynb_checkpoints are skipped).
func notebookFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: no such notebook or directory", p)
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var found []string
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".ipynb") && !strings.HasPrefix(e.Name(), ".") {
				found = append(found, filepath.Join(p, e.Name()))
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no .ipynb notebooks in this directory", p)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}

// checkBasenames refuses two notebooks whose outputs would have the same name.
func checkBasenames(files []string, writing bool) error {
	if !writing {
		return nil
	}
	seen := map[string]string{}
	for _, f := range files {
		b := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if prev, ok := seen[b]; ok && !sameFile(prev, f) {
			return fmt.Errorf("%s and %s would write the same output names (%s.*); run them separately", prev, f, b)
		}
		seen[b] = f
	}
	return nil
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
