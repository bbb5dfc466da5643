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
	// 0 otherwise, NaN on either side included) and verdict, a sentence.
	// charts.ModelVsReal draws it.
	Frame *frame.Frame
	// Agree of Total rows agree.
	Agree, Total int
	// Summary is the summary frame the pairs were read from (model and
	// real rows); Result the bench.Run result behind it (nil for
	// ModelVsRealOf).
	Summary *frame.Frame
	Result  *bench.Result
}

// Line is the one-sentence answer: "N of M agree within ±X %" ("skipped"
// on the nil Agreement of a skipped comparison).
func (a *Agreement) Line() string {
	if a == nil {
		return "skipped"
	}
	return fmt.Sprintf("%d of %d agree within ±%s %%", a.Agree, a.Total, frame.FormatNumber(a.Tolerance*100))
}

// Disagreeing lists "X metric" for each row that does not agree.
func (a *Agreement) Disagreeing() []string {
	var out []string
	if a == nil {
		return nil
	}
	for i := 0; i < a.Frame.Len(); i++ {
		if a.Frame.Float("agree", i) != 1 {
			out = append(out, a.Frame.Text("strategy", i)+" "+a.Frame.Text("metric", i))
		}
	}
	return out
}

// Err is nil when every row agrees (or a is nil: skipped), else an error
// naming the rows that do not, with the line.
func (a *Agreement) Err() error {
	if d := a.Disagreeing(); len(d) > 0 {
		return fmt.Errorf("%s: model and real CPython disagree beyond ±%s %% on %s (%s)",
			a.Title, frame.FormatNumber(a.Tolerance*100), strings.Join(d, ", "), a.Line())
	}
	return nil
}

// ModelVsReal runs e with bench.Run — e holds model strategies "X" and real
// ones "real X" (bench/cpython's Real, e.g. from cpython.Experiment001) —
// pairs the summary rows by label, and shows the agreement table, a
// charts.ModelVsReal chart per metric and the line "N of M agree within ±X
// %". A row agrees only when its values agree within tol (relative to the
// model's; 0.10 is ±10 %). It returns the Agreement and, when a row
// disagrees, an error naming those rows (Agreement.Err). A row without its
// partner, a metric the summary lacks or a tolerance outside (0, 10] is an
// error before anything runs or is shown.
//
// When this machine's CPython lacks a package a real strategy needs, it
// shows one line "skipped: ..." naming the Debian packages to install and
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
	return a, a.Err()
}

// ModelVsRealOf is ModelVsReal for comparisons that are not one
// bench.Run — sources 002 and 004, where the clients are what is compared
// and their own code makes the load (cpython.Versus002, cpython.Versus004):
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
	return a, a.Err()
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
	// A *cpython.MissingError names the Debian packages to install.
	line := "skipped: " + err.Error()
	return nil, show(line, line)
}

// Agree pairs the rows of summary — model rows "X" and real rows "real X"
// in the strategy column — and compares each metric within tol, as
// ModelVsReal does, without running or showing anything.
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
	for _, c := range []string{"strategy", "metric", "model", "real", "ratio", "tolerance", "agree", "verdict"} {
		k := frame.Number
		if c == "strategy" || c == "metric" || c == "verdict" {
			k = frame.Label
		}
		_ = out.AddColumn(c, k)
	}
	a := &Agreement{Title: title, Tolerance: tol, Metrics: metrics, Summary: summary}
	var lone []string
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
		i := rowOf[l]
		for _, m := range metrics {
			mv, rv := summary.Float(m, i), summary.Float(m, j)
			ok := agrees(mv, rv, tol)
			a.Total++
			if ok {
				a.Agree++
			}
			out.MustAppend(frame.Row{"strategy": l, "metric": m, "model": mv, "real": rv, "ratio": rv / mv,
				"tolerance": tol, "agree": ok, "verdict": verdict(m, mv, rv, tol, ok)})
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

// agrees reports |real − model| ≤ tol × |model|; a NaN never agrees.
func agrees(model, real, tol float64) bool {
	if math.IsNaN(model) || math.IsNaN(real) || math.IsInf(model, 0) || math.IsInf(real, 0) {
		return false
	}
	// The tiny slack keeps a value exactly at the edge (1.1 against 1.0
	// at ±10 %) from failing on binary rounding.
	return math.Abs(real-model) <= tol*math.Abs(model)*(1+1e-9)
}

func verdict(metric string, model, real, tol float64, ok bool) string {
	f := num
	t := frame.FormatNumber(tol * 100)
	dev := "n/a"
	if model != 0 && !math.IsNaN(model) && !math.IsNaN(real) {
		dev = fmt.Sprintf("%+.0f %%", (real/model-1)*100)
	}
	if ok {
		return fmt.Sprintf("agrees: %s model %s, real %s (%s), within ±%s %%", metric, f(model), f(real), dev, t)
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
