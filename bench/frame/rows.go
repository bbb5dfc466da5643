package frame

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Row is one row as a map from column name to value. Values appended are
// string (a label), nil (a missing value: NaN or ""), or a number: float64,
// float32, any int or uint type, bool (1 or 0) or time.Duration (converted to
// milliseconds). Rows read from a frame (Row, Rows, Lookup, and the rows given
// to Filter and Compute) hold every column: labels as string, numbers as
// float64.
type Row map[string]any

// Has reports whether the row has column col.
func (r Row) Has(col string) bool {
	_, ok := r[col]
	return ok
}

// Float returns column col as a number: a number as float64, nil as NaN. It
// panics with a *ColumnError when the row has no column col or col holds a
// label; Compute and Filter turn that into an error or panic naming the
// frame.
func (r Row) Float(col string) float64 {
	v, ok := r[col]
	if !ok {
		panic(r.missing(col, false))
	}
	if v == nil {
		return math.NaN()
	}
	x, ok := toNumber(v)
	if !ok {
		panic(r.missing(col, true))
	}
	return x
}

// Text returns column col as text: a label itself, a number formatted as
// tables show it (FormatNumber), nil as "". It panics with a *ColumnError
// when the row has no column col.
func (r Row) Text(col string) string {
	v, ok := r[col]
	if !ok {
		panic(r.missing(col, false))
	}
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	if x, ok := toNumber(v); ok {
		return FormatNumber(x)
	}
	return fmt.Sprint(v)
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

// kindOfValue classifies a value: ok is false for an unsupported type; nil
// (missing) is ok with isNil set.
func kindOfValue(v any) (kind Kind, isNil, ok bool) {
	if v == nil {
		return Number, true, true
	}
	if _, isText := v.(string); isText {
		return Label, false, true
	}
	if _, isNum := toNumber(v); isNum {
		return Number, false, true
	}
	return Number, false, false
}

// checkValue reports whether v can go into column c (nil: a new column).
func (f *Frame) checkValue(c *column, name string, v any) error {
	kind, isNil, ok := kindOfValue(v)
	if !ok {
		return fmt.Errorf("frame %q: column %q: unsupported value %v of type %T", f.Name, name, v, v)
	}
	if c == nil || c.open || isNil || kind == c.kind {
		return nil
	}
	if c.kind == Label {
		return fmt.Errorf("frame %q: column %q holds labels, got number %v", f.Name, name, v)
	}
	return fmt.Errorf("frame %q: column %q holds numbers, got %q", f.Name, name, v)
}

// Append adds one row. Columns the row does not mention get NaN or "".
//
// Column order is the order in which columns first appear, as the author gave
// them: columns declared by Of or AddColumn, then columns that earlier rows
// introduced. A Go map has no order, so the new columns one map row
// introduces are placed by a fixed rule: its new label columns first (a row's
// names: strategy, workload, ...), then its new number columns (nil values
// count as numbers), each group in sorted order. To choose the order
// yourself, declare the columns first (Of, AddColumn) or add rows with Add.
//
// An empty column name, an unsupported value, or a value of the wrong kind
// for an existing column is an error naming the column, and the frame is left
// unchanged.
func (f *Frame) Append(r Row) error {
	if f.err != nil {
		return f.err
	}
	// Validate first so a bad row leaves the frame untouched.
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" {
			return fmt.Errorf("frame %q: empty column name", f.Name)
		}
		if err := f.checkValue(f.col(k), k, r[k]); err != nil {
			return err
		}
	}
	for _, labels := range []bool{true, false} {
		for _, k := range keys {
			if _, isText := r[k].(string); isText == labels && f.col(k) == nil {
				if isText {
					f.addCol(k, Label)
				} else {
					f.addCol(k, Number).open = r[k] == nil
				}
			}
		}
	}
	f.appendChecked(r)
	return nil
}

// appendChecked appends r, whose values have been checked against f's
// columns, which hold every key of r.
func (f *Frame) appendChecked(r Row) {
	for _, c := range f.cols {
		v := r[c.name]
		if v != nil && c.open {
			kind, _, _ := kindOfValue(v)
			c.fix(kind, f.n)
		}
		if c.kind == Number {
			x := math.NaN()
			if v != nil {
				x, _ = toNumber(v)
			}
			c.nums = append(c.nums, x)
		} else {
			s, _ := v.(string)
			c.texts = append(c.texts, s)
		}
	}
	f.n++
}

// Add appends one row positionally: one value per column, in the frame's
// column order (see Of), each a string, a number (as for Row) or nil for a
// missing value. A wrong count, an unsupported value or a value of the wrong
// kind is an error naming the column, and the frame is left unchanged.
func (f *Frame) Add(values ...any) error {
	if f.err != nil {
		return f.err
	}
	if len(values) != len(f.cols) {
		return fmt.Errorf("frame %q: Add: %d values for %d columns (%s)", f.Name, len(values), len(f.cols), strings.Join(f.Columns(), ", "))
	}
	r := make(Row, len(values))
	for i, c := range f.cols {
		if err := f.checkValue(c, c.name, values[i]); err != nil {
			return err
		}
		r[c.name] = values[i]
	}
	f.appendChecked(r)
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
// column exists with that kind, and an error when it exists with another. A
// column declared by Of that no value has reached yet takes kind.
func (f *Frame) AddColumn(name string, kind Kind) error {
	if f.err != nil {
		return f.err
	}
	if c := f.col(name); c != nil {
		if c.open {
			c.fix(kind, f.n)
			return nil
		}
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
