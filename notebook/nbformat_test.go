package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoundTripJupyterWritten(t *testing.T) {
	t.Parallel()
	// Written by `jupyter nbconvert --execute` (python3-nbformat 5.5.0).
	want, err := os.ReadFile("testdata/jupyter-python.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	nb, err := Read(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := nb.Write(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("Write(Read(file)) differs from the Jupyter-written file:\n%s", got.String())
	}

	if len(nb.Cells) != 8 {
		t.Fatalf("len(Cells) = %d; want 8", len(nb.Cells))
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"markdown source joined", strings.HasPrefix(nb.Cells[0].Source, "# A Jupyter-written notebook\n\n| strategy"), true},
		{"cell id", nb.Cells[1].ID, "c1415650"},
		{"tags kept", nb.Cells[1].Metadata["tags"].([]any)[0], "keep"},
		{"stdout stream", nb.Cells[1].Outputs[0].Text, "hello\nagain\n"},
		{"stderr stream", nb.Cells[1].Outputs[1].Name, "stderr"},
		{"html joined", nb.Cells[2].Outputs[0].Data["text/html"], "<b>bold</b> &amp; <i>it</i>"},
		{"execute_result count", *nb.Cells[2].Outputs[2].ExecutionCount, 2},
		{"png base64", nb.Cells[3].Outputs[0].Data["image/png"], "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==\n"},
		{"error ename", nb.Cells[5].Outputs[0].EName, "ZeroDivisionError"},
		{"traceback lines", len(nb.Cells[5].Outputs[0].Traceback), 4},
		{"raw cell", nb.Cells[6].Type, CellRaw},
		{"unexecuted count", nb.Cells[7].ExecutionCount == nil, true},
		{"language", nb.Language(), "python"},
		{"exact number", nb.Metadata["custom"].(map[string]any)["nested"].(map[string]any)["a"].([]any)[2], json.Number("3.25")},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %#v; want %#v", c.name, c.got, c.want)
		}
	}
}

func TestReadVariants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		check    func(t *testing.T, nb *Notebook, out string)
	}{
		{"source as string and as lines",
			`{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[
			 {"id":"a","cell_type":"code","execution_count":null,"metadata":{},"outputs":[],"source":"x := 1\ny := 2"},
			 {"id":"b","cell_type":"code","execution_count":3,"metadata":{},"outputs":[],"source":["x := 1\n","y := 2"]}]}`,
			func(t *testing.T, nb *Notebook, out string) {
				if nb.Cells[0].Source != nb.Cells[1].Source || nb.Cells[0].Source != "x := 1\ny := 2" {
					t.Errorf("sources = %q, %q; want both %q", nb.Cells[0].Source, nb.Cells[1].Source, "x := 1\ny := 2")
				}
				if !strings.Contains(out, `"source": [
    "x := 1\n",
    "y := 2"
   ]`) {
					t.Errorf("source not written as lines:\n%s", out)
				}
				if !strings.Contains(out, `"execution_count": 3`) || !strings.Contains(out, `"execution_count": null`) {
					t.Errorf("execution counts not kept:\n%s", out)
				}
			}},
		{"nbformat 4.4 without ids gets stable ids and is written as 4.5",
			`{"nbformat":4,"nbformat_minor":4,"metadata":{},"cells":[
			 {"cell_type":"markdown","metadata":{},"source":"# T"},
			 {"cell_type":"markdown","metadata":{},"source":"# T"}]}`,
			func(t *testing.T, nb *Notebook, out string) {
				a, b := nb.Cells[0].ID, nb.Cells[1].ID
				if a == "" || b == "" || a == b || !idRE.MatchString(a) {
					t.Errorf("ids = %q, %q; want two distinct valid ids", a, b)
				}
				again, err := Read(strings.NewReader(out))
				if err != nil {
					t.Fatal(err)
				}
				if again.Cells[0].ID != a || again.FormatMinor != 5 {
					t.Errorf("after write: id %q minor %d; want %q, 5", again.Cells[0].ID, again.FormatMinor, a)
				}
			}},
		{"mime bundles: text joined, JSON left alone, []byte as base64",
			`{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[
			 {"id":"a","cell_type":"code","execution_count":1,"metadata":{},"source":"",
			  "outputs":[{"output_type":"execute_result","execution_count":1,"metadata":{"image/png":{"width":4}},
			   "data":{"text/plain":["a\n","b"],"application/json":["x","y"],"application/vnd.custom+json":{"k":[1,2]}}}]}]}`,
			func(t *testing.T, nb *Notebook, out string) {
				d := nb.Cells[0].Outputs[0].Data
				if d["text/plain"] != "a\nb" {
					t.Errorf("text/plain = %#v; want %q", d["text/plain"], "a\nb")
				}
				if l, ok := d["application/json"].([]any); !ok || len(l) != 2 {
					t.Errorf("application/json = %#v; want the list kept", d["application/json"])
				}
				if !strings.Contains(out, `"width": 4`) {
					t.Errorf("output metadata lost:\n%s", out)
				}
			}},
		{"stream text as lines",
			`{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[
			 {"id":"a","cell_type":"code","execution_count":1,"metadata":{},"source":"",
			  "outputs":[{"output_type":"stream","name":"stdout","text":["1\n","2\n"]}]}]}`,
			func(t *testing.T, nb *Notebook, out string) {
				if got := nb.Cells[0].Outputs[0].Text; got != "1\n2\n" {
					t.Errorf("text = %q; want %q", got, "1\n2\n")
				}
			}},
		{"UTF-8 byte order mark",
			"\ufeff" + `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"id":"a","cell_type":"raw","metadata":{},"source":"r"}]}`,
			func(t *testing.T, nb *Notebook, out string) {
				if nb.Cells[0].Source != "r" || strings.HasPrefix(out, "\ufeff") {
					t.Errorf("source %q, output starts %q; want the mark ignored and not written", nb.Cells[0].Source, out[:3])
				}
			}},
		{"markdown attachments kept",
			`{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[
			 {"id":"a","cell_type":"markdown","metadata":{},"source":"![x](attachment:x.png)","attachments":{"x.png":{"image/png":"AAAA"}}}]}`,
			func(t *testing.T, nb *Notebook, out string) {
				if !strings.Contains(out, `"attachments": {`) {
					t.Errorf("attachments lost:\n%s", out)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			nb, err := Read(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			var b bytes.Buffer
			if err := nb.Write(&b); err != nil {
				t.Fatalf("Write: %v", err)
			}
			tt.check(t, nb, b.String())
		})
	}
}

func TestReadBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"empty", "", "empty file"},
		{"not JSON", "hello, I am a text file\n", "invalid JSON"},
		{"truncated JSON", "{\n \"cells\": [\n", "invalid JSON"},
		{"a JSON array", `[1, 2]`, "invalid JSON"},
		{"a JSON object without nbformat", `{"a": 1}`, `no "nbformat" field`},
		{"nbformat 3", `{"nbformat":3,"nbformat_minor":0,"worksheets":[],"metadata":{}}`, "nbformat 3 is not supported"},
		{"no cells", `{"nbformat":4,"nbformat_minor":5,"metadata":{}}`, `no "cells" list`},
		{"unknown cell type", `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"id":"a","cell_type":"sql","metadata":{},"source":""}]}`, `(cell 1): unknown cell_type "sql"`},
		{"bad id", `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"id":"a b","cell_type":"raw","metadata":{},"source":""}]}`, `(cell 1): invalid cell id "a b"`},
		{"duplicate id", `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"id":"a","cell_type":"raw","metadata":{},"source":""},{"id":"a","cell_type":"raw","metadata":{},"source":""}]}`, `(cell 2): duplicate cell id "a"`},
		{"source a number", `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"id":"a","cell_type":"raw","metadata":{},"source":7}]}`, "source: want a string or a list of strings"},
		{"unknown output", `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"id":"a","cell_type":"code","execution_count":null,"metadata":{},"source":"","outputs":[{"output_type":"beep"}]}]}`, `output 1: unknown output_type "beep"`},
		{"trailing data", `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[]} {}`, "data after the notebook object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(tt.in))
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Read(%q) error = %v; want a *FormatError", tt.in, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read(%q) error = %q; want it to contain %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestReadFileNamesPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ipynb")
	if err := os.WriteFile(bad, []byte("{oops"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{bad, bad + ": not a valid notebook: invalid JSON: line 1"},
		{filepath.Join(dir, "missing.ipynb"), "missing.ipynb: no such file"},
		{dir, "is a directory"},
	}
	for _, tt := range tests {
		_, err := ReadFile(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadFile(%s) error = %v; want it to contain %q", tt.path, err, tt.want)
		}
	}
}

func TestCheckLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		meta    string
		wantErr string
	}{
		{"none declared", `{}`, ""},
		{"conclab kernel", `{"kernelspec":{"name":"conclab","display_name":"Go (conclab)","language":"go"}}`, ""},
		{"gophernotes", `{"kernelspec":{"name":"gophernotes","display_name":"Go","language":"go"},"language_info":{"name":"go"}}`, ""},
		{"language_info only", `{"language_info":{"name":"go"}}`, ""},
		{"python kernel", `{"kernelspec":{"name":"python3","display_name":"Python 3","language":"python"}}`, `a python notebook (kernel "python3"), not Go`},
		{"R by language_info", `{"language_info":{"name":"R"}}`, "a r notebook, not Go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			nb, err := Read(strings.NewReader(`{"nbformat":4,"nbformat_minor":5,"cells":[],"metadata":` + tt.meta + `}`))
			if err != nil {
				t.Fatal(err)
			}
			err = nb.CheckLanguage()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("CheckLanguage() = %v; want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("CheckLanguage() = %v; want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestWriteFileAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "n.ipynb")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	nb := &Notebook{Cells: []*Cell{{Type: CellMarkdown, Source: "hi"}}}
	if err := nb.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil || back.Cells[0].Source != "hi" {
		t.Fatalf("ReadFile after WriteFile = %v, %v", back, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v; want the old file's 0600 kept", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries; want only the notebook (no temp files)", len(entries))
	}
	// A bad cell type fails before anything is written.
	bad := &Notebook{Cells: []*Cell{{Type: "sql"}}}
	if err := bad.WriteFile(path); err == nil {
		t.Error("WriteFile of a cell of unknown type succeeded")
	}
	if back, err := ReadFile(path); err != nil || back.Cells[0].Source != "hi" {
		t.Errorf("file changed by a failed write: %v, %v", back, err)
	}
}

func TestWriteFileThroughSymlinks(t *testing.T) {
	t.Parallel()
	// Each case lays out a directory (relative to its temp dir) and writes
	// through the link; want is the file that must hold the notebook, and
	// links the paths that must still be symbolic links.
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		write string
		want  string
		links []string
	}{
		{"relative link to a file beside it", func(t *testing.T, dir string) {
			mustWrite(t, filepath.Join(dir, "real.ipynb"), 0o640)
			mustLink(t, "real.ipynb", filepath.Join(dir, "link.ipynb"))
		}, "link.ipynb", "real.ipynb", []string{"link.ipynb"}},
		{"relative link into another directory", func(t *testing.T, dir string) {
			mustMkdir(t, filepath.Join(dir, "store"))
			mustMkdir(t, filepath.Join(dir, "work"))
			mustWrite(t, filepath.Join(dir, "store", "nb.ipynb"), 0o640)
			mustLink(t, "../store/nb.ipynb", filepath.Join(dir, "work", "nb.ipynb"))
		}, "work/nb.ipynb", "store/nb.ipynb", []string{"work/nb.ipynb"}},
		{"chain of two links, one absolute", func(t *testing.T, dir string) {
			mustMkdir(t, filepath.Join(dir, "a"))
			mustWrite(t, filepath.Join(dir, "a", "real.ipynb"), 0o640)
			mustLink(t, filepath.Join(dir, "a", "real.ipynb"), filepath.Join(dir, "mid.ipynb"))
			mustLink(t, "mid.ipynb", filepath.Join(dir, "top.ipynb"))
		}, "top.ipynb", "a/real.ipynb", []string{"top.ipynb", "mid.ipynb"}},
		{"link in a linked directory, relative to the real one", func(t *testing.T, dir string) {
			mustMkdir(t, filepath.Join(dir, "deep", "real"))
			mustWrite(t, filepath.Join(dir, "deep", "target.ipynb"), 0o640)
			mustLink(t, "../target.ipynb", filepath.Join(dir, "deep", "real", "nb.ipynb"))
			mustLink(t, filepath.Join("deep", "real"), filepath.Join(dir, "alias"))
		}, "alias/nb.ipynb", "deep/target.ipynb", []string{"deep/real/nb.ipynb"}},
		{"dangling link: the target is created", func(t *testing.T, dir string) {
			mustLink(t, "new.ipynb", filepath.Join(dir, "link.ipynb"))
		}, "link.ipynb", "new.ipynb", []string{"link.ipynb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tt.setup(t, dir)
			before := map[string]os.FileMode{}
			if fi, err := os.Stat(filepath.Join(dir, tt.want)); err == nil {
				before[tt.want] = fi.Mode().Perm()
			}
			nb := &Notebook{Cells: []*Cell{{Type: CellMarkdown, Source: "through"}}}
			if err := nb.WriteFile(filepath.Join(dir, tt.write)); err != nil {
				t.Fatalf("WriteFile(%s) = %v", tt.write, err)
			}
			if back, err := ReadFile(filepath.Join(dir, tt.want)); err != nil || back.Cells[0].Source != "through" {
				t.Fatalf("target %s after WriteFile(%s): %v, %v; want the notebook", tt.want, tt.write, back, err)
			}
			fi, err := os.Lstat(filepath.Join(dir, tt.want))
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("target %s: %v, %v; want a regular file", tt.want, fi, err)
			}
			if m, ok := before[tt.want]; ok && fi.Mode().Perm() != m {
				t.Errorf("target mode = %v; want %v kept", fi.Mode().Perm(), m)
			}
			for _, l := range tt.links {
				if fi, err := os.Lstat(filepath.Join(dir, l)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("%s is no longer a symbolic link (%v, %v)", l, fi, err)
				}
			}
			// No temporary file left anywhere.
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && strings.HasSuffix(p, ".tmp") {
					t.Errorf("temporary file left: %s", p)
				}
				return nil
			})
		})
	}
	t.Run("link loop", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		mustLink(t, "b.ipynb", filepath.Join(dir, "a.ipynb"))
		mustLink(t, "a.ipynb", filepath.Join(dir, "b.ipynb"))
		nb := &Notebook{Cells: []*Cell{{Type: CellMarkdown, Source: "x"}}}
		err := nb.WriteFile(filepath.Join(dir, "a.ipynb"))
		if err == nil || !strings.Contains(err.Error(), "symbolic links") {
			t.Errorf("WriteFile through a link loop = %v; want an error about symbolic links", err)
		}
	})
}

func mustWrite(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte("old"), mode); err != nil {
		t.Fatal(err)
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestSplitLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"a", []string{"a"}},
		{"a\n", []string{"a\n"}},
		{"a\nb", []string{"a\n", "b"}},
		{"\n\n", []string{"\n", "\n"}},
	}
	for _, tt := range tests {
		got := splitLines(tt.in)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("splitLines(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzRead: Read never panics, and what it accepts writes and reads back to
// the same bytes.
func FuzzRead(f *testing.F) {
	for _, p := range []string{"testdata/jupyter-python.ipynb", "testdata/go-outputs.ipynb"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"raw","metadata":{},"source":["a\n","b"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		nb, err := Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		var w1, w2 bytes.Buffer
		if err := nb.Write(&w1); err != nil {
			return // e.g. an output whose type Write rejects
		}
		nb2, err := Read(bytes.NewReader(w1.Bytes()))
		if err != nil {
			t.Fatalf("written notebook does not read back: %v\n%s", err, w1.String())
		}
		if err := nb2.Write(&w2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("write is not stable:\n%s\n---\n%s", w1.String(), w2.String())
		}
	})
}
