package pyenv_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conclab/conclab/internal/pyenv"
)

func TestFindExplicitWins(t *testing.T) {
	dir := t.TempDir()
	py := filepath.Join(dir, "python")
	if err := os.WriteFile(py, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(pyenv.Env, "")
	got, err := pyenv.Find(py)
	if err != nil || got != py {
		t.Fatalf("Find(%q) = %q, %v; want %q, nil", py, got, err, py)
	}
	t.Setenv(pyenv.Env, py)
	if got, err := pyenv.Find(""); err != nil || got != py {
		t.Fatalf("Find with $%s=%q = %q, %v; want %q", pyenv.Env, py, got, err, py)
	}
}

func TestFindExplicitMissingIsAnError(t *testing.T) {
	t.Setenv(pyenv.Env, "/nonexistent/python3")
	_, err := pyenv.Find("")
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/python3") || !strings.Contains(err.Error(), pyenv.Env) {
		t.Fatalf("Find with a missing $%s: err = %v; want it named", pyenv.Env, err)
	}
}

func TestFindVenvFromWorkingDirectory(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"python", ".venv/bin", "notebooks/sub"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, pyenv.LockFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, ".venv/bin/python")
	if err := os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(pyenv.Env, "")
	t.Chdir(filepath.Join(root, "notebooks/sub"))
	got, err := pyenv.Find("")
	if err != nil || got != want {
		t.Fatalf("Find from a subdirectory = %q, %v; want %q", got, err, want)
	}
}

func TestFindNothingSaysHowToMakeIt(t *testing.T) {
	t.Setenv(pyenv.Env, "")
	t.Chdir(t.TempDir())
	_, err := pyenv.Find("")
	// The test binary lives in a temporary directory with no lock beside it,
	// so only the working directory could have given one.
	if !errors.Is(err, pyenv.ErrNotFound) || !strings.Contains(err.Error(), pyenv.Setup) {
		t.Fatalf("Find with no environment: err = %v; want ErrNotFound naming %q", err, pyenv.Setup)
	}
}
