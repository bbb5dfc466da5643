package eval_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/conclab/conclab/display"
)

func TestRenderAfterMultiValueAndPrint(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	// A final (value, error) shows the value (see the error idiom); a
	// print's (count, error) shows nothing.
	for _, c := range []struct{ code, plain string }{
		{"fmt.Println(\"text output\")", ""},
		{"func two() (int, error) { return 2, nil }", ""},
		{"two()", "2"},
		{"strconv.Atoi(\"12\")", "12"},
		{"fmt.Fprintln(os.Stdout, \"more\")", ""},
	} {
		r, err := s.Eval(context.Background(), c.code)
		if err != nil || r.HasValue != (c.plain != "") || (c.plain != "" && r.Data.Data["text/plain"] != c.plain) {
			t.Fatalf("Eval(%q) = %+v, %v; want value %q, no error", c.code, r, err, c.plain)
		}
	}
	r := mustEval(t, s, "type Badge string\n\nfunc (b Badge) HTML() string { return \"<span>\" + string(b) + \"</span>\" }\n\nBadge(\"ok\")")
	if r.Data.Data["text/html"] != "<span>ok</span>" || r.Data.Data["text/plain"] != "ok" {
		t.Errorf("bundle = %v", r.Data.Data)
	}
	r = mustEval(t, s, "type PB struct{ N int }\nfunc (p *PB) Markdown() string { return \"**md**\" }\n&PB{3}")
	if r.Data.Data["text/markdown"] != "**md**" {
		t.Errorf("pointer-receiver bundle = %v", r.Data.Data)
	}
}

// A display bundle as a cell's value keeps its own text/plain; a value
// holding cell types has Go's printing of them.
func TestRenderTextPlain(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	tests := []struct{ code, plain string }{
		{`display.HTML("<b>x</b>")`, "<b>x</b>"},
		{`display.Markdown("**m**")`, "**m**"},
		{`display.PDF([]byte("%PDF"))`, "<application/pdf, 4 bytes>"},
		{"type pt struct{ x, y int }\n[]pt{{1, 2}}", "[{1 2}]"},
		{"map[string]any{\"p\": pt{3, 4}}", "map[p:{3 4}]"},
	}
	for _, tt := range tests {
		r := mustEval(t, s, tt.code)
		if got := r.Data.Data["text/plain"]; got != tt.plain {
			t.Errorf("Eval(%q) text/plain = %q; want %q", tt.code, got, tt.plain)
		}
	}
}

// A value of a type declared in a cell is rendered by every single-format
// method display knows (display.Formats, PDF included), as display.Render
// renders compiled values.
func TestRenderEveryFormat(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	src := "type all struct{}\n"
	want := map[string]string{}
	for _, f := range display.Formats {
		m, _ := f.Interface.MethodByName(f.Method)
		switch m.Type.Out(0).String() {
		case "string":
			src += fmt.Sprintf("func (all) %s() string { return %q }\n", f.Method, f.Method)
			want[f.MIME] = f.Method
		case "[]uint8":
			src += fmt.Sprintf("func (all) %s() []byte { return []byte(%q) }\n", f.Method, f.Method)
			want[f.MIME] = f.Method
		default:
			src += fmt.Sprintf("func (all) %s() map[string]any { return map[string]any{\"k\": %q} }\n", f.Method, f.Method)
			want[f.MIME] = "map[k:" + f.Method + "]"
		}
	}
	r := mustEval(t, s, src+"all{}")
	for mime, w := range want {
		got := r.Data.Data[mime]
		if b, ok := got.([]byte); ok {
			got = string(b)
		}
		if fmt.Sprint(got) != w {
			t.Errorf("%s = %v; want %s", mime, got, w)
		}
	}
	if _, ok := r.Data.Data[display.MIMETypePDF]; !ok {
		t.Errorf("no %s in %v", display.MIMETypePDF, r.Data.Data)
	}
}
