package gonative

import (
	"sort"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/sources/shape"
)

// Checks are the shape of a Run's summary with these knobs (what the old
// notebook's check cell asserted, derived from the knobs): no request
// fails; each I/O strategy takes at least its waves of waits, one with
// fewer waves (by half) less time than one with more, and one of five
// waves or more at most 1.3 × its waves (each stretched by the requests' own time beyond the
// wait, service_ms ÷ Wait, more than 1 on a busy machine) plus the fixed
// cost of the no-wait burst plus one wait; under
// GOMAXPROCS=1 the burst takes at least 90 % of Burns × Burn and the burns
// took turns when each needed more than two time slices — the first burn
// ends after half the burst, not after one burn (Go preempts). The CPUs
// given and threads ready are shown, not judged: on a shared machine other
// processes take the cores.
func (k Knobs) Checks(r *Result) []shape.Check {
	var out []shape.Check
	est := map[string]float64{}
	for _, row := range k.Estimate().Rows() {
		est[row.Text("strategy")] = row.Float("waves")
	}
	fixed := r.Fixed.Summary.Float("elapsed_s", 0) / k.Wait.Seconds()
	for _, row := range r.Summary.Rows() {
		name := row.Text("strategy")
		out = append(out, shape.Equal(name+": errors", row.Float("errors"), 0),
			shape.Equal(name+": count", row.Float("count"), map[bool]float64{true: float64(k.N), false: float64(k.Burns)}[row.Text("workload") == "io"]))
		if row.Text("workload") == "io" {
			if est[name] < 5 {
				// One or a few waves: the burst's own dispatch, which a
				// crowded machine stretches, outweighs the waits; the
				// ordering below judges it.
				out = append(out, shape.AtLeast(name+": waits", row.Float("waits"), est[name]))
				continue
			}
			// A request's own time beyond its wait (service_ms over the
			// wait: 1 on a quiet machine, 1.3 under a load average of 12)
			// comes on top of every wave.
			stretch := max(1, row.Float("service_ms")/(k.Wait.Seconds()*1000))
			out = append(out, shape.Between(name+": waits", row.Float("waits"), est[name], 1.3*stretch*est[name]+fixed+1))
			continue
		}
		p := int(row.Float("gomaxprocs"))
		total := float64(k.Burns) * float64(k.Burn) / 1e6
		if p == 1 {
			out = append(out, shape.AtLeast(name+": elapsed ≥ 0.9 × burns × burn", row.Float("elapsed_s")*1000, 0.9*total))
			if k.Burn > 2*Preempt && k.Burns >= 4 {
				out = append(out, shape.AtLeast(name+": first burn done after half the burst (turns)", row.Float("first_ms"), total/2),
					shape.AtLeast(name+": slices per burn (turns)", row.Float("slices"), 2))
			}
		}
	}
	// Fewer waves, less time: the I/O strategies in the estimate's order of
	// waves, where it doubles from one to the next.
	var io []frame.Row
	for _, row := range r.Summary.Rows() {
		if row.Text("workload") == "io" {
			io = append(io, row)
		}
	}
	sort.SliceStable(io, func(i, j int) bool { return est[io[i].Text("strategy")] < est[io[j].Text("strategy")] })
	for i := 1; i < len(io); i++ {
		a, b := io[i-1].Text("strategy"), io[i].Text("strategy")
		if est[b] >= 2*est[a] {
			out = append(out, shape.Less(a+" faster than "+b, io[i-1].Float("elapsed_s"), io[i].Float("elapsed_s")))
		}
	}
	return out
}
