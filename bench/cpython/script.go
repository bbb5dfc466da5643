package cpython

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Script is one Python script of a source (a client, a calibration, a
// probe) run to completion on the pinned environment's interpreter: its
// files are written into a temporary directory beside the shared helpers,
// it runs there in its own process group with PYTHONUNBUFFERED=1, and the
// JSON object on the last line it prints is its result.
type Script struct {
	// Files holds Name and anything it imports beside it (a source
	// package's embedded py directory).
	Files fs.FS
	// Name is the script, e.g. "client002.py"; Args its arguments.
	Name string
	Args []string
	// Env adds environment variables (CONCLAB_* knobs).
	Env map[string]string
	// Requires lists the Python modules it imports: Run fails with a
	// *MissingError naming their distributions when one is missing.
	Requires []string
	// DB, when not nil, gives the script a database as an App's (the
	// CONCLAB_DB_* or CONCLAB_SQLITE variables); a table it names itself
	// ("" Table) is dropped after.
	DB *DB
	// Dir, when not empty, is where the script runs (its files are
	// written there); "" makes a temporary directory removed after.
	Dir string
}

// Run runs the script and decodes the JSON object it printed last into
// out (a pointer; nil ignores it). The process group is killed when the
// script ends or ctx does. A missing interpreter or module is a
// *MissingError (errors.Is ErrUnavailable).
func (s Script) Run(ctx context.Context, opts Options, out any) error {
	if s.Files == nil || s.Name == "" {
		return errors.New("cpython: Script: need Files and a Name")
	}
	if _, err := fs.Stat(s.Files, s.Name); err != nil {
		return fmt.Errorf("cpython: Script: no file %q (have %v)", s.Name, Names(s.Files))
	}
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return err
	}
	if err := env.Require(s.Requires...); err != nil {
		return err
	}
	dir := s.Dir
	if dir == "" {
		d, err := os.MkdirTemp(opts.Dir, "conclab-script-")
		if err != nil {
			return fmt.Errorf("cpython: %w", err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	if err := WriteFiles(dir, s.Files); err != nil {
		return err
	}
	vars := map[string]string{}
	for k, v := range s.Env {
		vars[k] = v
	}
	if s.DB != nil {
		table := s.DB.Table
		if table == "" {
			table = uniqueTable("conclab_script")
			defer func() {
				c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = s.DB.drop(c, table)
			}()
		}
		dbv, err := s.DB.env(dir, table)
		if err != nil {
			return err
		}
		for k, v := range dbv {
			vars[k] = v
		}
	}
	stdout, err := runPython(ctx, env.Python, dir, vars, s.Name, s.Args...)
	if err != nil {
		return fmt.Errorf("cpython: %w", err)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(bytes.TrimSpace(lastLine(stdout)), out); err != nil {
		return fmt.Errorf("cpython: %s printed no JSON object (%q): %w", s.Name, tail(string(stdout), 300), err)
	}
	return nil
}

// runPython runs script with python in dir (which holds the files) and
// returns its stdout. The process runs in its own group; cancelling ctx
// kills the group.
func runPython(ctx context.Context, python, dir string, env map[string]string, script string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, python, append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONUNBUFFERED=1", "PYTHONDONTWRITEBYTECODE=1")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	setGroup(cmd, true)
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		// Whatever the script started (threads die with it; a fork would
		// not) goes with it.
		_ = killGroup(cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", script, ctx.Err())
		}
		return nil, fmt.Errorf("%s %v: %w; stderr: %s", script, args, err, tail(stderr.String(), 1500))
	}
	return out.Bytes(), nil
}

// lastLine returns the last non-empty line of b.
func lastLine(b []byte) []byte {
	b = bytes.TrimRight(b, "\n\r ")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}
