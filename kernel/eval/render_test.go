package eval_test

import (
	"context"
	"testing"
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
