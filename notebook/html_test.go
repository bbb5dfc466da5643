package notebook

import (
	"bytes"
	"strings"
	"testing"
)

func exportHTML(t *testing.T, nb *Notebook, opts HTMLOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := nb.WriteHTML(&b, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteHTMLJupyterNotebook(t *testing.T) {
	t.Parallel()
	nb, err := ReadFile("testdata/jupyter-python.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	page := exportHTML(t, nb, HTMLOptions{})
	wants := []struct{ what, s string }{
		{"doctype", "<!DOCTYPE html>"},
		{"title from the first heading", "<title>A Jupyter-written notebook</title>"},
		{"heading", `<h1 id="a-jupyter-written-notebook">A Jupyter-written notebook</h1>`},
		{"GFM table", "<th>strategy</th>"},
		{"right-aligned column", `<td style="text-align:right">12</td>`},
		{"emphasis", "<em>emphasis</em>"},
		{"unicode", "Ünïcödé ✓"},
		{"highlighted code", `<pre class="chroma">`},
		{"highlight CSS", ".chroma {"},
		{"token classes", `<span class="s">`},
		{"prompt", "In&nbsp;[1]:"},
		{"stdout", "<pre class=\"stdout\">hello\nagain\n</pre>"},
		{"stderr", `<pre class="stderr">to stderr`},
		{"HTML output embedded", "<b>bold</b> &amp; <i>it</i>"},
		{"SVG inline", `<svg xmlns="http://www.w3.org/2000/svg" width="10"`},
		{"PNG as data URI", `<img src="data:image/png;base64,iVBORw0KGgo`},
		{"execute_result prompt", "Out&nbsp;[2]:"},
		{"error traceback", "ZeroDivisionError"},
		{"ANSI colour converted", `<span style="color:#cd3131">ZeroDivisionError</span>`},
	}
	for _, w := range wants {
		if !strings.Contains(page, w.s) {
			t.Errorf("page lacks %s: %q", w.what, w.s)
		}
	}
	if strings.Contains(page, "\x1b") {
		t.Error("page contains raw ANSI escapes")
	}
	if strings.Contains(page, "raw text") {
		t.Error("a raw cell without an HTML format was rendered")
	}
	if strings.Count(page, "<style>") != 1 {
		t.Errorf("page has %d <style> blocks; want one", strings.Count(page, "<style>"))
	}
}

func TestWriteHTMLOutputs(t *testing.T) {
	t.Parallel()
	one := 1
	nb := &Notebook{Cells: []*Cell{
		{Type: CellMarkdown, Source: "# Title\n\n![pic](attachment:p.png)\n\n- [x] done\n", Attachments: map[string]any{"p.png": map[string]any{"image/png": "QUJD\n"}}},
		{Type: CellCode, Source: "chart()", ExecutionCount: &one, Outputs: []*Output{
			{Type: OutputDisplayData, Data: map[string]any{"text/html": `<div id="c"></div><script>document.getElementById("c").textContent = "ran";</script>`, "text/plain": "chart"}},
			{Type: OutputDisplayData, Data: map[string]any{"text/markdown": "**strong** | x\n---|---\n1 | 2\n", "text/plain": "md"}},
			{Type: OutputDisplayData, Data: map[string]any{"application/json": map[string]any{"k": []any{1.0, "<v>"}}, "text/plain": "{...}"}},
			{Type: OutputDisplayData, Data: map[string]any{"image/jpeg": "/9j/AA==", "text/plain": "jpeg"}, Metadata: map[string]any{"image/jpeg": map[string]any{"width": 20}}},
			{Type: OutputDisplayData, Data: map[string]any{"application/javascript": "console.log('</script>')"}},
			{Type: OutputStream, Name: "stdout", Text: "<not a tag> & \x1b[1mbold\x1b[0m"},
			{Type: OutputError, EName: "panic", EValue: "boom", Traceback: []string{"panic: boom", "  at cell line 1"}},
		}},
		{Type: CellRaw, Source: "<p id=rawhtml>raw</p>", Metadata: map[string]any{"format": "text/html"}},
	}}
	page := exportHTML(t, nb, HTMLOptions{Title: "Given <title>"})
	wants := []struct{ what, s string }{
		{"given title escaped", "<title>Given &lt;title&gt;</title>"},
		{"attachment as data URI", `<img src="data:image/png;base64,QUJD" alt="pic">`},
		{"task list", `<input checked="" disabled="" type="checkbox">`},
		{"script kept runnable", `<script>document.getElementById("c").textContent = "ran";</script>`},
		{"markdown output rendered", "<strong>strong</strong>"},
		{"markdown output table", "<th>x</th>"},
		{"JSON pretty and escaped", "&#34;&lt;v&gt;&#34;"},
		{"JPEG with width", `<img src="data:image/jpeg;base64,/9j/AA==" width="20"`},
		{"javascript escaped end tag", `console.log('<\/script>')`},
		{"stream escaped", "&lt;not a tag&gt; &amp; "},
		{"bold ANSI", `<span style="font-weight:bold">bold</span>`},
		{"traceback", "panic: boom\n  at cell line 1"},
		{"raw HTML cell", "<p id=rawhtml>raw</p>"},
	}
	for _, w := range wants {
		if !strings.Contains(page, w.s) {
			t.Errorf("page lacks %s: %q", w.what, w.s)
		}
	}

	hidden := exportHTML(t, nb, HTMLOptions{HideCode: true})
	if strings.Contains(hidden, `class="chroma"`) || !strings.Contains(hidden, "<strong>strong</strong>") {
		t.Error("HideCode: code shown or outputs missing")
	}
}

func TestHeadAsset(t *testing.T) {
	t.Parallel()
	opts := HTMLOptions{HeadAssets: []HeadAsset{func(outputs string) (string, error) {
		if strings.Contains(outputs, "needs-test-lib") {
			return `<script id="test-lib"></script>`, nil
		}
		return "", nil
	}}}
	nb := &Notebook{Cells: []*Cell{{Type: CellCode, Source: "x", Outputs: []*Output{
		{Type: OutputDisplayData, Data: map[string]any{"text/html": "<div class=needs-test-lib></div>"}}}}}}
	page := exportHTML(t, nb, opts)
	head, _, _ := strings.Cut(page, "</head>")
	if strings.Count(page, `<script id="test-lib">`) != 1 || !strings.Contains(head, `<script id="test-lib">`) {
		t.Errorf("asset not once in <head>:\n%s", head)
	}
	plain := exportHTML(t, &Notebook{Cells: []*Cell{{Type: CellMarkdown, Source: "hi"}}}, opts)
	if strings.Contains(plain, "test-lib") {
		t.Error("asset added to a page that does not need it")
	}
}

func TestANSIHTML(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain <b>", "plain &lt;b&gt;"},
		{"\x1b[31mred\x1b[0m", `<span style="color:#cd3131">red</span>`},
		{"\x1b[1;32mok\x1b[39;22m.", `<span style="color:#0d8a0d;font-weight:bold">ok</span>.`},
		{"\x1b[38;5;241;43mx\x1b[39;49m", `<span style="color:#626262;background-color:#b58900">x</span>`},
		{"\x1b[38;2;1;2;3mrgb\x1b[m", `<span style="color:#010203">rgb</span>`},
		{"\x1b[2Kcleared", "cleared"},
		{"dangling \x1b[", "dangling "},
	}
	for _, tt := range tests {
		if got := ansiHTML(tt.in); got != tt.want {
			t.Errorf("ansiHTML(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
