package cpython

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/internal/pyenv"
)

// ErrUnavailable is matched (errors.Is) by every error that means "real
// CPython or one of its packages is not installed here". A notebook tests for
// it and skips the real-CPython part instead of failing.
var ErrUnavailable = errors.New("cpython: real CPython is not available")

// Distributions maps each Python module the apps import to the PyPI
// distribution that provides it, pinned in python/requirements.lock.
var Distributions = map[string]string{
	"fastapi":   "fastapi",
	"uvicorn":   "uvicorn",
	"starlette": "starlette",
	"anyio":     "anyio",
	"PIL":       "pillow",
	"aiohttp":   "aiohttp",
	"httpx":     "httpx",
	"requests":  "requests",
	"multipart": "python-multipart",
	"flask":     "flask",
	"gunicorn":  "gunicorn",
	"pymysql":   "pymysql",
	"aiomysql":  "aiomysql",
}

// MissingError says which interpreter or modules are missing and how to get
// them: conclab's pinned environment, made by scripts/setup.sh. It matches
// ErrUnavailable with errors.Is and unwraps to the underlying cause, if any.
type MissingError struct {
	Python        string   // the interpreter tried; empty when none was found
	Modules       []string // Python modules that failed to import; empty when Python itself is missing
	Distributions []string // the PyPI distributions that provide them (pinned in python/requirements.lock)
	Err           error    // the underlying cause, may be nil
}

func (e *MissingError) Error() string {
	var b strings.Builder
	if len(e.Modules) == 0 {
		b.WriteString("cpython: no usable Python interpreter")
		if e.Python != "" {
			fmt.Fprintf(&b, " (%s)", e.Python)
		}
		if e.Err != nil {
			fmt.Fprintf(&b, ": %v", e.Err)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "cpython: %s cannot import %s (PyPI: %s); conclab's environment has them: run `%s`",
		e.Python, strings.Join(e.Modules, ", "), strings.Join(e.Distributions, " "), pyenv.Setup)
	return b.String()
}

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *MissingError) Is(target error) bool { return target == ErrUnavailable }

// Unwrap returns the underlying cause.
func (e *MissingError) Unwrap() error { return e.Err }

// Env describes the real CPython found on this machine.
type Env struct {
	Python         string            // absolute path of the interpreter
	Version        string            // e.g. "3.11.2"
	Implementation string            // "CPython"
	CPUs           int               // os.cpu_count() as Python sees it
	Packages       map[string]string // module -> distribution version, for modules that import
	Missing        map[string]string // module -> import error, for modules that do not
}

// Require returns nil when every module imports, else a *MissingError
// naming them and the PyPI distributions that provide them.
func (e *Env) Require(modules ...string) error {
	var miss []string
	for _, m := range modules {
		if _, ok := e.Packages[m]; !ok {
			miss = append(miss, m)
		}
	}
	if len(miss) == 0 {
		return nil
	}
	return missing(e.Python, miss, nil)
}

func missing(python string, modules []string, err error) *MissingError {
	var dists []string
	seen := map[string]bool{}
	for _, m := range modules {
		p := Distributions[m]
		if p == "" {
			p = strings.ToLower(m)
		}
		if !seen[p] {
			seen[p] = true
			dists = append(dists, p)
		}
	}
	return &MissingError{Python: python, Modules: modules, Distributions: dists, Err: err}
}

// PackageList is the found packages as "name version" joined by ", ",
// sorted by name.
func (e *Env) PackageList() string {
	names := make([]string, 0, len(e.Packages))
	for n := range e.Packages {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + e.Packages[n]
	}
	return strings.Join(parts, ", ")
}

// Label is a short description such as "CPython 3.11.2, 2 CPUs".
func (e *Env) Label() string {
	return fmt.Sprintf("%s %s, %d CPUs", e.Implementation, e.Version, e.CPUs)
}

// Describe returns a copy of f with the environment on every row: label
// columns python (the version) and packages, and the number column cpus.
func (e *Env) Describe(f *frame.Frame) *frame.Frame {
	g := f.With("python", e.Implementation+" "+e.Version).With("packages", e.PackageList())
	return extend(g, func(_ int, r frame.Row) { r["cpus"] = e.CPUs })
}

// Frame is the environment as a one-row frame: python, version,
// implementation, cpus, and one column per module holding its version
// ("" when missing).
func (e *Env) Frame() *frame.Frame {
	f := frame.New("real CPython")
	r := frame.Row{"python": e.Python, "version": e.Version, "implementation": e.Implementation, "cpus": e.CPUs}
	for m := range Distributions {
		r[m] = e.Packages[m]
	}
	f.MustAppend(r)
	return f
}

// ResolvePython returns the interpreter to use: explicit if not empty, else
// $CONCLAB_PYTHON, else the python of conclab's pinned environment (.venv,
// made by scripts/setup.sh; see internal/pyenv). It never falls back to
// whichever python3 is first on PATH. It fails with a *MissingError when
// none is found.
func ResolvePython(explicit string) (string, error) {
	p, err := pyenv.Find(explicit)
	if err != nil {
		return "", missing(explicit, nil, err)
	}
	return p, nil
}

var detectCache sync.Map // python path -> *Env

// Detect runs the interpreter (see ResolvePython) once to find its version,
// CPU count and which of the apps' modules import. The result is cached per
// interpreter. A missing interpreter is a *MissingError; missing modules are
// not an error here (see Env.Require) so that one source's apps can run when
// another's packages are absent.
func Detect(ctx context.Context, python string) (*Env, error) {
	py, err := ResolvePython(python)
	if err != nil {
		return nil, err
	}
	if v, ok := detectCache.Load(py); ok {
		return v.(*Env), nil
	}
	src, err := pyFiles.ReadFile("py/detect.py")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", string(src))
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	setGroup(cmd, true)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("cpython: detect %s: %w", py, ctx.Err())
		}
		return nil, missing(py, nil, fmt.Errorf("%v: %s", err, tail(stderr.String(), 400)))
	}
	var d struct {
		Version        string            `json:"version"`
		Implementation string            `json:"implementation"`
		CPUs           int               `json:"cpus"`
		Found          map[string]string `json:"found"`
		Missing        map[string]string `json:"missing"`
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		return nil, fmt.Errorf("cpython: detect %s: bad output %q: %w", py, tail(out.String(), 200), err)
	}
	e := &Env{Python: py, Version: d.Version, Implementation: d.Implementation, CPUs: d.CPUs, Packages: d.Found, Missing: d.Missing}
	if e.Packages == nil {
		e.Packages = map[string]string{}
	}
	detectCache.Store(py, e)
	return e, nil
}

// tail returns the last n bytes of s, trimmed.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}
