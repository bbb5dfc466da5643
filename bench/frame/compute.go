package frame

import (
	"fmt"
	"math"
)

// Compute returns a copy of f with column col set to fn of each row: a new
// column at the end, or, when col exists, a replacement in its place. fn
// returns a string (a label), a number (as for Row) or nil (a missing value);
// every non-nil value must be of one kind, which becomes the column's (a
// column of only nils is a number column of NaN). For example, the number of
// waits each run took:
//
//	g, err := f.Compute("waits", func(r frame.Row) any { return r.Float("elapsed_s") / wait })
//
// When fn reads a column the frame does not have (Row.Float, Row.Text),
// Compute returns that *ColumnError, naming the frame and its columns. An
// empty col, an unsupported value, or values of both kinds are errors naming
// col and the row. f is never changed.
func (f *Frame) Compute(col string, fn func(r Row) any) (*Frame, error) {
	if f == nil {
		return nil, fmt.Errorf("frame: Compute %q on a nil frame", col)
	}
	if col == "" {
		return nil, fmt.Errorf("frame %q: Compute: empty column name", f.Name)
	}
	c := &column{name: col, kind: Number, open: true}
	for i := 0; i < f.Len(); i++ {
		v, err := f.call(fn, i)
		if err != nil {
			return nil, err
		}
		kind, isNil, ok := kindOfValue(v)
		switch {
		case !ok:
			return nil, fmt.Errorf("frame %q: Compute %q: row %d: unsupported value %v of type %T", f.Name, col, i, v, v)
		case !isNil && c.open:
			c.fix(kind, i)
			c.open = false
		case !isNil && kind != c.kind:
			return nil, fmt.Errorf("frame %q: Compute %q: row %d gave a %s (%v) after %ss", f.Name, col, i, kind, v, c.kind)
		}
		if c.kind == Number {
			x, ok := toNumber(v)
			if !ok {
				x = math.NaN()
			}
			c.nums = append(c.nums, x)
		} else {
			s, _ := v.(string)
			c.texts = append(c.texts, s)
		}
	}
	c.open = false
	g := f.take(seq(f.Len()))
	if j, ok := g.idx[col]; ok {
		g.cols[j] = c
	} else {
		if g.idx == nil {
			g.idx = map[string]int{}
		}
		g.idx[col] = len(g.cols)
		g.cols = append(g.cols, c)
	}
	return g, nil
}

// call runs fn on row i, turning a *ColumnError panic into an error in f's
// terms; other panics are not the frame's and go on.
func (f *Frame) call(fn func(r Row) any, i int) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			e, ok := f.adopt(p)
			if !ok {
				panic(p)
			}
			err = e
		}
	}()
	return fn(f.Row(i)), nil
}
