package cpython

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

//go:embed py/*.py
var pyFiles embed.FS

// Files lists the embedded Python files by name (e.g. "app001.py").
func Files() []string {
	ents, _ := fs.ReadDir(pyFiles, "py")
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// Source returns the text of one embedded Python file, so a notebook can
// show the app it runs.
func Source(name string) (string, error) {
	b, err := pyFiles.ReadFile("py/" + name)
	if err != nil {
		return "", fmt.Errorf("cpython: no embedded file %q (have %v)", name, Files())
	}
	return string(b), nil
}

// WriteFiles writes every embedded Python file into dir (created if needed).
func WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cpython: %w", err)
	}
	for _, name := range Files() {
		b, err := pyFiles.ReadFile("py/" + name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("cpython: write %s: %w", name, err)
		}
	}
	return nil
}
