package trace

import (
	"sort"
	"time"
)

// Filter returns the events of phase p (all phases if p is "").
func Filter(evs []Event, p Phase) []Event {
	var out []Event
	for _, e := range evs {
		if p == "" || e.Phase == p {
			out = append(out, e)
		}
	}
	return out
}

// PerRequest adds up the durations of the events of phase p by request:
// a CPU step under the GIL is traced as runs split where the GIL changed
// hands, and its request's total is the step's time. Requests with no
// event of phase p are absent.
func PerRequest(evs []Event, p Phase) map[int64]time.Duration {
	out := map[int64]time.Duration{}
	for _, e := range evs {
		if e.Phase == p {
			out[e.Request] += e.Duration()
		}
	}
	return out
}

// MaxOverlap is the largest number of the events of phase p open at one
// instant (an interval ending exactly when another starts does not overlap
// it). For Handler it is the most requests running at once; for GIL within
// one worker, more than 1 would mean two threads held the GIL at once.
func MaxOverlap(evs []Event, p Phase) int {
	type edge struct {
		t     int64
		delta int
	}
	var edges []edge
	for _, e := range evs {
		if e.Phase != p {
			continue
		}
		edges = append(edges, edge{e.Start, 1}, edge{e.End, -1})
	}
	// Ends before starts at the same instant.
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].t != edges[j].t {
			return edges[i].t < edges[j].t
		}
		return edges[i].delta < edges[j].delta
	})
	n, m := 0, 0
	for _, e := range edges {
		n += e.delta
		m = max(m, n)
	}
	return m
}

// MaxOverlapPerWorker is MaxOverlap of phase p within each worker process,
// the largest over the workers.
func MaxOverlapPerWorker(evs []Event, p Phase) int {
	by := map[int][]Event{}
	for _, e := range evs {
		if e.Phase == p {
			by[e.Worker] = append(by[e.Worker], e)
		}
	}
	m := 0
	for _, es := range by {
		m = max(m, MaxOverlap(es, p))
	}
	return m
}

// Waves groups the events of phase p, in order of start, into waves: a
// wave ends where an event starts at or after the end of one of the wave's
// events — it had to wait for one to finish (a pool's token, a thread, the
// loop) — and that event begins the next wave. It returns the number of
// events in each wave: a burst of 100 def requests through AnyIO's 40
// tokens gives [40 40 20]; /async-block's ten, ten waves of 1. The waves
// follow from what waited for what, not from gaps in the clock, so a
// loaded machine that staggers the starts does not change them.
func Waves(evs []Event, p Phase) []int {
	var es []Event
	for _, e := range evs {
		if e.Phase == p {
			es = append(es, e)
		}
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].Start < es[j].Start })
	var out []int
	var firstEnd int64
	for i, e := range es {
		if i == 0 || e.Start >= firstEnd {
			out = append(out, 0)
			firstEnd = e.End
		}
		out[len(out)-1]++
		firstEnd = min(firstEnd, e.End)
	}
	return out
}

// Renumber numbers requests 1, 2, ... in order of arrival (their first
// event) across every worker, so a prefork server's requests, numbered per
// process, get one sequence; process-level events (request 0) keep 0. It
// changes evs in place and returns the number of requests.
func Renumber(evs []Event) int {
	type key struct {
		w int
		r int64
	}
	first := map[key]int64{}
	for _, e := range evs {
		if e.Request == 0 {
			continue
		}
		k := key{e.Worker, e.Request}
		if s, ok := first[k]; !ok || e.Start < s {
			first[k] = e.Start
		}
	}
	keys := make([]key, 0, len(first))
	for k := range first {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if first[a] != first[b] {
			return first[a] < first[b]
		}
		if a.w != b.w {
			return a.w < b.w
		}
		return a.r < b.r
	})
	num := make(map[key]int64, len(keys))
	for i, k := range keys {
		num[k] = int64(i + 1)
	}
	for i, e := range evs {
		if e.Request != 0 {
			evs[i].Request = num[key{e.Worker, e.Request}]
		}
	}
	return len(keys)
}

// Within counts the events of phase inner that lie inside an event of
// phase outer of the same worker and request, and all events of phase
// inner: "the loop was blocked for the whole of each blocking step" is
// Within(evs, trace.IO, trace.LoopBlocked) with inside == total for the io
// steps on the loop.
func Within(evs []Event, inner, outer Phase) (inside, total int) {
	type key struct {
		w int
		r int64
	}
	outs := map[key][]Event{}
	for _, e := range evs {
		if e.Phase == outer {
			k := key{e.Worker, e.Request}
			outs[k] = append(outs[k], e)
		}
	}
	for _, e := range evs {
		if e.Phase != inner {
			continue
		}
		total++
		for _, o := range outs[key{e.Worker, e.Request}] {
			if o.Start <= e.Start && e.End <= o.End {
				inside++
				break
			}
		}
	}
	return inside, total
}
