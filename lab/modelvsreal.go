package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/charts"
)

// Agreement tolerances the lab states (issue 7): sleep-based scenarios
// within ±10 %, CPU scenarios with calibrated costs within ±25 %.
const (
	SleepTolerance = 0.10
	CPUTolerance   = 0.25
)

// Agreement is the answer of ModelVsReal: the model's figure and the real
// one side by side for every pair of rows and metric, each with its
// verdict.
type Agreement struct {
	// Title names the comparison (the Experiment's Name).
	Title string
	// Tolerance is the stated relative tolerance (0.10 is ±10 %).
	Tolerance float64
	// Metrics are the summary columns compared, in order.
	Metrics []string
	// Frame has one row per pair and metric: strategy (the model's label
	// "X"; the real row is "real X"), metric, model, real, ratio (real /
	// model), tolerance, agree (1 when |real − model| ≤ tolerance × |model|,
	// 0 otherwise, NaN on either side included), ordering (1 when the pair
	// has no clear ordering reversal against another pair, see Agree) and
	// verdict: "agrees", "ordering only" or "disagrees", in a sentence.
	// charts.ModelVsReal draws it.
	Frame *frame.Frame
	// Agree of Total rows agree within the tolerance; Ordering more rows
	// (not among Agree) agree in ordering only.
	Agree, Ordering, Total int
	// Summary is the summary frame the pairs were read from (model and
	// real rows); Result the bench.Run result behind it (nil for
	// ModelVsRealOf).
	Summary *frame.Frame
	Result  *bench.Result
}

// Line is the answer in one line: "N of M agree within ±X %; K agree in
// ordering only" ("skipped" on the nil Agreement of a skipped comparison).
func (a *Agreement) Line() string {
	if a == nil {
		return "skipped"
	}
	return fmt.Sprintf("%d of %d agree within ±%s %%; %d agree in ordering only", a.Agree, a.Total, frame.FormatNumber(a.Tolerance*100), a.Ordering)
}

// Disagreeing lists "X metric" for each row that agrees neither within
// the tolerance nor in ordering.
func (a *Agreement) Disagreeing() []string {
	var out []string
	if a == nil {
		return nil
	}
	for i := 0; i < a.Frame.Len(); i++ {
		if a.Frame.Float("agree", i) != 1 && a.Frame.Float("ordering", i) != 1 {
			out = append(out, a.Frame.Text("strategy", i)+" "+a.Frame.Text("metric", i))
		}
	}
	return out
}

// Err is nil when every row agrees within the tolerance or in ordering (or
// a is nil: skipped), else an error naming the rows that agree in neither,
// with the line. A cell that returns it fails on a clear disagreement.
func (a *Agreement) Err() error {
	if d := a.Disagreeing(); len(d) > 0 {
		return fmt.Errorf("%s: model and real CPython disagree beyond ±%s %% and in ordering on %s (%s)",
			a.Title, frame.FormatNumber(a.Tolerance*100), strings.Join(d, ", "), a.Line())
	}
	return nil
}

// ModelVsReal runs e with bench.Run — e holds model strategies "X" and real
// ones "real X" (bench/cpython's Real, e.g. from s001.Knobs.Versus) —
// pairs the summary rows by label, and shows the agreement table, a
// charts.ModelVsReal chart per metric and the line "N of M agree within ±X
// %". A row agrees only when its values agree within tol (relative to the
// model's; 0.10 is ±10 %). It returns the Agreement — a verdict, not an
// error: how far a CPU-bound comparison agrees depends on what else the
// machine runs, so it is a finding to show. Where arithmetic dominates the
// noise (sleep-based waits), a cell makes a clear disagreement fail it with
// Agreement.Err. The error is for what kept the comparison from being made:
// a row without its partner, a metric the summary lacks or a tolerance
// outside (0, 10] (before anything runs or is shown), or a failed run.
//
// When this machine's CPython lacks a package a real strategy needs, it
// shows one line "skipped: ..." naming what is missing and how to install it, and
// returns (nil, nil): the notebook goes on without the real half.
func ModelVsReal(ctx context.Context, e bench.Experiment, tol float64, metrics ...string) (*Agreement, error) {
	if err := checkArgs(tol, metrics); err != nil {
		return nil, err
	}
	if err := checkPairs(e); err != nil {
		return nil, err
	}
	for _, s := range e.Strategies {
		if av, ok := s.(interface{ Available(context.Context) error }); ok {
			if err := av.Available(ctx); err != nil {
				return skipped(err)
			}
		}
	}
	res, err := bench.Run(ctx, e)
	if err != nil {
		if errors.Is(err, cpython.ErrUnavailable) {
			return skipped(err)
		}
		return nil, err
	}
	title := e.Name
	if title == "" {
		title = res.Name
	}
	a, err := Agree(title, res.Summary, tol, metrics...)
	if err != nil {
		return nil, err
	}
	a.Result = res
	if err := a.show(); err != nil {
		return a, err
	}
	return a, nil
}

// ModelVsRealOf is ModelVsReal for comparisons that are not one
// bench.Run — sources 002 and 004, where the clients are what is compared
// and their own code makes the load (s002.Knobs.Versus, s004.Knobs.Versus):
// run returns a summary frame with model rows "X" and real rows "real X".
// It shows and returns the same as ModelVsReal, skipping the same way when
// run fails with cpython.ErrUnavailable.
func ModelVsRealOf(ctx context.Context, title string, run func(context.Context) (*frame.Frame, error), tol float64, metrics ...string) (*Agreement, error) {
	if err := checkArgs(tol, metrics); err != nil {
		return nil, err
	}
	if run == nil {
		return nil, errors.New("lab: ModelVsRealOf: nil run function")
	}
	summary, err := run(ctx)
	if err != nil {
		if errors.Is(err, cpython.ErrUnavailable) {
			return skipped(err)
		}
		return nil, err
	}
	a, err := Agree(title, summary, tol, metrics...)
	if err != nil {
		return nil, err
	}
	if err := a.show(); err != nil {
		return a, err
	}
	return a, nil
}

func checkArgs(tol float64, metrics []string) error {
	if !(tol > 0 && tol <= 10) {
		return fmt.Errorf("lab: tolerance %v out of range (0, 10] (0.10 is ±10 %%)", tol)
	}
	if len(metrics) == 0 {
		return errors.New("lab: no metrics to compare (e.g. \"elapsed_s\", \"avg_ms\", \"rps\")")
	}
	return nil
}

// checkPairs fails an experiment whose strategies do not come in pairs "X"
// and "real X".
func checkPairs(e bench.Experiment) error {
	labels := map[string]bool{}
	for _, s := range e.Strategies {
		labels[s.Label()] = true
	}
	var lone []string
	for l := range labels {
		if m, ok := strings.CutPrefix(l, cpython.RealPrefix); ok {
			if !labels[m] {
				lone = append(lone, fmt.Sprintf("%q has no model row %q", l, m))
			}
		} else if !labels[cpython.RealPrefix+l] {
			lone = append(lone, fmt.Sprintf("%q has no real row %q", l, cpython.RealPrefix+l))
		}
	}
	if len(lone) > 0 {
		sortStrings(lone)
		return fmt.Errorf("lab: the experiment's strategies must come in pairs \"X\" and \"real X\": %s", strings.Join(lone, "; "))
	}
	return nil
}

// skipped shows why the real half cannot run, in one line, and returns
// (nil, nil).
func skipped(err error) (*Agreement, error) {
	// A *cpython.MissingError names what is missing and how to get it.
	line := "skipped: " + err.Error()
	return nil, show(line, line)
}

// Agree pairs the rows of summary — model rows "X" and real rows "real X"
// in the strategy column — and compares each metric within tol, as
// ModelVsReal does, without running or showing anything.
//
// A pair that does not agree within tol may still agree in ordering: for
// the metric, no other pair is clearly ordered the other way round — a
// clear reversal is one where the model puts X above Y by more than tol
// and reality puts X below Y by more than tol (or the other way). Near
// ties on either side are not reversals. A lone pair has nothing to be
// ordered against, so it agrees in ordering only when it agrees.
func Agree(title string, summary *frame.Frame, tol float64, metrics ...string) (*Agreement, error) {
	if err := checkArgs(tol, metrics); err != nil {
		return nil, err
	}
	if summary == nil {
		return nil, errors.New("lab: Agree: nil summary frame")
	}
	if k, ok := summary.KindOf("strategy"); !ok || k != frame.Label {
		return nil, fmt.Errorf("lab: Agree: frame %q has no label column \"strategy\" (columns: %s)", summary.Name, strings.Join(summary.Columns(), ", "))
	}
	for _, m := range metrics {
		if k, ok := summary.KindOf(m); !ok || k != frame.Number {
			return nil, fmt.Errorf("lab: Agree: frame %q has no number column %q (columns: %s)", summary.Name, m, strings.Join(summary.Columns(), ", "))
		}
	}
	rowOf := map[string]int{}
	var order []string
	for i := 0; i < summary.Len(); i++ {
		l := summary.Text("strategy", i)
		if _, dup := rowOf[l]; dup {
			return nil, fmt.Errorf("lab: Agree: strategy %q appears twice in frame %q", l, summary.Name)
		}
		rowOf[l] = i
		order = append(order, l)
	}
	out := frame.New(title)
	for _, c := range []string{"strategy", "metric", "model", "real", "ratio", "tolerance", "agree", "ordering", "verdict"} {
		k := frame.Number
		if c == "strategy" || c == "metric" || c == "verdict" {
			k = frame.Label
		}
		_ = out.AddColumn(c, k)
	}
	a := &Agreement{Title: title, Tolerance: tol, Metrics: metrics, Summary: summary}
	var lone []string
	type pair struct {
		label string
		i, j  int
	}
	var pairs []pair
	for _, l := range order {
		if m, ok := strings.CutPrefix(l, cpython.RealPrefix); ok {
			if _, ok := rowOf[m]; !ok {
				lone = append(lone, fmt.Sprintf("%q has no model row %q", l, m))
			}
			continue
		}
		j, ok := rowOf[cpython.RealPrefix+l]
		if !ok {
			lone = append(lone, fmt.Sprintf("%q has no real row %q", l, cpython.RealPrefix+l))
			continue
		}
		pairs = append(pairs, pair{l, rowOf[l], j})
	}
	for _, p := range pairs {
		for _, m := range metrics {
			mv, rv := summary.Float(m, p.i), summary.Float(m, p.j)
			ok := agrees(mv, rv, tol)
			ordered := false
			if !ok && len(pairs) > 1 && finite(mv) && finite(rv) {
				ordered = true
				for _, q := range pairs {
					if q != p && reversed(mv, summary.Float(m, q.i), rv, summary.Float(m, q.j), tol) {
						ordered = false
					}
				}
			}
			a.Total++
			switch {
			case ok:
				a.Agree++
			case ordered:
				a.Ordering++
			}
			out.MustAppend(frame.Row{"strategy": p.label, "metric": m, "model": mv, "real": rv, "ratio": rv / mv,
				"tolerance": tol, "agree": ok, "ordering": ok || ordered, "verdict": verdict(m, mv, rv, tol, ok, ordered)})
		}
	}
	if len(lone) > 0 {
		return nil, fmt.Errorf("lab: Agree: rows of %q must come in pairs \"X\" and \"real X\": %s", summary.Name, strings.Join(lone, "; "))
	}
	if a.Total == 0 {
		return nil, fmt.Errorf("lab: Agree: frame %q has no pair of rows \"X\" and \"real X\"", summary.Name)
	}
	a.Frame = out
	return a, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// reversed reports a clear ordering reversal between pairs X (model mx,
// real rx) and Y (my, ry): one side puts X above Y by more than tol, the
// other below by more than tol. A NaN or infinite Y is no reversal.
func reversed(mx, my, rx, ry, tol float64) bool {
	if !finite(my) || !finite(ry) {
		return false
	}
	above := func(a, b float64) bool { return a-b > tol*math.Abs(b) }
	return (above(mx, my) && above(ry, rx)) || (above(my, mx) && above(rx, ry))
}

// agrees reports |real − model| ≤ tol × |model|; a NaN never agrees.
func agrees(model, real, tol float64) bool {
	if math.IsNaN(model) || math.IsNaN(real) || math.IsInf(model, 0) || math.IsInf(real, 0) {
		return false
	}
	// The tiny slack keeps a value exactly at the edge (1.1 against 1.0
	// at ±10 %) from failing on binary rounding.
	return math.Abs(real-model) <= tol*math.Abs(model)*(1+1e-9)
}

func verdict(metric string, model, real, tol float64, ok, ordered bool) string {
	f := num
	t := frame.FormatNumber(tol * 100)
	dev := "n/a"
	if model != 0 && !math.IsNaN(model) && !math.IsNaN(real) {
		dev = fmt.Sprintf("%+.0f %%", (real/model-1)*100)
	}
	if ok {
		return fmt.Sprintf("agrees: %s model %s, real %s (%s), within ±%s %%", metric, f(model), f(real), dev, t)
	}
	if ordered {
		return fmt.Sprintf("ordering only: %s model %s, real %s (%s), beyond ±%s %%; no other row is clearly ordered the other way", metric, f(model), f(real), dev, t)
	}
	return fmt.Sprintf("disagrees: %s model %s, real %s (%s), beyond ±%s %%", metric, f(model), f(real), dev, t)
}

// show renders the table with the line, then a chart per metric.
func (a *Agreement) show() error {
	text := strings.TrimRight(a.Frame.String(), "\n") + "\n" + a.Line()
	if err := show(shapeView{a.Frame, a.Line()}, text); err != nil {
		return err
	}
	for _, m := range a.Metrics {
		if err := show(charts.ModelVsReal(a.Frame, m), ""); err != nil {
			return err
		}
	}
	return nil
}

// num formats a number as the tables do; NaN (a figure that could not be
// measured) shows as "NaN".
func num(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return frame.FormatNumber(x)
}
