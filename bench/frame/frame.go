// Package frame is the lab's small data frame: a table of named columns, each
// holding either numbers (float64) or labels (string). Every result in the lab
// comes back as a Frame — one row per run in a summary frame, one row per
// interval in a series frame — so a notebook cell can sort, filter and select,
// add computed columns, look a row up by its key, render it as an HTML table,
// and export it as CSV or JSON.
//
// Building a frame:
//
//	f := frame.Of("burst", "strategy", "elapsed_s") // columns in this order
//	err := f.Add("/sync-sleep", 1.03)                // one row, positionally
//
// or frame.New and Append(Row) with a map per row (see Append for how a map
// row's new columns are ordered).
//
// Reading it:
//
//	waits, err := f.Compute("waits", func(r frame.Row) any { return r.Float("elapsed_s") / wait })
//	s, err := f.Get("strategy", "/async-block", "elapsed_s")
//
// A missing column is never a silent NaN. Methods that return an error return
// a *ColumnError naming the column and listing the frame's columns; accessors
// without an error result (Float, Text, Floats, Texts, Unique, Where, and
// Row's Float and Text) panic with a *ColumnError, whose message reads
//
//	frame "summary": no column "elapsd_s" (columns: strategy, elapsed_s, rps)
//
// Asking for a number from a label column (Float, Floats, Row.Float, Get) is
// a *ColumnError too. Code that reads a column which may legitimately be
// absent asks Has first.
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

type column struct {
	name string
	kind Kind
	// open marks a column declared (by Of, or by a nil value) before any
	// value fixed its kind: it reads as a Number column of NaN until the
	// first non-nil value makes it a number or a label column.
	open  bool
	nums  []float64
	texts []string
}

// Frame is a table of typed columns. The zero value is an empty frame ready to
// use; New and Of give it a name.
type Frame struct {
	// Name is shown as the caption of the HTML table, used by charts as a
	// default title and named in errors.
	Name string
	cols []*column
	idx  map[string]int
	n    int
	// err is a declaration error from Of (an empty or repeated column
	// name), returned by every later Add, Append and AddColumn.
	err error
}

// New returns an empty frame named name. Columns are created by the first
// Append, Add or AddColumn that mentions them, in that order.
func New(name string) *Frame { return &Frame{Name: name} }

// Of returns an empty frame named name with the given columns, in exactly
// that order; rows are then added positionally with Add. A column takes its
// kind (number or label) from the first non-nil value it is given; until then
// it reads as a number column of NaN. An empty or repeated column name is
// reported by the first Add (or Append) on the frame, which then fails.
func Of(name string, columns ...string) *Frame {
	f := New(name)
	for _, c := range columns {
		switch {
		case c == "":
			if f.err == nil {
				f.err = fmt.Errorf("frame %q: Of: empty column name", name)
			}
		case f.col(c) != nil:
			if f.err == nil {
				f.err = fmt.Errorf("frame %q: Of: column %q given twice", name, c)
			}
		default:
			f.addCol(c, Number).open = true
		}
	}
	return f
}

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

// Has reports whether the frame has a column named col. It is how code asks
// about a column that may legitimately be absent, before reading it.
func (f *Frame) Has(col string) bool { return f.col(col) != nil }

// KindOf returns the kind of column col and whether it exists. A column
// declared by Of that no value has reached yet is a Number.
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

// mustCol returns column name or panics with a *ColumnError.
func (f *Frame) mustCol(name string) *column {
	c := f.col(name)
	if c == nil {
		panic(f.missing(name))
	}
	return c
}

// mustNumbers returns number column name or panics with a *ColumnError
// (missing, or holding labels).
func (f *Frame) mustNumbers(name string) *column {
	c := f.mustCol(name)
	if c.kind != Number {
		panic(f.notNumbers(name))
	}
	return c
}

func newColumn(name string, kind Kind, n int) *column {
	c := &column{name: name, kind: kind}
	if kind == Number {
		c.nums = make([]float64, n)
		for i := range c.nums {
			c.nums[i] = math.NaN()
		}
	} else {
		c.texts = make([]string, n)
	}
	return c
}

func (f *Frame) addCol(name string, kind Kind) *column {
	if f.idx == nil {
		f.idx = map[string]int{}
	}
	c := newColumn(name, kind, f.n)
	f.idx[name] = len(f.cols)
	f.cols = append(f.cols, c)
	return c
}

// fix gives an open column its kind; its rows so far are all missing.
func (c *column) fix(kind Kind, n int) {
	if !c.open {
		return
	}
	*c = *newColumn(c.name, kind, n)
}

// clone returns a deep copy of c.
func (c *column) clone() *column {
	g := &column{name: c.name, kind: c.kind, open: c.open}
	if c.kind == Number {
		g.nums = append([]float64(nil), c.nums...)
	} else {
		g.texts = append([]string(nil), c.texts...)
	}
	return g
}
