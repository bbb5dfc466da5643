package frame_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/frame"
)

func sample(t *testing.T) *frame.Frame {
	t.Helper()
	f := frame.New("summary")
	rows := []frame.Row{
		{"strategy": "sync", "avg_ms": 257.0, "rps": 15.7},
		{"strategy": "asyncio", "avg_ms": 1420, "rps": 8.2},
		{"strategy": "ThreadPool", "avg_ms": 215 * time.Millisecond, "rps": 16.1},
	}
	for _, r := range rows {
		if err := f.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func ExampleFrame() {
	f := frame.New("burst of 10")
	f.MustAppend(frame.Row{"strategy": "/sync-sleep", "elapsed_s": 1.03})
	f.MustAppend(frame.Row{"strategy": "/async-block", "elapsed_s": 10.02})
	sorted, _ := f.Sort("elapsed_s", true)
	fmt.Print(sorted)
	// Output:
	// burst of 10
	// strategy      elapsed_s
	// /async-block      10.02
	// /sync-sleep        1.03
}

func TestAppendAndRead(t *testing.T) {
	t.Parallel()
	f := sample(t)
	if got, want := f.Len(), 3; got != want {
		t.Fatalf("Len() = %d; want %d", got, want)
	}
	tests := []struct {
		col  string
		row  int
		want float64
	}{
		{"avg_ms", 0, 257}, {"avg_ms", 1, 1420}, {"avg_ms", 2, 215}, {"rps", 2, 16.1},
	}
	for _, tt := range tests {
		if got := f.Float(tt.col, tt.row); got != tt.want {
			t.Errorf("Float(%q, %d) = %v; want %v", tt.col, tt.row, got, tt.want)
		}
	}
	if got := f.Float("avg_ms", 3); !math.IsNaN(got) {
		t.Errorf("Float(avg_ms, 3) past the last row = %v; want NaN", got)
	}
	if got := f.Text("strategy", 1); got != "asyncio" {
		t.Errorf("Text(strategy, 1) = %q; want asyncio", got)
	}
}

func TestAppendRejectsKindMismatch(t *testing.T) {
	t.Parallel()
	f := sample(t)
	tests := []frame.Row{
		{"strategy": 3.0},
		{"avg_ms": "slow"},
		{"x": struct{}{}},
		{"": 1.0},
	}
	for _, r := range tests {
		if err := f.Append(r); err == nil {
			t.Errorf("Append(%v) = nil; want error", r)
		}
	}
	if f.Len() != 3 {
		t.Errorf("after rejected rows Len() = %d; want 3", f.Len())
	}
}

func TestSortFilterSelect(t *testing.T) {
	t.Parallel()
	f := sample(t)
	s, err := f.Sort("avg_ms", false)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Texts("strategy"), ","); got != "ThreadPool,sync,asyncio" {
		t.Errorf("sorted = %s", got)
	}
	if _, err := f.Sort("nope", false); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Sort(nope) err = %v; want error naming the column", err)
	}
	fast := f.Filter(func(r frame.Row) bool { return r["avg_ms"].(float64) < 300 })
	if fast.Len() != 2 {
		t.Errorf("Filter len = %d; want 2", fast.Len())
	}
	sel, err := f.Select("rps", "strategy")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sel.Columns(), ","); got != "rps,strategy" {
		t.Errorf("Select columns = %s", got)
	}
	if _, err := f.Select("bogus"); err == nil {
		t.Error("Select(bogus) = nil error")
	}
	if w := f.Where("strategy", "sync"); w.Len() != 1 || w.Float("rps", 0) != 15.7 {
		t.Errorf("Where = %v", w)
	}
}

func TestConcatAndWith(t *testing.T) {
	t.Parallel()
	a := sample(t).With("source", "M1")
	b := frame.New("b")
	b.MustAppend(frame.Row{"strategy": "goroutines", "rps": 100.0, "extra": 1})
	c, err := frame.Concat("all", a, b)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != 4 || c.Text("source", 3) != "" || c.Text("source", 0) != "M1" || !math.IsNaN(c.Float("extra", 0)) {
		t.Errorf("Concat = %v", c)
	}
	bad := frame.New("bad")
	bad.MustAppend(frame.Row{"rps": "x"})
	if _, err := frame.Concat("x", a, bad); err == nil {
		t.Error("Concat with kind clash = nil error")
	}
}

func TestJSONRoundTripAndCSV(t *testing.T) {
	t.Parallel()
	f := sample(t)
	f.MustAppend(frame.Row{"strategy": "nan"}) // avg_ms NaN
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var g frame.Frame
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if g.String() != f.String() {
		t.Errorf("round trip:\n%s\nwant\n%s", g.String(), f.String())
	}
	if err := json.Unmarshal([]byte(`{"columns":[{"name":"a","kind":"weird"}],"rows":[]}`), &g); err == nil {
		t.Error("unknown kind accepted")
	}
	csv := f.CSV()
	if !strings.HasPrefix(csv, "strategy,avg_ms,rps\nsync,257,15.7\n") || !strings.Contains(csv, "nan,,") {
		t.Errorf("CSV = %q", csv)
	}
}

func TestHTMLEscapes(t *testing.T) {
	t.Parallel()
	f := frame.New("<x>")
	f.MustAppend(frame.Row{"strategy": "<script>"})
	h := f.HTML()
	if strings.Contains(h, "<script>") || !strings.Contains(h, "&lt;script&gt;") {
		t.Errorf("HTML not escaped: %s", h)
	}
	if !strings.Contains(frame.New("e").HTML(), "no rows") {
		t.Error("empty frame HTML does not say so")
	}
}
