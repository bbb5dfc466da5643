package kernel

import (
	"os"
	"path/filepath"
	"testing"
)

func TestJupyterPython(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ shebang, want string }{
		{"#!/opt/py/bin/python3.12\n", "/opt/py/bin/python3.12"},
		{"#!/usr/bin/env python3\nimport x\n", "python3"},
		{"no shebang\n", "python3"},
	}
	for _, tt := range tests {
		if err := os.WriteFile(filepath.Join(dir, "jupyter"), []byte(tt.shebang), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", dir)
		if got := jupyterPython(); got != tt.want {
			t.Errorf("shebang %q: jupyterPython() = %q; want %q", tt.shebang, got, tt.want)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if got := jupyterPython(); got != "python3" {
		t.Errorf("no jupyter on PATH: %q; want python3", got)
	}
}
