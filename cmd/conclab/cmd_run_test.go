package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conclab/conclab/notebook"
)

// TestMain makes the test binary stand in for the conclab binary when a test
// re-executes it: as `conclab run`'s notebook child process, or as a process
// pool worker.
func TestMain(m *testing.M) {
	if hook := workerHook; hook != nil {
		if code, ok := hook(); ok {
			os.Exit(code)
		}
	}
	if len(os.Args) == 3 && os.Args[1] == "run" && os.Args[2] == runChildArg {
		os.Exit(mainCode(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// writeNotebook writes a Go notebook with one code cell per source.
func writeNotebook(t *testing.T, path string, sources ...string) {
	t.Helper()
	var cells []map[string]any
	for i, s := range sources {
		cells = append(cells, map[string]any{"id": "c" + string(rune('a'+i)), "cell_type": "code",
			"execution_count": nil, "metadata": map[string]any{}, "outputs": []any{}, "source": s})
	}
	b, err := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5, "cells": cells,
		"metadata": map[string]any{"kernelspec": map[string]any{"name": "conclab", "display_name": "Go (conclab)", "language": "go"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func runCmd(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	code, err := runNotebooks(context.Background(), args, &bytes.Buffer{}, &stderr)
	if err != nil {
		stderr.WriteString("conclab run: " + err.Error() + "\n")
		if code == 0 {
			code = 1
		}
	}
	return code, stderr.String()
}

// The run tests are not parallel: notebooks execute one at a time per
// process and change its working directory.

func TestRunWritesOutputs(t *testing.T) {
	dir := t.TempDir()
	nbDir := filepath.Join(dir, "nbs")
	if err := os.Mkdir(nbDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeNotebook(t, filepath.Join(nbDir, "b.ipynb"), `fmt.Println("quick =", os.Getenv("CONCLAB_QUICK"))`)
	writeNotebook(t, filepath.Join(nbDir, "a.ipynb"), "display.Display(display.HTML(\"<i>hi</i>\"))", "21 * 2")
	if err := os.WriteFile(filepath.Join(nbDir, "notes.txt"), []byte("not a notebook"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, html := filepath.Join(dir, "out"), filepath.Join(dir, "html")
	code, log := runCmd(t, "--html", html, nbDir, "--out", out, "--quick")
	if code != 0 {
		t.Fatalf("exit %d; want 0\n%s", code, log)
	}
	if os.Getenv("CONCLAB_QUICK") != "" {
		t.Error("CONCLAB_QUICK left set after the run")
	}
	// Sorted: a before b; per-cell progress.
	if ia, ib := strings.Index(log, "== "+filepath.Join(nbDir, "a.ipynb")), strings.Index(log, "== "+filepath.Join(nbDir, "b.ipynb")); ia < 0 || ib < ia {
		t.Errorf("notebooks not run in sorted order:\n%s", log)
	}
	if !strings.Contains(log, "a.ipynb [2/2] cell 2 \"21 * 2\": ok") {
		t.Errorf("no per-cell progress:\n%s", log)
	}
	b, err := notebook.ReadFile(filepath.Join(out, "b.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Cells[0].Outputs) != 1 {
		t.Fatalf("b.ipynb outputs = %+v; want one", b.Cells[0].Outputs)
	}
	if got := b.Cells[0].Outputs[0].Text; got != "quick = 1\n" {
		t.Errorf("--quick: cell printed %q; want CONCLAB_QUICK=1 during the run", got)
	}
	a, err := notebook.ReadFile(filepath.Join(out, "a.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Cells[1].Outputs) != 1 || a.Cells[1].Outputs[0].Data["text/plain"] != "42" {
		t.Errorf("executed a.ipynb = %+v; want 42", a.Cells[1].Outputs)
	}
	page, err := os.ReadFile(filepath.Join(html, "a.html"))
	if err != nil || !strings.Contains(string(page), "<i>hi</i>") {
		t.Errorf("HTML report: %v; want the display embedded", err)
	}
	// The inputs were not touched.
	in, _ := notebook.ReadFile(filepath.Join(nbDir, "a.ipynb"))
	if len(in.Cells[1].Outputs) != 0 {
		t.Error("input notebook modified without --inplace")
	}
}

func TestRunInplace(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.ipynb"), filepath.Join(dir, "bad.ipynb")
	writeNotebook(t, good, "1 + 1")
	writeNotebook(t, bad, "1 + 1", `panic("boom")`)
	badBefore, _ := os.ReadFile(bad)

	code, log := runCmd(t, "--inplace", good, bad)
	if code != 1 {
		t.Fatalf("exit %d; want 1 (one notebook failed)\n%s", code, log)
	}
	if nb, err := notebook.ReadFile(good); err != nil || len(nb.Cells[0].Outputs) != 1 || nb.Cells[0].Outputs[0].Data["text/plain"] != "2" {
		t.Errorf("good.ipynb not executed in place: %v\n%s", err, log)
	}
	if after, _ := os.ReadFile(bad); !bytes.Equal(after, badBefore) {
		t.Error("bad.ipynb changed although its run failed")
	}
	if !strings.Contains(log, bad+": cell 2 (id cb): panic") || !strings.Contains(log, "left unchanged") {
		t.Errorf("log does not name the failing notebook and cell:\n%s", log)
	}
}

func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	py := file("python.ipynb", `{"nbformat":4,"nbformat_minor":5,"cells":[],"metadata":{"kernelspec":{"name":"python3","display_name":"Python 3","language":"python"}}}`)
	panics := filepath.Join(dir, "panics.ipynb")
	writeNotebook(t, panics, `fmt.Println("ok")`, "var m map[string]int\nm[\"k\"] = 1")
	endless := filepath.Join(dir, "endless.ipynb")
	writeNotebook(t, endless, "for {\n}")
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"missing file", []string{filepath.Join(dir, "missing.ipynb")}, 1, []string{"missing.ipynb: no such notebook or directory"}},
		{"text file", []string{file("notes.ipynb", "just text\n")}, 1, []string{"notes.ipynb: not a valid notebook: invalid JSON"}},
		{"invalid JSON", []string{file("broken.ipynb", "{\"cells\": [\n")}, 1, []string{"broken.ipynb: not a valid notebook: invalid JSON"}},
		{"not a notebook object", []string{file("obj.ipynb", `{"name": "x"}`)}, 1, []string{`obj.ipynb: not a valid notebook: no "nbformat" field`}},
		{"another language", []string{py}, 1, []string{"python.ipynb: a python notebook (kernel \"python3\"), not Go"}},
		{"panicking cell", []string{panics}, 1, []string{"panics.ipynb: cell 2 (id cb): panic", "assignment to entry in nil map"}},
		{"endless cell", []string{"--timeout", "300ms", endless}, 1, []string{"endless.ipynb: cell 1 (id ca): timed out after 300ms"}},
		{"directory without notebooks", []string{empty}, 1, []string{"no .ipynb notebooks in this directory"}},
		{"no paths", nil, 2, []string{"no notebooks given"}},
		{"inplace and out", []string{"--inplace", "--out", dir, panics}, 2, []string{"--inplace and --out exclude each other"}},
		{"bad flag", []string{"--fast", panics}, 2, []string{"flag provided but not defined: -fast"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := map[string][]byte{}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if !e.IsDir() {
					before[e.Name()], _ = os.ReadFile(filepath.Join(dir, e.Name()))
				}
			}
			args := tt.args
			if len(args) > 0 && args[0] != "--inplace" {
				args = append([]string{"--inplace"}, args...) // the inputs must survive even so
			}
			code, log := runCmd(t, args...)
			if code != tt.wantCode {
				t.Errorf("exit %d; want %d\n%s", code, tt.wantCode, log)
			}
			for _, w := range tt.want {
				if !strings.Contains(log, w) {
					t.Errorf("log lacks %q:\n%s", w, log)
				}
			}
			for name, b := range before {
				if after, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(after, b) {
					t.Errorf("%s changed by a failed --inplace run", name)
				}
			}
		})
	}
}
