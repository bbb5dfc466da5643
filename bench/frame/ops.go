package frame

import (
	"math"
	"sort"
)

// empty returns a frame with the same name and columns and no rows.
func (f *Frame) empty() *Frame {
	g := &Frame{Name: f.Name}
	for _, c := range f.cols {
		g.addCol(c.name, c.kind).open = c.open
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

// Filter returns a new frame with the rows for which keep returns true. When
// keep reads a column the row does not have (Row.Float, Row.Text), Filter
// panics with a *ColumnError naming the frame and its columns.
func (f *Frame) Filter(keep func(r Row) bool) *Frame {
	var idx []int
	for i := 0; i < f.Len(); i++ {
		if f.keep(keep, i) {
			idx = append(idx, i)
		}
	}
	return f.take(idx)
}

func (f *Frame) keep(keep func(r Row) bool, i int) bool {
	defer func() {
		if p := recover(); p != nil {
			if e, ok := f.adopt(p); ok {
				panic(e)
			}
			panic(p)
		}
	}()
	return keep(f.Row(i))
}

// Where returns a new frame with the rows whose column col has the text value
// (numbers compared as Text formats them). It panics with a *ColumnError
// when the frame has no column col.
func (f *Frame) Where(col, value string) *Frame {
	c := f.mustCol(col)
	var idx []int
	for i := 0; i < f.Len(); i++ {
		if c.text(i) == value {
			idx = append(idx, i)
		}
	}
	return f.take(idx)
}

// Sort returns a new frame sorted by column col (numbers numerically with NaN
// last, labels lexically), stable, descending when desc is true. An unknown
// column is a *ColumnError.
func (f *Frame) Sort(col string, desc bool) (*Frame, error) {
	c := f.col(col)
	if c == nil {
		return nil, f.missing(col)
	}
	idx := seq(f.n)
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

// Select returns a new frame with only the named columns, in that order (a
// name given twice is kept once). An unknown column is a *ColumnError.
func (f *Frame) Select(cols ...string) (*Frame, error) {
	g := &Frame{Name: f.Name, n: f.Len()}
	for _, name := range cols {
		c := f.col(name)
		if c == nil {
			return nil, f.missing(name)
		}
		if g.col(name) != nil {
			continue
		}
		g.addCol(name, c.kind)
		g.cols[g.idx[name]] = c.clone()
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
			if c.open {
				if g.col(c.name) == nil {
					g.addCol(c.name, Number).open = true
				}
				continue
			}
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
// (added at the end, or overwritten in place — a number column of that name
// becomes a label column). It is how a caller labels a result, e.g.
// With("machine", "M1 laptop").
func (f *Frame) With(col, value string) *Frame {
	g := f.take(seq(f.Len()))
	c := g.col(col)
	if c != nil && c.kind != Label {
		g.cols[g.idx[col]] = newColumn(col, Label, g.n)
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
