package charts

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/conclab/conclab/bench/frame"
)

// check returns a problem message when f is nil, empty, or lacks one of the
// number columns cols; "" when f is usable.
func check(view string, f *frame.Frame, cols ...string) string {
	if f == nil {
		return view + ": the frame is nil"
	}
	if f.Len() == 0 {
		return fmt.Sprintf("%s: frame %q has no rows", view, f.Name)
	}
	var missing []string
	for _, col := range cols {
		k, ok := f.KindOf(col)
		switch {
		case !ok:
			missing = append(missing, col)
		case k != frame.Number:
			return fmt.Sprintf("%s: column %q of frame %q holds labels, want numbers", view, col, f.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("%s: frame %q has no column %s (have: %s)", view, f.Name,
			strings.Join(quoteAll(missing), ", "), strings.Join(f.Columns(), ", "))
	}
	return ""
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// isLabel reports whether f has a label column col.
func isLabel(f *frame.Frame, col string) bool {
	k, ok := f.KindOf(col)
	return ok && k == frame.Label
}

// keyColumns returns the label columns that name a row's series: "strategy"
// first when present, then every other label column whose value varies.
// Columns in skip are never used.
func keyColumns(f *frame.Frame, skip ...string) []string {
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[s] = true
	}
	var cols []string
	if k, ok := f.KindOf("strategy"); ok && k == frame.Label && !skipped["strategy"] {
		cols = append(cols, "strategy")
	}
	for _, col := range f.Columns() {
		if col == "strategy" || skipped[col] {
			continue
		}
		if k, _ := f.KindOf(col); k == frame.Label && len(f.Unique(col)) > 1 {
			cols = append(cols, col)
		}
	}
	return cols
}

// rowKeys names each row's series by its key columns joined with " · ".
func rowKeys(f *frame.Frame, skip ...string) []string {
	cols := keyColumns(f, skip...)
	keys := make([]string, f.Len())
	for i := range keys {
		var parts []string
		for _, col := range cols {
			if t := f.Text(col, i); t != "" {
				parts = append(parts, t)
			}
		}
		keys[i] = strings.Join(parts, " · ")
		if keys[i] == "" {
			keys[i] = f.Name
			if keys[i] == "" {
				keys[i] = "result"
			}
		}
	}
	return keys
}

// uniqueKeys makes repeated keys distinct ("sync", "sync #2").
func uniqueKeys(keys []string) []string {
	seen := map[string]int{}
	out := make([]string, len(keys))
	for i, k := range keys {
		seen[k]++
		if seen[k] > 1 {
			out[i] = fmt.Sprintf("%s #%d", k, seen[k])
		} else {
			out[i] = k
		}
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Throughput draws one bar per strategy (per row) of a summary frame's rps
// column, each in its strategy's colour.
func Throughput(f *frame.Frame) *Chart {
	const view = "charts.Throughput"
	title := "Throughput"
	if f != nil && f.Name != "" {
		title = "Throughput · " + f.Name
	}
	if p := check(view, f, "rps"); p != "" {
		return problemChart(title, p)
	}
	keys := rowKeys(f)
	cats := uniqueKeys(keys)
	c := newChart(title)
	c.kind = barKind
	c.categories = cats
	c.yName = "throughput (req/s)"
	s := series{name: "rps", color: "#4e79a7", ys: f.Floats("rps")}
	for _, k := range keys {
		s.itemColors = append(s.itemColors, ColorOf(k))
	}
	c.series = []series{s}
	return c
}

// latencyStats are the grouped statistics of Latency: label, columns tried.
var latencyStats = []struct {
	label string
	cols  []string
}{
	{"avg", []string{"avg_ms"}},
	{"p50", []string{"p50_ms", "med_ms"}},
	{"p90", []string{"p90_ms"}},
	{"p95", []string{"p95_ms"}},
	{"p99", []string{"p99_ms"}},
	{"p99.9", []string{"p999_ms"}},
	{"max", []string{"max_ms"}},
}

// Latency draws a summary frame's latency statistics grouped by statistic
// (avg, p50 from p50_ms or med_ms, p95, p99), one bar per strategy in its
// colour. Extra statistics may be asked for by label ("p90", "p99.9",
// "max"); with none, avg/p50/p95/p99 are drawn, those present. Chain LogY
// for latencies that span decades.
func Latency(f *frame.Frame, stats ...string) *Chart {
	const view = "charts.Latency"
	title := "Latency"
	if f != nil && f.Name != "" {
		title = "Latency · " + f.Name
	}
	if p := check(view, f); p != "" {
		return problemChart(title, p)
	}
	if len(stats) == 0 {
		stats = []string{"avg", "p50", "p95", "p99"}
	}
	var labels, cols []string
	for _, want := range stats {
		found := false
		for _, st := range latencyStats {
			if st.label != want {
				continue
			}
			found = true
			for _, col := range st.cols {
				if k, ok := f.KindOf(col); ok && k == frame.Number {
					labels, cols = append(labels, st.label), append(cols, col)
					break
				}
			}
		}
		if !found {
			return problemChart(title, fmt.Sprintf("%s: unknown statistic %q (know avg, p50, p90, p95, p99, p99.9, max)", view, want))
		}
	}
	if len(cols) == 0 {
		return problemChart(title, fmt.Sprintf("%s: frame %q has none of the latency columns avg_ms, med_ms/p50_ms, p95_ms, p99_ms (have: %s)",
			view, f.Name, strings.Join(f.Columns(), ", ")))
	}
	keys := uniqueKeys(rowKeys(f))
	c := newChart(title)
	c.kind = barKind
	c.categories = labels
	c.yName = "latency (ms)"
	for i, k := range keys {
		s := series{name: k, color: ColorOf(rowKeys(f)[i])}
		for _, col := range cols {
			s.ys = append(s.ys, f.Float(col, i))
		}
		c.series = append(c.series, s)
	}
	return c
}

// axisName turns a column name into an axis title with its unit.
func axisName(col string) string {
	switch {
	case col == "rps":
		return "throughput (req/s)"
	case col == "t_s":
		return "time since start (s)"
	case col == "percentile":
		return "percentile (%)"
	case col == "latency_ms":
		return "latency (ms)"
	case strings.HasSuffix(col, "_ms"):
		return strings.TrimSuffix(col, "_ms") + " (ms)"
	case strings.HasSuffix(col, "_s"):
		return strings.TrimSuffix(col, "_s") + " (s)"
	case strings.HasSuffix(col, "_mb"):
		return strings.TrimSuffix(col, "_mb") + " (MB)"
	default:
		return col
	}
}

// lines builds a line chart of y against x, one series per key, points sorted
// by x.
func lines(view, title string, f *frame.Frame, x, y string) *Chart {
	if p := check(view, f, x, y); p != "" {
		return problemChart(title, p)
	}
	keys := rowKeys(f)
	c := newChart(title)
	c.kind = lineKind
	c.xNumeric = true
	c.xName, c.yName = axisName(x), axisName(y)
	idx := map[string]int{}
	for i, k := range keys {
		j, ok := idx[k]
		if !ok {
			j = len(c.series)
			idx[k] = j
			c.series = append(c.series, series{name: k, color: ColorOf(k)})
		}
		c.series[j].xs = append(c.series[j].xs, f.Float(x, i))
		c.series[j].ys = append(c.series[j].ys, f.Float(y, i))
	}
	for i := range c.series {
		s := &c.series[i]
		order := make([]int, len(s.xs))
		for j := range order {
			order[j] = j
		}
		sort.SliceStable(order, func(a, b int) bool {
			xa, xb := s.xs[order[a]], s.xs[order[b]]
			return xa < xb || (!math.IsNaN(xa) && math.IsNaN(xb))
		})
		xs, ys := make([]float64, len(order)), make([]float64, len(order))
		for j, o := range order {
			xs[j], ys[j] = s.xs[o], s.ys[o]
		}
		s.xs, s.ys = xs, ys
	}
	most := 0
	for _, s := range c.series {
		n := 0
		for i, y := range s.ys {
			if !math.IsNaN(y) && !math.IsInf(y, 0) && !math.IsNaN(s.xs[i]) && !math.IsInf(s.xs[i], 0) {
				n++
			}
		}
		most = max(most, n)
	}
	if most == 1 {
		c.notes = append(c.notes, "one point per series: too few to draw a line")
	}
	return c
}

// OverTime draws a series frame's metric (e.g. "rps", "p95_ms") against t_s,
// one line per strategy in its colour.
func OverTime(f *frame.Frame, metric string) *Chart {
	title := "Throughput over time"
	if metric != "rps" {
		title = strings.TrimSuffix(metric, "_ms") + " latency over time"
		if !strings.HasSuffix(metric, "_ms") {
			title = metric + " over time"
		}
	}
	return lines("charts.OverTime", title, f, "t_s", metric)
}

// Timeline draws a series frame's throughput and tail latency over time as
// two charts one above the other: rps, then the first of p95_ms, p99_ms,
// p50_ms, avg_ms present.
func Timeline(f *frame.Frame) *Group {
	lat := "p95_ms"
	if f != nil {
		for _, col := range []string{"p95_ms", "p99_ms", "p50_ms", "med_ms", "avg_ms"} {
			if f.Has(col) {
				lat = col
				break
			}
		}
	}
	return NewGroup(OverTime(f, "rps").Size(DefaultWidth, 320), OverTime(f, lat).Size(DefaultWidth, 320))
}

// CDF draws a distribution frame (percentile 0–100, latency_ms, label
// columns) as cumulative distributions: latency on x, percentile on y, one
// line per strategy. Chain LogX for latencies that span decades.
func CDF(f *frame.Frame) *Chart {
	return lines("charts.CDF", "Latency distribution (CDF)", f, "latency_ms", "percentile")
}

// Sweep draws metric y against a swept setting x (e.g. "concurrency",
// "rate"), one line per strategy.
func Sweep(f *frame.Frame, x, y string) *Chart {
	title := fmt.Sprintf("%s vs %s", y, x)
	if y == "rps" {
		title = "Throughput vs " + x
	}
	return lines("charts.Sweep", title, f, x, y)
}

// SourceVsMeasured sets a source table (the figures a source document
// reports, as a frame with a strategy column) beside measured results, for
// one metric present in both: per strategy a light bar (source) next to a
// solid bar (measured), in the strategy's colour. Rows match on the
// strategy column when each frame names every strategy once (other label
// columns only describe the rows), else on every varying label column.
func SourceVsMeasured(source, measured *frame.Frame, metric string) *Chart {
	const view = "charts.SourceVsMeasured"
	title := "Source vs measured: " + axisName(metric)
	if p := check(view+" (source)", source, metric); p != "" {
		return problemChart(title, p)
	}
	if p := check(view+" (measured)", measured, metric); p != "" {
		return problemChart(title, p)
	}
	// Rows match on the strategy when both frames name each strategy once;
	// other label columns (a "rows: shuffled" note, a client name) then only
	// describe them. A repeated strategy (two loads, a sweep) keeps every
	// varying label in its key, so no row is dropped.
	sk, mk := rowKeys(source), rowKeys(measured)
	if isLabel(source, "strategy") && isLabel(measured, "strategy") &&
		len(source.Unique("strategy")) == source.Len() && len(measured.Unique("strategy")) == measured.Len() {
		sk, mk = source.Texts("strategy"), measured.Texts("strategy")
	}
	var cats []string
	seen := map[string]bool{}
	for _, k := range append(append([]string(nil), sk...), mk...) {
		if !seen[k] {
			seen[k] = true
			cats = append(cats, k)
		}
	}
	pick := func(f *frame.Frame, keys []string) []float64 {
		out := make([]float64, len(cats))
		for i := range out {
			out[i] = math.NaN()
		}
		for i, k := range keys {
			for j, cat := range cats {
				if cat == k && math.IsNaN(out[j]) {
					out[j] = f.Float(metric, i)
				}
			}
		}
		return out
	}
	var colors []string
	for _, k := range cats {
		colors = append(colors, ColorOf(k))
	}
	c := newChart(title)
	c.subtitle = "light: source document · solid: measured here"
	c.kind = barKind
	c.categories = cats
	c.yName = axisName(metric)
	src, meas := pick(source, sk), pick(measured, mk)
	c.series = []series{
		{name: "source", color: "#c7c7c7", opacity: 0.45, ys: src, itemColors: colors, absentOK: true},
		{name: "measured", color: "#555555", ys: meas, itemColors: colors, absentOK: true},
	}
	for _, side := range []struct {
		name string
		ys   []float64
	}{{"source", src}, {"measured", meas}} {
		var gaps []string
		for i, y := range side.ys {
			if math.IsNaN(y) {
				gaps = append(gaps, cats[i])
			}
		}
		if len(gaps) > 0 {
			c.notes = append(c.notes, fmt.Sprintf("no %s figure for %s", side.name, strings.Join(gaps, ", ")))
		}
	}
	return c
}

// ModelVsReal charts an agreement frame (lab.Agreement's Frame: columns
// strategy, metric, model, real, agree, optionally ordering, verdict, and
// load when runs differ in load) for one metric: per strategy a light bar
// (the model's prediction) next to a solid bar (real CPython, same machine,
// same run), in the strategy's colour. The subtitle says how many rows
// agree within the tolerance (and how many in ordering only); each row that
// does not agree within it is named in a note under the chart, with its
// verdict when the frame has one.
func ModelVsReal(agreement *frame.Frame, metric string) *Chart {
	const view = "charts.ModelVsReal"
	title := "Model vs real CPython: " + axisName(metric)
	if p := check(view, agreement, "model", "real"); p != "" {
		return problemChart(title, p)
	}
	for _, col := range []string{"strategy", "metric"} {
		if k, ok := agreement.KindOf(col); !ok || k != frame.Label {
			return problemChart(title, fmt.Sprintf("%s: frame %q has no label column %q (is it an agreement frame?)", view, agreement.Name, col))
		}
	}
	rows := agreement.Where("metric", metric)
	if rows.Len() == 0 {
		return problemChart(title, fmt.Sprintf("%s: frame %q has no rows for metric %q (have: %s)", view, agreement.Name, metric, strings.Join(agreement.Unique("metric"), ", ")))
	}
	byLoad := rows.Has("load") && len(rows.Unique("load")) > 1
	var cats, colors []string
	var model, real []float64
	agree, ordering, n := 0, 0, rows.Len()
	c := newChart(title)
	for i := 0; i < n; i++ {
		name := rows.Text("strategy", i)
		cat := name
		if byLoad {
			cat += " · " + rows.Text("load", i)
		}
		cats = append(cats, cat)
		colors = append(colors, ColorOf(name))
		model = append(model, rows.Float("model", i))
		real = append(real, rows.Float("real", i))
		if rows.Has("agree") && rows.Float("agree", i) == 1 {
			agree++
		} else if rows.Has("agree") {
			if rows.Has("ordering") && rows.Float("ordering", i) == 1 {
				ordering++
			}
			why := "outside the tolerance"
			if rows.Has("verdict") {
				why = rows.Text("verdict", i)
			}
			c.notes = append(c.notes, fmt.Sprintf("%s: model %s, real %s — %s", cat, frame.FormatNumber(rows.Float("model", i)), frame.FormatNumber(rows.Float("real", i)), why))
		}
	}
	c.subtitle = "light: model · solid: real CPython"
	if rows.Has("agree") {
		c.subtitle += fmt.Sprintf(" · %d of %d agree", agree, n)
		if rows.Has("ordering") {
			c.subtitle += fmt.Sprintf(", %d in ordering only", ordering)
		}
	}
	c.kind = barKind
	c.categories = cats
	c.yName = axisName(metric)
	c.series = []series{
		{name: "model", color: "#c7c7c7", opacity: 0.45, ys: model, itemColors: colors},
		{name: "real CPython", color: "#555555", ys: real, itemColors: colors},
	}
	return c
}

// BreakdownColumns are the server-side time components Breakdown stacks, in
// order.
var BreakdownColumns = []string{"queue_wait_ms", "gil_wait_ms", "service_ms"}

// Breakdown stacks the server-side time per request of a summary frame —
// queue_wait_ms, gil_wait_ms, service_ms, those present — one bar per
// strategy.
func Breakdown(f *frame.Frame) *Chart {
	const view = "charts.Breakdown"
	title := "Where the time goes (server side)"
	if p := check(view, f); p != "" {
		return problemChart(title, p)
	}
	var cols []string
	for _, col := range BreakdownColumns {
		if k, ok := f.KindOf(col); ok && k == frame.Number {
			cols = append(cols, col)
		}
	}
	if len(cols) == 0 {
		return problemChart(title, fmt.Sprintf("%s: frame %q has none of the columns %s (have: %s)",
			view, f.Name, strings.Join(BreakdownColumns, ", "), strings.Join(f.Columns(), ", ")))
	}
	c := newChart(title)
	c.kind = barKind
	c.categories = uniqueKeys(rowKeys(f))
	c.yName = "time per request (ms)"
	for _, col := range cols {
		c.series = append(c.series, series{name: strings.TrimSuffix(col, "_ms"), color: componentColors[col], stack: "time", ys: f.Floats(col)})
	}
	return c
}
