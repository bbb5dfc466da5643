package frame

import (
	"fmt"
	"sort"
	"strings"
)

// ColumnError is the error about a column that is not there, or that holds
// labels where a number was asked for. Methods with an error result return
// it; accessors without one (Float, Text, Floats, Texts, Unique, Where, Row's
// Float and Text) panic with it. Its message names the column and lists the
// columns there are:
//
//	frame "summary": no column "elapsd_s" (columns: strategy, elapsed_s, rps)
//	frame "summary": column "strategy" holds labels, not numbers (columns: strategy, elapsed_s, rps)
//
// A Row on its own (from Lookup, Row or Rows) does not know its frame: its
// errors read `row: no column ...` and list its columns sorted; Compute and
// Filter put the frame's name and column order back.
type ColumnError struct {
	Frame   string   // the frame's name
	Column  string   // the column asked for
	Columns []string // the columns there are, in order
	// Labels is true when the column exists but holds labels and a number
	// was asked for.
	Labels bool
	// row marks an error from a Row detached from its frame.
	row bool
}

func (e *ColumnError) Error() string {
	where := fmt.Sprintf("frame %q", e.Frame)
	if e.row {
		where = "row"
	}
	have := "no columns"
	if len(e.Columns) > 0 {
		have = "columns: " + strings.Join(e.Columns, ", ")
	}
	if e.Labels {
		return fmt.Sprintf("%s: column %q holds labels, not numbers (%s)", where, e.Column, have)
	}
	return fmt.Sprintf("%s: no column %q (%s)", where, e.Column, have)
}

func (f *Frame) missing(col string) *ColumnError {
	e := &ColumnError{Column: col, Columns: f.Columns()}
	if f != nil {
		e.Frame = f.Name
	}
	return e
}

func (f *Frame) notNumbers(col string) *ColumnError {
	e := f.missing(col)
	e.Labels = true
	return e
}

func (r Row) missing(col string, labels bool) *ColumnError {
	cols := make([]string, 0, len(r))
	for k := range r {
		cols = append(cols, k)
	}
	sort.Strings(cols)
	return &ColumnError{Column: col, Columns: cols, Labels: labels, row: true}
}

// adopt rewrites a Row's *ColumnError in f's terms (its name and column
// order) when p is one raised by a row of f (a row with exactly f's columns),
// so an error raised inside a callback given a row of f names f. ok is false
// when p is not a *ColumnError.
func (f *Frame) adopt(p any) (e *ColumnError, ok bool) {
	ce, ok := p.(*ColumnError)
	if !ok {
		return nil, false
	}
	have := f.Columns()
	sort.Strings(have)
	if !ce.row || strings.Join(have, "\x00") != strings.Join(ce.Columns, "\x00") {
		return ce, true
	}
	out := f.missing(ce.Column)
	out.Labels = ce.Labels
	return out, true
}
