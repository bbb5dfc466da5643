package frame

import (
	"math"
	"strconv"
)

// Float returns the number at row i of column col; NaN when that value is
// missing or i is out of range. It panics with a *ColumnError when the frame
// has no column col or col holds labels: ask Has first when a column may be
// absent.
func (f *Frame) Float(col string, i int) float64 {
	c := f.mustNumbers(col)
	if i < 0 || i >= f.n {
		return math.NaN()
	}
	return c.nums[i]
}

// Text returns the value at row i of column col as text: the label itself, or
// a number formatted compactly (FormatNumber). It is "" when i is out of
// range. It panics with a *ColumnError when the frame has no column col.
func (f *Frame) Text(col string, i int) string {
	c := f.mustCol(col)
	if i < 0 || i >= f.n {
		return ""
	}
	return c.text(i)
}

func (c *column) text(i int) string {
	if c.kind == Label {
		return c.texts[i]
	}
	return FormatNumber(c.nums[i])
}

// Floats returns a copy of a number column. It panics with a *ColumnError
// when the frame has no column col or col holds labels.
func (f *Frame) Floats(col string) []float64 {
	c := f.mustNumbers(col)
	return append([]float64(nil), c.nums...)
}

// Texts returns a copy of a column as text (numbers formatted). It panics
// with a *ColumnError when the frame has no column col.
func (f *Frame) Texts(col string) []string {
	c := f.mustCol(col)
	out := make([]string, f.n)
	for i := range out {
		out[i] = c.text(i)
	}
	return out
}

// Unique returns the distinct texts of a column in first-seen order. It
// panics with a *ColumnError when the frame has no column col.
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

// Row returns row i as a map (labels as string, numbers as float64, nil for a
// column declared by Of that no value has reached), or nil when i is out of
// range.
func (f *Frame) Row(i int) Row {
	if f == nil || i < 0 || i >= f.n {
		return nil
	}
	r := make(Row, len(f.cols))
	for _, c := range f.cols {
		switch {
		case c.open:
			r[c.name] = nil
		case c.kind == Number:
			r[c.name] = c.nums[i]
		default:
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
