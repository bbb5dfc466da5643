package frame

import (
	"fmt"
	"strings"
)

// Lookup returns the one row whose column keyCol reads key (as Text formats
// it: a label itself, a number compactly), e.g. Lookup("strategy",
// "/async-block"). A missing keyCol is a *ColumnError; no row with that key,
// or more than one, is an error naming the key and the keys there are (use
// Where for every row with a key).
func (f *Frame) Lookup(keyCol, key string) (Row, error) {
	i, err := f.lookup(keyCol, key)
	if err != nil {
		return nil, err
	}
	return f.Row(i), nil
}

func (f *Frame) lookup(keyCol, key string) (int, error) {
	c := f.col(keyCol)
	if c == nil {
		return 0, f.missing(keyCol)
	}
	found, count := -1, 0
	for i := 0; i < f.n; i++ {
		if c.text(i) == key {
			if found < 0 {
				found = i
			}
			count++
		}
	}
	switch {
	case count == 0:
		keys := f.Unique(keyCol)
		const most = 12
		if len(keys) > most {
			keys = append(keys[:most:most], fmt.Sprintf("... %d more", len(keys)-most))
		}
		have := "the frame has no rows"
		if len(keys) > 0 {
			have = keyCol + ": " + strings.Join(keys, ", ")
		}
		return 0, fmt.Errorf("frame %q: no row with %s %q (%s)", f.Name, keyCol, key, have)
	case count > 1:
		return 0, fmt.Errorf("frame %q: %d rows with %s %q, Lookup needs exactly one (Where gives them all)", f.Name, count, keyCol, key)
	}
	return found, nil
}

// Get returns the number in column col of the one row whose keyCol reads key,
// e.g. Get("strategy", "/async-block", "elapsed_s"); NaN when that value is
// missing. A missing keyCol or col, or a col holding labels, is a
// *ColumnError; the key is looked up as by Lookup.
func (f *Frame) Get(keyCol, key, col string) (float64, error) {
	if !f.Has(keyCol) {
		return 0, f.missing(keyCol)
	}
	c := f.col(col)
	if c == nil {
		return 0, f.missing(col)
	}
	if c.kind != Number {
		return 0, f.notNumbers(col)
	}
	i, err := f.lookup(keyCol, key)
	if err != nil {
		return 0, err
	}
	return c.nums[i], nil
}
