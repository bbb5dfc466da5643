// Package pyenv finds the Python interpreter of conclab's pinned environment:
// the virtual environment scripts/setup.sh makes at .venv from
// python/requirements.lock. Nothing in conclab runs "whatever python3 is
// first on PATH": the real-CPython strategies, the calibration and the
// sources' clients all run the interpreter Find returns.
package pyenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Env is the environment variable that names an interpreter explicitly.
const Env = "CONCLAB_PYTHON"

// VenvDir is the environment's directory, relative to the repository root.
const VenvDir = ".venv"

// LockFile is the lock the environment is made from, relative to the root.
const LockFile = "python/requirements.lock"

// Setup is the command that makes the environment, for error messages.
const Setup = "bash scripts/setup.sh"

// ErrNotFound is matched (errors.Is) by Find's error when no interpreter is
// found.
var ErrNotFound = errors.New("pyenv: conclab's Python environment was not found")

// Find returns the interpreter to use, an absolute path:
//
//  1. explicit, when not empty;
//  2. $CONCLAB_PYTHON, when set;
//  3. .venv/bin/python of the checkout this binary was built into (the
//     executable's directory's parent, as for bin/conclab), then of the
//     working directory or the nearest parent holding python/requirements.lock.
//
// An explicit choice (1 or 2) that cannot be run is an error, never a
// fallback. The error names what was tried and how to make the environment.
func Find(explicit string) (string, error) {
	for _, c := range []struct{ path, from string }{{explicit, "the explicit choice"}, {os.Getenv(Env), "$" + Env}} {
		if c.path == "" {
			continue
		}
		p, err := exec.LookPath(c.path)
		if err != nil {
			return "", fmt.Errorf("pyenv: %s %q: %w", c.from, c.path, err)
		}
		return abs(p), nil
	}
	var tried []string
	for _, root := range roots() {
		p := filepath.Join(root, VenvDir, "bin", "python")
		tried = append(tried, p)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (tried %v): run `%s` in the conclab checkout (it makes %s from %s), or set %s",
		ErrNotFound, tried, Setup, VenvDir, LockFile, Env)
}

// roots lists the checkouts to look in: the executable's, then the working
// directory's (the nearest directory up holding the lock file).
func roots() []string {
	var out []string
	seen := map[string]bool{}
	add := func(d string) {
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		root := filepath.Dir(filepath.Dir(exe))
		if _, err := os.Stat(filepath.Join(root, LockFile)); err == nil {
			add(root)
		}
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, LockFile)); err == nil {
				add(d)
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return out
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
