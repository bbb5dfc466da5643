package excerpt

import (
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	t.Parallel()
	code := "a = 1\nb = 2\nc = 3\n"
	tests := []struct {
		name     string
		from, to int
		mark     []int
		want     []string
		err      bool
	}{
		{"middle marked", 2, 3, []int{3}, []string{"  2  b = 2\n", "  3  c = 3  # ◀\n", "lines 2–3"}, false},
		{"whole", 1, 3, nil, []string{"  1  a = 1\n"}, false},
		{"past the end", 2, 4, nil, nil, true},
		{"reversed", 3, 2, nil, nil, true},
		{"zero", 0, 1, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Markdown("app.py", code, tt.from, tt.to, tt.mark)
			if tt.err {
				if err == nil || !strings.Contains(err.Error(), "app.py") {
					t.Fatalf("err %v; want one naming app.py", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			text := d.Data["text/markdown"].(string)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q lacks %q", text, w)
				}
			}
		})
	}
}
