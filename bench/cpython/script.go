package cpython

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// runPython runs one embedded script with python in dir (a directory that
// already holds the files; "" makes a temporary one) and returns its
// stdout. The process runs in its own group; cancelling ctx kills the group.
func runPython(ctx context.Context, python, dir string, env map[string]string, script string, args ...string) ([]byte, error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "conclab-cpython-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		if err := WriteFiles(d); err != nil {
			return nil, err
		}
		dir = d
	}
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

// RunScript runs one of the embedded Python files (see Files) with args and
// decodes the JSON object it prints. The process is killed (with its whole
// group) when ctx ends. A missing interpreter is a *MissingError.
func RunScript(ctx context.Context, opts Options, script string, args ...string) (map[string]any, error) {
	if _, err := Source(script); err != nil {
		return nil, err
	}
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return nil, err
	}
	out, err := runPython(ctx, env.Python, "", nil, script, args...)
	if err != nil {
		return nil, fmt.Errorf("cpython: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(lastLine(out)), &m); err != nil {
		return nil, fmt.Errorf("cpython: %s printed no JSON object (%q): %w", script, tail(string(out), 300), err)
	}
	return m, nil
}

// lastLine returns the last non-empty line of b.
func lastLine(b []byte) []byte {
	b = bytes.TrimRight(b, "\n\r ")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}
