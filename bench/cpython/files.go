package cpython

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// The helpers every source's Python shares (py/_conclab.py: knobs from the
// environment, the database, the trace middleware) and the interpreter
// probe (py/detect.py). A source's own files live in its package
// (sources/...), handed over as App.Files or Script.Files.
//
//go:embed py/*.py
var pyFiles embed.FS

// Shared is the shared Python files (_conclab.py, detect.py), written
// beside every app and script.
func Shared() fs.FS {
	sub, _ := fs.Sub(pyFiles, "py")
	return sub
}

// Names lists the Python files of files (top level, sorted).
func Names(files fs.FS) []string {
	if files == nil {
		return nil
	}
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// Code returns the text of one file of files, so a notebook can show the
// Python it runs, or an error naming the files there are.
func Code(files fs.FS, name string) (string, error) {
	if files == nil {
		return "", errors.New("cpython: Code: no files")
	}
	b, err := fs.ReadFile(files, name)
	if err != nil {
		return "", fmt.Errorf("cpython: no file %q (have %v)", name, Names(files))
	}
	return string(b), nil
}

// WriteFiles writes the shared files and then those of files (which may
// be nil) into dir, created if needed; a file of files replaces a shared
// one of the same name.
func WriteFiles(dir string, files fs.FS) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cpython: %w", err)
	}
	for _, src := range []fs.FS{Shared(), files} {
		for _, name := range Names(src) {
			b, err := fs.ReadFile(src, name)
			if err != nil {
				return fmt.Errorf("cpython: read %s: %w", name, err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				return fmt.Errorf("cpython: write %s: %w", name, err)
			}
		}
	}
	return nil
}
