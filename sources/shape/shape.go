// Package shape states the claims a source's result must satisfy — its
// shape: which strategy is slowest, how many waves a pool made, how many
// handlers ran at once — as checks (Check: what, got, want, holds) built
// from measured figures and the arithmetic of the knobs. The source
// packages (sources/...) return their checks as functions of their knobs;
// their tests and the notebook suite assert them (Err), and Show renders
// them as a table. A lesson shows its verdicts and never fails on them.
package shape

import (
	"errors"
	"fmt"
	"html"
	"math"
	"reflect"
	"strings"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/display"
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

// Err is nil when every check holds, else an error "TITLE's shape did NOT
// hold: what (got X, want Y); ..." naming each failed check. No checks is
// an error: a shape with nothing to check cannot hold.
func Err(title string, checks ...Check) error {
	if len(checks) == 0 {
		return fmt.Errorf("shape: %q: no checks given", title)
	}
	var failed []string
	for _, c := range checks {
		if !c.Holds {
			failed = append(failed, fmt.Sprintf("%s (got %s, want %s)", c.What, c.Got, c.Want))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s's shape did NOT hold: %s", title, strings.Join(failed, "; "))
	}
	return nil
}

// Line is "N of M checks hold".
func Line(checks ...Check) string {
	n := 0
	for _, c := range checks {
		if c.Holds {
			n++
		}
	}
	return fmt.Sprintf("%d of %d checks hold", n, len(checks))
}

// Show shows the checks as a table (check, got, want, holds) headed by
// title and the Line, through the installed display publisher (a notebook
// cell) or as text on standard output (a test, a program), and returns
// Err.
func Show(title string, checks ...Check) error {
	if len(checks) == 0 {
		return Err(title)
	}
	f := Frame(title, checks...)
	line := Line(checks...)
	err := display.Show(view{f, line})
	if errors.Is(err, display.ErrNoPublisher) {
		fmt.Println(strings.TrimRight(f.String(), "\n") + "\n" + line)
	} else if err != nil {
		return err
	}
	return Err(title, checks...)
}

// view renders a table and its line as one output.
type view struct {
	f    *frame.Frame
	line string
}

func (v view) Render() display.Data {
	return display.MIME(display.MIMEMap{
		display.MIMETypeText: strings.TrimRight(v.f.String(), "\n") + "\n" + v.line,
		display.MIMETypeHTML: v.f.HTML() + `<p style="font-family:sans-serif;font-size:13px"><b>` + html.EscapeString(v.line) + `</b></p>`,
	}, nil)
}

// Slowest returns, among the rows of f labelled (strategy column) by one of
// labels, the label whose col is largest — "which endpoint is slowest?"
// for a check — or "" when none of them is in f with a number there.
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
