package frame_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/conclab/conclab/bench/frame"
)

// panicked runs fn and returns the *frame.ColumnError it panicked with, or
// fails the test when it did not panic with one.
func panicked(t *testing.T, what string, fn func()) (e *frame.ColumnError) {
	t.Helper()
	defer func() {
		t.Helper()
		p := recover()
		ce, ok := p.(*frame.ColumnError)
		if !ok {
			t.Errorf("%s: panic value %#v; want a *frame.ColumnError", what, p)
		}
		e = ce
	}()
	fn()
	return nil
}

func TestMissingColumnPanics(t *testing.T) {
	t.Parallel()
	f := sample(t) // strategy, avg_ms, rps
	const missing = `frame "summary": no column "avg" (columns: strategy, avg_ms, rps)`
	const labels = `frame "summary": column "strategy" holds labels, not numbers (columns: strategy, avg_ms, rps)`
	tests := []struct {
		name string
		fn   func()
		want string
	}{
		{"Float", func() { f.Float("avg", 0) }, missing},
		{"Float past the rows", func() { f.Float("avg", 99) }, missing},
		{"Float of labels", func() { f.Float("strategy", 0) }, labels},
		{"Text", func() { f.Text("avg", 0) }, missing},
		{"Floats", func() { f.Floats("avg") }, missing},
		{"Floats of labels", func() { f.Floats("strategy") }, labels},
		{"Texts", func() { f.Texts("avg") }, missing},
		{"Unique", func() { f.Unique("avg") }, missing},
		{"Where", func() { f.Where("avg", "1") }, missing},
		{"Filter", func() { f.Filter(func(r frame.Row) bool { return r.Float("avg") > 1 }) }, missing},
		{"Filter of labels", func() { f.Filter(func(r frame.Row) bool { return r.Float("strategy") > 1 }) }, labels},
		{"empty frame", func() { frame.New("e").Float("x", 0) }, `frame "e": no column "x" (no columns)`},
		{"nil frame", func() { (*frame.Frame)(nil).Texts("x") }, `frame "": no column "x" (no columns)`},
		{"Row.Float", func() { f.Row(0).Float("avg") }, `row: no column "avg" (columns: avg_ms, rps, strategy)`},
		{"Row.Text", func() { f.Row(0).Text("avg") }, `row: no column "avg" (columns: avg_ms, rps, strategy)`},
		{"Row.Float of a label", func() { f.Row(0).Float("strategy") }, `row: column "strategy" holds labels, not numbers (columns: avg_ms, rps, strategy)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := panicked(t, tt.name, tt.fn)
			if e != nil && e.Error() != tt.want {
				t.Errorf("panic = %q\nwant    %q", e.Error(), tt.want)
			}
		})
	}
}

func TestMissingColumnErrors(t *testing.T) {
	t.Parallel()
	f := sample(t)
	other := frame.Of("base", "k", "v")
	if err := other.Add("a", 1); err != nil {
		t.Fatal(err)
	}
	base, err := other.Lookup("k", "a")
	if err != nil {
		t.Fatal(err)
	}
	const missing = `frame "summary": no column "avg" (columns: strategy, avg_ms, rps)`
	tests := []struct {
		name string
		fn   func() error
		want string
	}{
		{"Sort", func() error { _, err := f.Sort("avg", false); return err }, missing},
		{"Select", func() error { _, err := f.Select("rps", "avg"); return err }, missing},
		{"Lookup key", func() error { _, err := f.Lookup("avg", "x"); return err }, missing},
		{"Get key", func() error { _, err := f.Get("avg", "sync", "rps"); return err }, missing},
		{"Get col", func() error { _, err := f.Get("strategy", "sync", "avg"); return err }, missing},
		{"Get labels", func() error { _, err := f.Get("avg_ms", "257", "strategy"); return err },
			`frame "summary": column "strategy" holds labels, not numbers (columns: strategy, avg_ms, rps)`},
		{"Compute Float", func() error {
			_, err := f.Compute("x", func(r frame.Row) any { return r.Float("avg") })
			return err
		}, missing},
		{"Compute Text", func() error {
			_, err := f.Compute("x", func(r frame.Row) any { return r.Text("avg") })
			return err
		}, missing},
		// A row of another frame keeps its own terms.
		{"Compute other row", func() error {
			_, err := f.Compute("x", func(r frame.Row) any { return r.Float("rps") / base.Float("w") })
			return err
		}, `row: no column "w" (columns: k, v)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.fn()
			var ce *frame.ColumnError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v; want a *frame.ColumnError", err)
			}
			if err.Error() != tt.want {
				t.Errorf("err = %q\nwant  %q", err.Error(), tt.want)
			}
		})
	}
}

func TestOfAdd(t *testing.T) {
	t.Parallel()
	f := frame.Of("runs", "strategy", "n", "elapsed_s", "note")
	rows := [][]any{
		{"sync", 10, 1.5, nil},
		{"async", int64(20), nil, "slow"},
	}
	for _, r := range rows {
		if err := f.Add(r...); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := strings.Join(f.Columns(), ","), "strategy,n,elapsed_s,note"; got != want {
		t.Errorf("Columns() = %s; want %s", got, want)
	}
	if k, _ := f.KindOf("note"); k != frame.Label || f.Text("note", 0) != "" || f.Text("note", 1) != "slow" {
		t.Errorf("note = %v %q %q; want a label column \"\", slow", k, f.Text("note", 0), f.Text("note", 1))
	}
	if !math.IsNaN(f.Float("elapsed_s", 1)) || f.Float("n", 1) != 20 {
		t.Errorf("elapsed_s[1] = %v, n[1] = %v; want NaN, 20", f.Float("elapsed_s", 1), f.Float("n", 1))
	}

	bad := []struct {
		name   string
		values []any
		want   string
	}{
		{"too few", []any{"x", 1, 2.0}, `frame "runs": Add: 3 values for 4 columns (strategy, n, elapsed_s, note)`},
		{"too many", []any{"x", 1, 2.0, "a", "b"}, `5 values for 4 columns`},
		{"label for a number", []any{"x", "many", 2.0, ""}, `column "n" holds numbers, got "many"`},
		{"number for a label", []any{3, 1, 2.0, ""}, `column "strategy" holds labels, got number 3`},
		{"unsupported", []any{"x", 1, []int{2}, ""}, `column "elapsed_s": unsupported value`},
	}
	for _, tt := range bad {
		if err := f.Add(tt.values...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Add(%v) = %v; want an error containing %q", tt.name, tt.values, err, tt.want)
		}
	}
	if f.Len() != 2 {
		t.Errorf("after rejected rows Len() = %d; want 2", f.Len())
	}

	decl := []struct {
		name string
		cols []string
		want string
	}{
		{"repeated", []string{"a", "b", "a"}, `frame "d": Of: column "a" given twice`},
		{"empty", []string{"a", ""}, `frame "d": Of: empty column name`},
	}
	for _, tt := range decl {
		d := frame.Of("d", tt.cols...)
		if err := d.Add("x", 1); err == nil || err.Error() != tt.want {
			t.Errorf("%s: Add = %v; want %q", tt.name, err, tt.want)
		}
		if err := d.Append(frame.Row{"a": "x"}); err == nil || err.Error() != tt.want {
			t.Errorf("%s: Append = %v; want %q", tt.name, err, tt.want)
		}
	}
}

func TestOpenColumns(t *testing.T) {
	t.Parallel()
	// A column declared by Of and never given a value reads as NaN numbers,
	// and takes a kind from the first value, whichever way it comes.
	f := frame.Of("o", "a", "b")
	if err := f.Add(1, nil); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(f.Float("b", 0)) || f.Row(0)["b"] != nil {
		t.Errorf("open b = %v, row %v; want NaN, nil", f.Float("b", 0), f.Row(0))
	}
	c, err := frame.Concat("c", f, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Append(frame.Row{"b": "label"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Texts("b"), ","); got != ",,label" {
		t.Errorf("b = %q; want ,,label", got)
	}
	if err := c.Append(frame.Row{"b": 2}); err == nil {
		t.Error("a number after b became a label column: no error")
	}
	// Mixing with a frame where b is a label works.
	g := frame.Of("g", "b")
	if err := g.Add("x"); err != nil {
		t.Fatal(err)
	}
	if m, err := frame.Concat("m", f, g); err != nil || strings.Join(m.Texts("b"), ",") != ",x" {
		t.Errorf("Concat(open, label) = %v, %v; want b ,x", m, err)
	}
	if err := f.AddColumn("b", frame.Label); err != nil {
		t.Errorf("AddColumn fixing an open column: %v", err)
	}
	if k, _ := f.KindOf("b"); k != frame.Label {
		t.Errorf("b after AddColumn(Label) is %v", k)
	}
}

func TestAppendMapOrder(t *testing.T) {
	t.Parallel()
	// The rule for a map row's new columns: labels first, then numbers,
	// each sorted; columns already there keep their place. The result is
	// the same on every run (maps iterate in random order).
	for i := 0; i < 20; i++ {
		f := frame.New("m")
		f.MustAppend(frame.Row{"rps": 1.0, "strategy": "a", "avg_ms": 2.0, "load": "burst", "gap": nil})
		f.MustAppend(frame.Row{"zeta": "z", "alpha": 1.0, "rps": 3.0})
		if got, want := strings.Join(f.Columns(), ","), "load,strategy,avg_ms,gap,rps,zeta,alpha"; got != want {
			t.Fatalf("Columns() = %s; want %s", got, want)
		}
	}
	// Declared columns keep the author's order.
	f := frame.New("d")
	for _, c := range []string{"strategy", "rps", "avg_ms"} {
		if err := f.AddColumn(c, map[bool]frame.Kind{true: frame.Label, false: frame.Number}[c == "strategy"]); err != nil {
			t.Fatal(err)
		}
	}
	f.MustAppend(frame.Row{"avg_ms": 1.0, "strategy": "s", "rps": 2.0})
	if got, want := strings.Join(f.Columns(), ","), "strategy,rps,avg_ms"; got != want {
		t.Errorf("Columns() = %s; want %s", got, want)
	}
}

func TestCompute(t *testing.T) {
	t.Parallel()
	f := sample(t) // strategy, avg_ms, rps
	tests := []struct {
		name    string
		col     string
		fn      func(r frame.Row) any
		columns string
		want    string // the column's texts
		kind    frame.Kind
	}{
		{"new number", "avg_s", func(r frame.Row) any { return r.Float("avg_ms") / 1000 }, "strategy,avg_ms,rps,avg_s", "0.257,1.42,0.215", frame.Number},
		{"new label", "fast", func(r frame.Row) any {
			if r.Float("avg_ms") < 300 {
				return "yes"
			}
			return "no"
		}, "strategy,avg_ms,rps,fast", "yes,no,yes", frame.Label},
		{"replace in place", "avg_ms", func(r frame.Row) any { return int(r.Float("avg_ms")) / 100 }, "strategy,avg_ms,rps", "2,14,2", frame.Number},
		{"replace kind", "rps", func(r frame.Row) any { return r.Text("strategy") + "!" }, "strategy,avg_ms,rps", "sync!,asyncio!,ThreadPool!", frame.Label},
		{"nil is missing", "x", func(r frame.Row) any {
			if r.Text("strategy") == "sync" {
				return nil
			}
			return "set"
		}, "strategy,avg_ms,rps,x", ",set,set", frame.Label},
		{"all nil", "x", func(frame.Row) any { return nil }, "strategy,avg_ms,rps,x", ",,", frame.Number},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := f.Compute(tt.col, tt.fn)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(g.Columns(), ","); got != tt.columns {
				t.Errorf("Columns() = %s; want %s", got, tt.columns)
			}
			if got := strings.Join(g.Texts(tt.col), ","); got != tt.want {
				t.Errorf("%s = %s; want %s", tt.col, got, tt.want)
			}
			if k, _ := g.KindOf(tt.col); k != tt.kind {
				t.Errorf("kind = %v; want %v", k, tt.kind)
			}
		})
	}
	// f itself is unchanged.
	if got := strings.Join(f.Columns(), ","); got != "strategy,avg_ms,rps" || f.Float("avg_ms", 0) != 257 {
		t.Errorf("f changed: %v", f)
	}

	bad := []struct {
		name string
		col  string
		fn   func(r frame.Row) any
		want string
	}{
		{"empty name", "", func(frame.Row) any { return 1 }, `frame "summary": Compute: empty column name`},
		{"nil frame", "x", func(frame.Row) any { return 1 }, `frame: Compute "x" on a nil frame`},
		{"unsupported", "x", func(frame.Row) any { return []int{1} }, `frame "summary": Compute "x": row 0: unsupported value [1] of type []int`},
		{"mixed kinds", "x", func(r frame.Row) any {
			if r.Text("strategy") == "asyncio" {
				return "slow"
			}
			return r.Float("rps")
		}, `frame "summary": Compute "x": row 1 gave a label (slow) after numbers`},
	}
	for _, tt := range bad {
		on := f
		if tt.name == "nil frame" {
			on = nil
		}
		if _, err := on.Compute(tt.col, tt.fn); err == nil || err.Error() != tt.want {
			t.Errorf("%s: err = %v; want %q", tt.name, err, tt.want)
		}
	}

	// Other panics are not the frame's business and go on.
	defer func() {
		if p := recover(); p != "boom" {
			t.Errorf("recovered %v; want boom", p)
		}
	}()
	_, _ = f.Compute("x", func(frame.Row) any { panic("boom") })
	t.Error("Compute swallowed a panic")
}

func TestLookupGet(t *testing.T) {
	t.Parallel()
	f := sample(t)
	f.MustAppend(frame.Row{"strategy": "sync", "avg_ms": 1.0}) // "sync" twice now
	r, err := f.Lookup("strategy", "asyncio")
	if err != nil {
		t.Fatal(err)
	}
	if r.Float("avg_ms") != 1420 || r.Text("strategy") != "asyncio" || r.Text("rps") != "8.20" {
		t.Errorf("Lookup(asyncio) = %v", r)
	}
	if v, err := f.Get("strategy", "ThreadPool", "avg_ms"); err != nil || v != 215 {
		t.Errorf("Get(ThreadPool, avg_ms) = %v, %v; want 215", v, err)
	}
	if v, err := f.Get("avg_ms", "1420", "rps"); err != nil || v != 8.2 {
		t.Errorf("Get by a number key = %v, %v; want 8.2", v, err)
	}
	if v, err := f.Get("strategy", "sync", "rps"); err == nil {
		t.Errorf("Get of a repeated key = %v, nil; want an error", v)
	}
	tests := []struct {
		name, key, want string
	}{
		{"absent", "/async-block", `frame "summary": no row with strategy "/async-block" (strategy: sync, asyncio, ThreadPool)`},
		{"repeated", "sync", `frame "summary": 2 rows with strategy "sync", Lookup needs exactly one (Where gives them all)`},
	}
	for _, tt := range tests {
		if _, err := f.Lookup("strategy", tt.key); err == nil || err.Error() != tt.want {
			t.Errorf("%s: Lookup = %v; want %q", tt.name, err, tt.want)
		}
	}
	if _, err := frame.Of("e", "k").Lookup("k", "x"); err == nil || !strings.Contains(err.Error(), "the frame has no rows") {
		t.Errorf("Lookup on an empty frame = %v", err)
	}
	many := frame.Of("many", "k")
	for i := 0; i < 20; i++ {
		if err := many.Add(i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := many.Lookup("k", "x"); err == nil || !strings.HasSuffix(err.Error(), "10, 11, ... 8 more)") {
		t.Errorf("Lookup among many keys = %v; want the first 12 and a count", err)
	}
}
