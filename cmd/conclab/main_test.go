package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Each helper the binary re-executes itself as is run by main's one
// dispatcher (reexecMain, which TestMain calls as main does), and a process
// that is none of them runs its command.
func TestReexecs(t *testing.T) {
	t.Parallel()
	if _, handled := reexecMain([]string{"version"}); handled {
		t.Fatal("a plain command was taken for a helper")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "report.txt")
	tests := []struct {
		name       string
		env        []string
		args       []string
		stdin      string
		wantCode   int
		wantStderr string
	}{
		{"kernel crash watcher", []string{"CONCLAB_KERNEL_CRASH_WATCH=" + report}, nil,
			"\x00conclab:cell [1] (\"go f()\")\npanic: boom\n\ngoroutine 5 [running]:\n", 0, "while running cell [1]"},
		{"pymodel worker", []string{"CONCLAB_PYMODEL_WORKER=no-such-mode"}, nil, "", 2, `unknown worker mode "no-such-mode"`},
		{"notebook child", nil, []string{"run", runChildArg}, "", 1, "the notebook child process"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(exe, tt.args...)
			cmd.Env = append(os.Environ(), tt.env...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("exit %d, stderr %q; want exit %d, stderr with %q", code, stderr.String(), tt.wantCode, tt.wantStderr)
			}
			if strings.Contains(stdout.String(), "PASS") || strings.Contains(stdout.String(), "=== RUN") {
				t.Errorf("the tests ran instead of the helper: %q", stdout.String())
			}
		})
	}
}
