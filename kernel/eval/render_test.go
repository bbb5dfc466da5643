package eval_test

import (
	"context"
	"testing"
)

func TestRenderAfterMultiValueAndPrint(t *testing.T) {
	t.Parallel()
	s, _, _ := newSession(t)
	for _, c := range []string{
		"fmt.Println(\"text output\")",
		"func two() (int, error) { return 2, nil }",
		"two()",
		"strconv.Atoi(\"12\")",
	} {
		r, err := s.Eval(context.Background(), c)
		if err != nil || r.HasValue {
			t.Fatalf("Eval(%q) = %+v, %v; want no value, no error", c, r, err)
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
