// Package frame is the lab's small data frame: a table of named columns, each
// holding either numbers (float64) or labels (string). Every result in the lab
// comes back as a Frame — one row per run in a summary frame, one row per
// interval in a series frame — so a notebook cell can sort, filter and select,
// render it as an HTML table, and export it as CSV or JSON.
//
// The public surface is deliberately free of generics so that it works the
// same from compiled Go and from the notebook interpreter.
//
// Column naming convention (shared by bench, charts and the notebooks): labels
// are plain words (strategy, workload, load); numbers carry their unit as a
// suffix: avg_ms, p95_ms, rps, elapsed_s, bytes_in, cpu_s, rss_mb.
//
// A Frame is not safe for concurrent mutation; reading it from several
// goroutines while nobody appends is safe.
package frame

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Kind is the type of a column.
type Kind int

// Column kinds.
const (
	Number Kind = iota // float64 values; a missing value is NaN
	Label              // string values; a missing value is ""
)

func (k Kind) String() string {
	if k == Label {
		return "label"
	}
	return "number"
}

// Row is one row as a map from column name to value. Values appended are
// string (a label), or a number: float64, float32, any int or uint type,
// bool (1 or 0) or time.Duration (converted to milliseconds).
type Row map[string]any

type column struct {
	name  string
	kind  Kind
	nums  []float64
	texts []string
}

// Frame is a table of typed columns. The zero value is an empty frame ready to
// use; New gives it a name.
type Frame struct {
	// Name is shown as the caption of the HTML table and used by charts
	// as a default title.
	Name string
	cols []*column
	idx  map[string]int
	n    int
}

// New returns an empty frame named name. Columns are created by the first
// Append or AddColumn that mentions them, in that order.
func New(name string) *Frame { return &Frame{Name: name} }

// Len is the number of rows.
func (f *Frame) Len() int {
	if f == nil {
		return 0
	}
	return f.n
}

// Columns returns the column names in order.
func (f *Frame) Columns() []string {
	if f == nil {
		return nil
	}
	out := make([]string, len(f.cols))
	for i, c := range f.cols {
		out[i] = c.name
	}
	return out
}

// Has reports whether the frame has a column named col.
func (f *Frame) Has(col string) bool { return f.col(col) != nil }

// KindOf returns the kind of column col and whether it exists.
func (f *Frame) KindOf(col string) (Kind, bool) {
	c := f.col(col)
	if c == nil {
		return 0, false
	}
	return c.kind, true
}

func (f *Frame) col(name string) *column {
	if f == nil || f.idx == nil {
		return nil
	}
	if i, ok := f.idx[name]; ok {
		return f.cols[i]
	}
	return nil
}

func (f *Frame) addCol(name string, kind Kind) *column {
	if f.idx == nil {
		f.idx = map[string]int{}
	}
	c := &column{name: name, kind: kind}
	if kind == Number {
		c.nums = make([]float64, f.n)
		for i := range c.nums {
			c.nums[i] = math.NaN()
		}
	} else {
		c.texts = make([]string, f.n)
	}
	f.idx[name] = len(f.cols)
	f.cols = append(f.cols, c)
	return c
}

// toNumber converts a supported numeric value; ok is false for other types.
func toNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case time.Duration:
		return float64(x) / float64(time.Millisecond), true
	}
	return 0, false
}

// Append adds one row. New column names become new columns (earlier rows get
// NaN or ""): new label columns first, then new number columns, each in
// sorted order. Columns the row does not mention get NaN or "". A value of
// the wrong kind for an existing column is an error naming the column, and
// the frame is left unchanged.
func (f *Frame) Append(r Row) error {
	// Validate first so a bad row leaves the frame untouched.
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := r[k]
		if k == "" {
			return fmt.Errorf("frame %q: empty column name", f.Name)
		}
		_, isText := v.(string)
		_, isNum := toNumber(v)
		if !isText && !isNum {
			return fmt.Errorf("frame %q: column %q: unsupported value %v of type %T", f.Name, k, v, v)
		}
		if c := f.col(k); c != nil {
			if c.kind == Label && !isText {
				return fmt.Errorf("frame %q: column %q holds labels, got number %v", f.Name, k, v)
			}
			if c.kind == Number && !isNum {
				return fmt.Errorf("frame %q: column %q holds numbers, got %q", f.Name, k, v)
			}
		}
	}
	// Keep the caller's column order stable: new label columns first (the
	// row's names: strategy, workload, ...), then new number columns, each
	// in sorted order.
	for _, labels := range []bool{true, false} {
		for _, k := range keys {
			if _, isText := r[k].(string); isText == labels && f.col(k) == nil {
				if isText {
					f.addCol(k, Label)
				} else {
					f.addCol(k, Number)
				}
			}
		}
	}
	for _, c := range f.cols {
		v, ok := r[c.name]
		if c.kind == Number {
			x := math.NaN()
			if ok {
				x, _ = toNumber(v)
			}
			c.nums = append(c.nums, x)
		} else {
			s := ""
			if ok {
				s = v.(string)
			}
			c.texts = append(c.texts, s)
		}
	}
	f.n++
	return nil
}

// MustAppend is Append for rows built by the program itself; it panics on a
// kind mismatch, which is a programming error.
func (f *Frame) MustAppend(r Row) *Frame {
	if err := f.Append(r); err != nil {
		panic(err)
	}
	return f
}

// AddColumn declares a column of the given kind without adding rows, so that
// column order can be fixed before the first Append. It is a no-op when the
// column exists with that kind, and an error when it exists with another.
func (f *Frame) AddColumn(name string, kind Kind) error {
	if c := f.col(name); c != nil {
		if c.kind != kind {
			return fmt.Errorf("frame %q: column %q exists as %s", f.Name, name, c.kind)
		}
		return nil
	}
	if name == "" {
		return fmt.Errorf("frame %q: empty column name", f.Name)
	}
	f.addCol(name, kind)
	return nil
}

// Float returns the number at row i of column col, or NaN when the column is
// missing, holds labels, or i is out of range.
func (f *Frame) Float(col string, i int) float64 {
	c := f.col(col)
	if c == nil || c.kind != Number || i < 0 || i >= f.n {
		return math.NaN()
	}
	return c.nums[i]
}

// Text returns the value at row i of column col as text: the label itself, or
// a number formatted compactly. It is "" when the column is missing or i is out
// of range.
func (f *Frame) Text(col string, i int) string {
	c := f.col(col)
	if c == nil || i < 0 || i >= f.n {
		return ""
	}
	if c.kind == Label {
		return c.texts[i]
	}
	return FormatNumber(c.nums[i])
}

// Floats returns a copy of a number column, or nil when it is missing or holds
// labels.
func (f *Frame) Floats(col string) []float64 {
	c := f.col(col)
	if c == nil || c.kind != Number {
		return nil
	}
	return append([]float64(nil), c.nums...)
}

// Texts returns a copy of a column as text (numbers formatted), or nil when
// it is missing.
func (f *Frame) Texts(col string) []string {
	c := f.col(col)
	if c == nil {
		return nil
	}
	out := make([]string, f.n)
	for i := range out {
		out[i] = f.Text(col, i)
	}
	return out
}

// Unique returns the distinct texts of a column in first-seen order.
func (f *Frame) Unique(col string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range f.Texts(col) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Row returns row i as a map (labels as string, numbers as float64), or nil
// when i is out of range.
func (f *Frame) Row(i int) Row {
	if f == nil || i < 0 || i >= f.n {
		return nil
	}
	r := make(Row, len(f.cols))
	for _, c := range f.cols {
		if c.kind == Number {
			r[c.name] = c.nums[i]
		} else {
			r[c.name] = c.texts[i]
		}
	}
	return r
}

// Rows returns every row as a map.
func (f *Frame) Rows() []Row {
	out := make([]Row, f.Len())
	for i := range out {
		out[i] = f.Row(i)
	}
	return out
}

// empty returns a frame with the same name and columns and no rows.
func (f *Frame) empty() *Frame {
	g := &Frame{Name: f.Name}
	for _, c := range f.cols {
		g.addCol(c.name, c.kind)
	}
	return g
}

// take returns a new frame holding rows idx of f, in that order.
func (f *Frame) take(idx []int) *Frame {
	g := f.empty()
	for ci, c := range f.cols {
		gc := g.cols[ci]
		for _, i := range idx {
			if c.kind == Number {
				gc.nums = append(gc.nums, c.nums[i])
			} else {
				gc.texts = append(gc.texts, c.texts[i])
			}
		}
	}
	g.n = len(idx)
	return g
}

// Filter returns a new frame with the rows for which keep returns true.
func (f *Frame) Filter(keep func(r Row) bool) *Frame {
	var idx []int
	for i := 0; i < f.Len(); i++ {
		if keep(f.Row(i)) {
			idx = append(idx, i)
		}
	}
	return f.take(idx)
}

// Where returns a new frame with the rows whose column col has the text value.
func (f *Frame) Where(col, value string) *Frame {
	var idx []int
	for i := 0; i < f.Len(); i++ {
		if f.Text(col, i) == value {
			idx = append(idx, i)
		}
	}
	return f.take(idx)
}

// Sort returns a new frame sorted by column col (numbers numerically with NaN
// last, labels lexically), stable, descending when desc is true. An unknown
// column is an error.
func (f *Frame) Sort(col string, desc bool) (*Frame, error) {
	c := f.col(col)
	if c == nil {
		return nil, fmt.Errorf("frame %q: sort: no column %q (have %s)", f.Name, col, strings.Join(f.Columns(), ", "))
	}
	idx := make([]int, f.n)
	for i := range idx {
		idx[i] = i
	}
	less := func(a, b int) bool {
		if c.kind == Label {
			if desc {
				return c.texts[a] > c.texts[b]
			}
			return c.texts[a] < c.texts[b]
		}
		x, y := c.nums[a], c.nums[b]
		switch {
		case math.IsNaN(x):
			return false
		case math.IsNaN(y):
			return true
		case desc:
			return x > y
		default:
			return x < y
		}
	}
	sort.SliceStable(idx, func(i, j int) bool { return less(idx[i], idx[j]) })
	return f.take(idx), nil
}

// Select returns a new frame with only the named columns, in that order.
// An unknown column is an error naming it.
func (f *Frame) Select(cols ...string) (*Frame, error) {
	g := &Frame{Name: f.Name, n: f.Len()}
	for _, name := range cols {
		c := f.col(name)
		if c == nil {
			return nil, fmt.Errorf("frame %q: select: no column %q (have %s)", f.Name, name, strings.Join(f.Columns(), ", "))
		}
		if g.col(name) != nil {
			continue
		}
		nc := g.addCol(name, c.kind)
		nc.nums = append([]float64(nil), c.nums...)
		nc.texts = append([]string(nil), c.texts...)
		if c.kind == Number {
			nc.texts = nil
		} else {
			nc.nums = nil
		}
	}
	return g, nil
}

// Concat returns a new frame with the rows of f followed by the rows of each
// other frame. Columns are the union, in first-seen order; a column that is a
// number in one frame and a label in another is an error.
func Concat(name string, frames ...*Frame) (*Frame, error) {
	g := New(name)
	for _, f := range frames {
		for _, c := range f.cols {
			if err := g.AddColumn(c.name, c.kind); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range frames {
		for i := 0; i < f.Len(); i++ {
			if err := g.Append(f.Row(i)); err != nil {
				return nil, err
			}
		}
	}
	return g, nil
}

// With returns a copy of f with a label column col set to value on every row
// (added or overwritten). It is how a caller labels a result, e.g.
// With("machine", "M1 laptop").
func (f *Frame) With(col, value string) *Frame {
	g := f.take(seq(f.Len()))
	c := g.col(col)
	if c != nil && c.kind != Label {
		// Replace a number column of the same name.
		g.cols[g.idx[col]] = &column{name: col, kind: Label, texts: make([]string, g.n)}
		c = g.cols[g.idx[col]]
	}
	if c == nil {
		c = g.addCol(col, Label)
	}
	for i := range c.texts {
		c.texts[i] = value
	}
	return g
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// FormatNumber formats a number the way tables show it: integers without a
// fraction, others with up to three significant decimals, NaN as "".
func FormatNumber(x float64) string {
	switch {
	case math.IsNaN(x):
		return ""
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case x == math.Trunc(x) && math.Abs(x) < 1e15:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case math.Abs(x) >= 100:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case math.Abs(x) >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	default:
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
}
