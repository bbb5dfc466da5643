package charts

import (
	"fmt"
	"math"
	"strings"

	"github.com/conclab/conclab/bench/frame"
)

// RealPrefix starts the strategy of a real CPython row in a result frame
// ("real /sync-sleep"); Beside draws such a row in its model's group, as
// the series "real CPython". It is bench/cpython's RealPrefix (charts does
// not import bench/cpython).
const RealPrefix = "real "

// Framer is what Beside accepts besides a frame: a value that becomes a
// frame for the chart's metric, such as lab.Guess's learner's guess.
type Framer interface {
	FrameFor(metric string) *frame.Frame
}

// Beside is a lesson's comparison chart for one metric: one bar group per
// row (per strategy, "real X" drawn in X's group) and in each group one
// bar per side — the source's table, the estimate, this machine's
// measurement (model and real CPython apart), the learner's guess — in
// the order given. A side is a *frame.Frame or a Framer (lab.Guess).
//
// Each side's series is named by its role, read from the frame: a frame
// with an "errors" column is a run's summary ("measured", or "model" and
// "real CPython" when it holds real rows), a frame named "… estimated …"
// is "estimate", a Framer's frame is named by itself ("your guess"), any
// other frame by its name up to the first ':' ("source 001"). Two sides
// with one role are told apart by their frame names ("measured (png)"),
// or by number when those are the same ("measured #2").
//
// Rows match on the strategy column when each side names every strategy
// once; else on every varying label column (as SourceVsMeasured). A side
// without the metric, a nil side, or a row a side lacks is a note under
// the chart, not an error; a chart where no side has the metric draws the
// problem instead.
func Beside(metric string, sides ...any) *Chart {
	const view = "charts.Beside"
	title := "Beside: " + axisName(metric)
	if metric == "" {
		return problemChart(title, view+": no metric (a number column such as \"elapsed_s\")")
	}
	type part struct {
		role string
		f    *frame.Frame
		rows []int // f's rows drawn, keys[i] naming rows[i]
		keys []string
	}
	var parts []part
	var notes []string
	for i, s := range sides {
		var f *frame.Frame
		framer := false
		switch v := s.(type) {
		case *frame.Frame:
			f = v
		case Framer:
			if v != nil {
				f, framer = v.FrameFor(metric), true
			}
		case nil:
		default:
			return problemChart(title, fmt.Sprintf("%s: side %d is a %T; want a *frame.Frame or a Framer such as lab.Guess", view, i+1, s))
		}
		if f == nil {
			notes = append(notes, fmt.Sprintf("side %d is nil (did its cell fail?)", i+1))
			continue
		}
		if k, ok := f.KindOf(metric); !ok || k != frame.Number {
			if framer {
				notes = append(notes, fmt.Sprintf("%s: nothing to show for %s", orDefault(f.Name, "your guess"), metric))
			} else {
				notes = append(notes, fmt.Sprintf("%s has no number column %q", orDefault(f.Name, fmt.Sprintf("side %d", i+1)), metric))
			}
			continue
		}
		keys := besideKeys(f)
		all := make([]int, len(keys))
		for r := range all {
			all[r] = r
		}
		switch {
		case framer:
			parts = append(parts, part{orDefault(f.Name, "your guess"), f, all, keys})
		case f.Has("errors"):
			var model, real []int
			for r, k := range keys {
				if strings.HasPrefix(k, RealPrefix) {
					real = append(real, r)
				} else {
					model = append(model, r)
				}
			}
			if len(real) == 0 {
				parts = append(parts, part{"measured", f, all, keys})
				continue
			}
			strip := func(idx []int) []string {
				out := make([]string, len(idx))
				for j, r := range idx {
					out[j] = strings.TrimPrefix(keys[r], RealPrefix)
				}
				return out
			}
			if len(model) > 0 {
				parts = append(parts, part{"model", f, model, strip(model)})
			}
			parts = append(parts, part{"real CPython", f, real, strip(real)})
		case strings.Contains(strings.ToLower(f.Name), "estimat"):
			parts = append(parts, part{"estimate", f, all, keys})
		default:
			name, _, _ := strings.Cut(f.Name, ":")
			parts = append(parts, part{orDefault(strings.TrimSpace(name), fmt.Sprintf("side %d", i+1)), f, all, keys})
		}
	}
	if len(parts) == 0 {
		msg := view + ": no side has a number column " + fmt.Sprintf("%q", metric)
		if len(notes) > 0 {
			msg += " (" + strings.Join(notes, "; ") + ")"
		}
		return problemChart(title, msg)
	}
	// Two sides with one role: tell them apart by their frames' names.
	// Two sides with one role: tell them apart by their frames' names
	// when those differ, else by number.
	count, named := map[string]int{}, map[string]int{}
	for _, p := range parts {
		count[p.role]++
		named[p.role+"\x00"+p.f.Name]++
	}
	seen := map[string]int{}
	for i := range parts {
		role := parts[i].role
		if count[role] < 2 {
			continue
		}
		seen[role]++
		if parts[i].f.Name != "" && named[role+"\x00"+parts[i].f.Name] == 1 {
			parts[i].role += " (" + parts[i].f.Name + ")"
		} else {
			parts[i].role += fmt.Sprintf(" #%d", seen[role])
		}
	}
	var cats []string
	has := map[string]bool{}
	for _, p := range parts {
		for _, k := range p.keys {
			if !has[k] {
				has[k] = true
				cats = append(cats, k)
			}
		}
	}
	c := newChart(title)
	c.kind = barKind
	c.categories = cats
	c.yName = axisName(metric)
	var roles []string
	for _, p := range parts {
		ys := make([]float64, len(cats))
		for j := range ys {
			ys[j] = math.NaN()
		}
		for i, k := range p.keys {
			for j, cat := range cats {
				if cat == k && math.IsNaN(ys[j]) {
					ys[j] = p.f.Float(metric, p.rows[i])
				}
			}
		}
		var gaps []string
		for j, y := range ys {
			if math.IsNaN(y) {
				gaps = append(gaps, cats[j])
			}
		}
		if len(gaps) == len(cats) {
			notes = append(notes, fmt.Sprintf("%s: no figure yet", p.role))
		} else if len(gaps) > 0 {
			notes = append(notes, fmt.Sprintf("no %s figure for %s", p.role, strings.Join(gaps, ", ")))
		}
		s := series{name: p.role, color: roleColor(p.role), ys: ys, absentOK: true}
		if strings.HasPrefix(p.role, "source") {
			s.opacity = 0.6
		}
		c.series = append(c.series, s)
		roles = append(roles, p.role)
	}
	c.subtitle = "per row: " + strings.Join(roles, " · ")
	c.notes = notes
	return c
}

// besideKeys names f's rows: the strategy when f names each strategy once,
// else every varying label column joined (rowKeys).
func besideKeys(f *frame.Frame) []string {
	if isLabel(f, "strategy") && len(f.Unique("strategy")) == f.Len() {
		return f.Texts("strategy")
	}
	return rowKeys(f)
}

// roleColor is a side's colour: fixed for the usual roles, so the source,
// the estimate, the model, real CPython and the guess look the same in
// every lesson; other names take ColorOf's.
func roleColor(role string) string {
	base, _, _ := strings.Cut(role, " (")
	base, _, _ = strings.Cut(base, " #")
	switch {
	case strings.HasPrefix(base, "source"):
		return "#9c9c9c"
	case base == "estimate":
		return "#76b7b2"
	case base == "model":
		return "#4e79a7"
	case base == "real CPython":
		return "#e15759"
	case base == "measured":
		return "#2f4b7c"
	case base == "your guess":
		return "#edc948"
	}
	return ColorOf(role)
}
