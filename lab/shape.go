package lab

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/conclab/conclab/bench/frame"
)

// Check is one claim about a result: what it is about, the value got, the
// value wanted (as the table shows them) and whether it holds. Build one
// with Equal, AtLeast, AtMost, Between, Less or True.
type Check struct {
	What  string
	Got   string
	Want  string
	Holds bool
}

// fmtValue renders a value as the tables do (numbers through
// frame.FormatNumber).
func fmtValue(v any) string {
	if x, ok := number(v); ok {
		return num(x)
	}
	return fmt.Sprint(v)
}

// num formats a number as the tables do; NaN (a figure that could not be
// measured) shows as "NaN".
func num(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return frame.FormatNumber(x)
}

// number converts Go's numeric kinds to float64.
func number(v any) (float64, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint()), true
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	}
	return 0, false
}

// Equal holds when got equals want. Numbers of any Go kind compare by
// value (3 equals 3.0; NaN equals nothing); other values with
// reflect.DeepEqual.
func Equal(what string, got, want any) Check {
	c := Check{What: what, Got: fmtValue(got), Want: fmtValue(want)}
	g, ok1 := number(got)
	w, ok2 := number(want)
	if ok1 && ok2 {
		c.Holds = g == w
	} else {
		c.Holds = reflect.DeepEqual(got, want)
	}
	return c
}

// AtLeast holds when got >= min (a NaN never holds).
func AtLeast(what string, got, min float64) Check {
	return Check{What: what, Got: num(got), Want: "≥ " + num(min), Holds: got >= min}
}

// AtMost holds when got <= max (a NaN never holds).
func AtMost(what string, got, max float64) Check {
	return Check{What: what, Got: num(got), Want: "≤ " + num(max), Holds: got <= max}
}

// Between holds when lo <= got <= hi (a NaN never holds).
func Between(what string, got, lo, hi float64) Check {
	return Check{What: what, Got: num(got),
		Want: num(lo) + " … " + num(hi), Holds: got >= lo && got <= hi}
}

// Less holds when a < b: an ordering, e.g. "/async-ok is faster than
// /async-block" as Less(what, okS, blockS). Got shows "a vs b".
func Less(what string, a, b float64) Check {
	return Check{What: what, Got: num(a) + " vs " + num(b), Want: "first < second", Holds: a < b}
}

// True holds when ok is true: a claim computed elsewhere (rows landed in
// order, a string matched).
func True(what string, ok bool) Check {
	return Check{What: what, Got: fmt.Sprint(ok), Want: "true", Holds: ok}
}

// Frame is the checks as a frame: check, got, want, holds (1 or 0).
func Frame(title string, checks ...Check) *frame.Frame {
	f := frame.New(title)
	for _, c := range []string{"check", "got", "want"} {
		_ = f.AddColumn(c, frame.Label)
	}
	_ = f.AddColumn("holds", frame.Number)
	for _, c := range checks {
		f.MustAppend(frame.Row{"check": c.What, "got": c.Got, "want": c.Want, "holds": c.Holds})
	}
	return f
}

// Shape shows the checks as a table (check, got, want, holds) headed by
// title and a line "N of M checks hold", and returns nil when every check
// holds, else an error "TITLE's shape did NOT hold: what (got X, want Y);
// ..." naming each failed check. No checks is an error: a shape with
// nothing to check cannot hold.
func Shape(title string, checks ...Check) error {
	if len(checks) == 0 {
		return fmt.Errorf("lab: Shape %q: no checks given", title)
	}
	f := Frame(title, checks...)
	var failed []string
	for _, c := range checks {
		if !c.Holds {
			failed = append(failed, fmt.Sprintf("%s (got %s, want %s)", c.What, c.Got, c.Want))
		}
	}
	line := fmt.Sprintf("%d of %d checks hold", len(checks)-len(failed), len(checks))
	if err := show(shapeView{f, line}, strings.TrimRight(f.String(), "\n")+"\n"+line); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s's shape did NOT hold: %s", title, strings.Join(failed, "; "))
	}
	return nil
}

// Slowest returns, among the rows of f labelled (strategy column) by one of
// labels, the label whose col is largest — "which endpoint is slowest?"
// for a Shape check — or "" when none of them is in f with a number there.
func Slowest(f *frame.Frame, col string, labels ...string) string {
	best, worst := "", math.Inf(-1)
	if f == nil || !f.Has("strategy") || !f.Has(col) {
		return ""
	}
	for i := 0; i < f.Len(); i++ {
		l := f.Text("strategy", i)
		for _, want := range labels {
			if l == want {
				if v := f.Float(col, i); !math.IsNaN(v) && v > worst {
					best, worst = l, v
				}
			}
		}
	}
	return best
}
