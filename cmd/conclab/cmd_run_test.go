package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conclab/conclab/notebook"
)

// TestMain makes the test binary stand in for the conclab binary when a test
// re-executes it: as any of its helpers (reexecs: `conclab run`'s notebook
// child process, a process pool worker, the kernel's crash watcher).
func TestMain(m *testing.M) {
	if code, ok := reexecMain(os.Args[1:]); ok {
		os.Exit(code)
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

// A fatal error of the Go runtime in a cell ends only that notebook's
// process: the cell gets an error output naming it in one line (in the
// executed notebook and the HTML report), the cells before it keep their
// outputs, and the next notebook still runs. Fatal errors fail the run even
// with --allow-errors: the session is gone.
func TestRunFatalErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, cell        string
		wantName, wantMsg string
	}{
		{"stack", "debug.SetMaxStack(8 << 20)\nfunc f(n int) int { return f(n+1) + 1 }\nf(0)", "FatalError", "stack overflow (goroutine stack exceeds 8388608-byte limit)"},
		{"memory", "b := make([]byte, 1<<47)\nlen(b)", "FatalError", "out of memory"},
		{"maps", "m := map[int]int{}\nfor i := 0; i < 4; i++ {\n\tgo func() {\n\t\tfor j := 0; ; j++ {\n\t\t\tm[j%64] = j\n\t\t}\n\t}()\n}\ntime.Sleep(10 * time.Second)", "FatalError", "concurrent map writes"},
		{"signal", "p, _ := os.FindProcess(os.Getpid())\np.Kill()\ntime.Sleep(10 * time.Second)", "Killed", "killed by signal 9"},
		{"exit", "syscall.Exit(3)", "Exited", "exited (exit status 3)"},
	}
	var paths []string
	for _, tt := range tests {
		p := filepath.Join(dir, "crash-"+tt.name+".ipynb")
		writeNotebook(t, p, `fmt.Println("before")`, tt.cell, `fmt.Println("after")`)
		paths = append(paths, p)
	}
	// The crashing cell of this one printed, and slept past a snapshot,
	// before the crash: what it showed is kept.
	partial := filepath.Join(dir, "crash-partial.ipynb")
	writeNotebook(t, partial, "fmt.Println(\"partial output\")\ntime.Sleep(3 * time.Second)\nb := make([]byte, 1<<47)\nlen(b)")
	good := filepath.Join(dir, "good.ipynb")
	writeNotebook(t, good, "6 * 7")
	out, html := filepath.Join(dir, "out"), filepath.Join(dir, "html")
	code, log := runCmd(t, append([]string{"--allow-errors", "--out", out, "--html", html, good, partial}, paths...)...)
	if code != 1 {
		t.Fatalf("exit %d; want 1\n%s", code, log)
	}
	if len(log) > 16<<10 || regexp.MustCompile(`goroutine \d+ \[`).MatchString(log) {
		t.Errorf("log is %d bytes or holds a goroutine dump; want a few lines per notebook:\n%s", len(log), log)
	}
	if !strings.Contains(log, "ok "+good) {
		t.Errorf("good.ipynb did not run after the crashes:\n%s", log)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nb, err := notebook.ReadFile(filepath.Join(out, "crash-"+tt.name+".ipynb"))
			if err != nil {
				t.Fatal(err)
			}
			c := nb.Cells
			if len(c[0].Outputs) != 1 || c[0].Outputs[0].Text != "before\n" {
				t.Errorf("cell 1 outputs = %+v; want its output kept", c[0].Outputs)
			}
			var e *notebook.Output
			for _, o := range c[1].Outputs {
				if o.Type == notebook.OutputError {
					e = o
				}
			}
			if e == nil {
				t.Fatalf("cell 2 outputs = %+v; want an error output", c[1].Outputs)
			}
			if e.EName != tt.wantName || !strings.Contains(e.EValue, tt.wantMsg) {
				t.Errorf("cell 2 error = %s: %s; want %s: …%s…", e.EName, e.EValue, tt.wantName, tt.wantMsg)
			}
			if len(c[2].Outputs) != 0 || c[2].ExecutionCount != nil {
				t.Errorf("cell 3 = %+v, count %v; want it not run", c[2].Outputs, c[2].ExecutionCount)
			}
			wantLog := paths[i] + ": cell 2 (id cb): " + tt.wantName + ": "
			if !strings.Contains(log, wantLog) {
				t.Errorf("log lacks %q:\n%s", wantLog, log)
			}
			page, err := os.ReadFile(filepath.Join(html, "crash-"+tt.name+".html"))
			if err != nil || !strings.Contains(string(page), tt.wantMsg) {
				t.Errorf("HTML report (%v) does not show %q", err, tt.wantMsg)
			}
		})
	}
	nb, err := notebook.ReadFile(filepath.Join(out, "crash-partial.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if got := outputTexts(nb.Cells[0]); !strings.Contains(got, "partial output") || !strings.Contains(got, "FatalError: out of memory") {
		t.Errorf("crashing cell's outputs = %q; want what it printed, then the fatal error", got)
	}
}

// outputTexts joins a cell's stream texts and error lines.
func outputTexts(c *notebook.Cell) string {
	var b strings.Builder
	for _, o := range c.Outputs {
		b.WriteString(o.Text)
		if o.Type == notebook.OutputError {
			b.WriteString(o.EName + ": " + o.EValue + "\n")
		}
	}
	return b.String()
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the cell did not record its process: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// --timeout stops a cell and everything it started, in about the timeout:
// a `$` line whose command runs in the background (the shell is
// interrupted, the sleep would be orphaned), and a cell whose process does
// not respond at all (it stops itself with SIGSTOP after starting a sleep):
// that process is killed KillGrace after the timeout, and the sleep too.
// The next notebook still runs.
func TestRunTimeoutKillsProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	shell := filepath.Join(dir, "a-shell.ipynb")
	writeNotebook(t, shell, "$ sleep 60 & echo $! > shell.pid; wait", `fmt.Println("not run")`)
	stuck := filepath.Join(dir, "b-stuck.ipynb")
	// The shell's parent is the notebook's process.
	writeNotebook(t, stuck, "$ sleep 60 & echo $! > stuck.pid; kill -STOP $PPID")
	good := filepath.Join(dir, "c-good.ipynb")
	writeNotebook(t, good, "1 + 1")
	timeout := 2 * time.Second
	start := time.Now()
	code, log := runCmd(t, "--timeout", timeout.String(), "--out", filepath.Join(dir, "out"), dir)
	elapsed := time.Since(start)
	if code != 1 {
		t.Fatalf("exit %d; want 1\n%s", code, log)
	}
	for _, want := range []string{
		shell + ": cell 1 (id ca): timed out after 2s",
		stuck + ": cell 1 (id ca): timed out after 2s (interrupted); the cell did not stop within 5s, so its process was killed",
		"ok " + good,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	// Two timeouts, one of them killed after the grace; 10 s of slack for a
	// loaded machine (the old runner took 6 s for the first alone and left
	// the sleep running).
	if limit := 2*timeout + notebook.KillGrace + 10*time.Second; elapsed > limit {
		t.Errorf("run took %s; want under %s", elapsed, limit)
	}
	for _, f := range []string{"shell.pid", "stuck.pid"} {
		if pid := readPid(t, filepath.Join(dir, f)); alive(pid) {
			t.Errorf("process %d (%s) still running after the run", pid, f)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	nb, err := notebook.ReadFile(filepath.Join(dir, "out", "b-stuck.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if got := outputTexts(nb.Cells[0]); !strings.Contains(got, "Timeout: timed out after 2s") {
		t.Errorf("stuck cell outputs = %q; want a Timeout error", got)
	}
}

// A print loop is capped at notebook.MaxStreamBytes in the cell's output,
// keeps the notebook's process small, and still times out.
func TestRunOutputFloodBounded(t *testing.T) {
	dir := t.TempDir()
	flood := filepath.Join(dir, "flood.ipynb")
	writeNotebook(t, flood, `for {
	fmt.Print(strings.Repeat("z", 65536))
}`)
	start := time.Now()
	code, log := runCmd(t, "--timeout", "3s", "--out", filepath.Join(dir, "out"), flood)
	elapsed := time.Since(start)
	if code != 1 || !strings.Contains(log, "timed out after 3s") {
		t.Fatalf("exit %d; want 1 with a timeout\n%s", code, log)
	}
	if limit := 3*time.Second + notebook.KillGrace + 10*time.Second; elapsed > limit {
		t.Errorf("run took %s; want under %s", elapsed, limit)
	}
	nb, err := notebook.ReadFile(filepath.Join(dir, "out", "flood.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	text := outputTexts(nb.Cells[0])
	if n := strings.Count(text, "z"); n > notebook.MaxStreamBytes || n < notebook.MaxStreamBytes/2 {
		t.Errorf("cell kept %d bytes of output; want up to the %d cap", n, notebook.MaxStreamBytes)
	}
	// One notice: the session's (the kernel's wording), or the runner's own.
	if n := strings.Count(text, "truncated after 16 MiB"); n != 1 {
		t.Errorf("%d truncation notices in the cell's output; want 1", n)
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err == nil {
		// Linux reports KiB: the largest child this test process waited for.
		if rss := ru.Maxrss << 10; rss > 400<<20 {
			t.Errorf("a notebook process reached %d MiB RSS; want under 400 MiB", rss>>20)
		}
	}
}

// --inplace and --out write through symbolic links: the link stays a link,
// the file it points to is replaced atomically.
func TestRunWritesThroughSymlinks(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"store", "work", "out", "elsewhere"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	real := filepath.Join(dir, "store", "nb.ipynb")
	writeNotebook(t, real, "40 + 2")
	link := filepath.Join(dir, "work", "nb.ipynb")
	if err := os.Symlink("../store/nb.ipynb", link); err != nil {
		t.Fatal(err)
	}
	if code, log := runCmd(t, "--inplace", link); code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--inplace replaced the link: %v, %v", fi, err)
	}
	nb, err := notebook.ReadFile(real)
	if err != nil || len(nb.Cells[0].Outputs) != 1 || nb.Cells[0].Outputs[0].Data["text/plain"] != "42" {
		t.Errorf("link target not executed in place: %v", err)
	}
	// --out: an existing link in the output directory is written through.
	outLink := filepath.Join(dir, "out", "nb.ipynb")
	target := filepath.Join(dir, "elsewhere", "kept.ipynb")
	if err := os.Symlink(target, outLink); err != nil {
		t.Fatal(err)
	}
	if code, log := runCmd(t, "--out", filepath.Join(dir, "out"), link); code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	if fi, err := os.Lstat(outLink); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--out replaced the link: %v, %v", fi, err)
	}
	if nb, err := notebook.ReadFile(target); err != nil || len(nb.Cells[0].Outputs) != 1 {
		t.Errorf("--out did not write through the link to %s: %v", target, err)
	}
	for _, d := range []string{"store", "work", "out", "elsewhere"} {
		entries, _ := os.ReadDir(filepath.Join(dir, d))
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".tmp") {
				t.Errorf("temporary file left: %s/%s", d, e.Name())
			}
		}
	}
}

// conclab run: a display updated while its cell runs is printed as live
// progress lines on stderr, and the written notebook and HTML report keep its
// final state only; a failed err check fails the cell with the error's type.
func TestRunLiveProgressAndErrIdiom(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "live.ipynb")
	writeNotebook(t, path, `h, err := display.Open(display.Text("step 0 of 3"))
for i := 1; i <= 3; i++ {
	time.Sleep(30 * time.Millisecond)
	if err := h.Update(display.Text(fmt.Sprintf("step %d of 3", i))); err != nil {
		panic(err)
	}
}`, `import "strconv"
n, err := strconv.Atoi("3x")
fmt.Println("not reached", n)`)
	out, html := filepath.Join(dir, "out"), filepath.Join(dir, "html")
	code, log := runCmd(t, "--out", out, "--html", html, path)
	if code == 0 {
		t.Fatalf("exit 0; want the err check to fail the run\n%s", log)
	}
	live := strings.Index(log, path+" cell 1: step 3 of 3\n")
	if live < 0 || strings.Index(log, path+" [1/2] cell 1") < live {
		t.Errorf("no final live line before cell 1's progress line:\n%s", log)
	}
	if !strings.Contains(log, `*strconv.NumError: cell line 2: strconv.Atoi: parsing "3x": invalid syntax`) || strings.Contains(log, "goroutine") {
		t.Errorf("the failed check is not reported readably:\n%s", log)
	}
	nb, err := notebook.ReadFile(filepath.Join(out, "live.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if o := nb.Cells[0].Outputs; len(o) != 1 || o[0].Data["text/plain"] != "step 3 of 3" {
		t.Errorf("cell 1 outputs = %+v; want the display's final state only", o)
	}
	if o := nb.Cells[1].Outputs; len(o) != 1 || o[0].EName != "*strconv.NumError" ||
		o[0].EValue != `cell line 2: strconv.Atoi: parsing "3x": invalid syntax` || len(o[0].Traceback) != 2 {
		t.Errorf("cell 2 outputs = %+v; want the error of the failed check", o)
	}
	page, err := os.ReadFile(filepath.Join(html, "live.html"))
	if err != nil || !strings.Contains(string(page), "step 3 of 3") || strings.Contains(string(page), "step 2 of 3") {
		t.Errorf("HTML report: %v; want the display's final state only", err)
	}
}
