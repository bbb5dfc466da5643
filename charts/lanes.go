package charts

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/trace"
)

// DefaultLanes is the most thread lanes Lanes draws; beyond it the lanes
// that were busiest are kept, and the chart says so.
const DefaultLanes = 48

// laneBand is where a phase sits in a lane: a blocked loop on top, what
// the thread waits on in the middle, its GIL state at the bottom.
func laneBand(p string) int {
	switch p {
	case trace.GIL, trace.GILWait:
		return 3
	case trace.LoopBlocked:
		return 1
	}
	return 2
}

// Lanes draws a trace frame's per-process picture: one lane per worker
// thread (strategy · worker · thread), its bottom third the GIL — held
// (gil) or waited for (gil_wait) —, its top third the event loop running a
// callback (loop_blocked: nothing else can run on the loop), and between
// them what else the thread does without the GIL: C work (cpu_nogil), an
// I/O wait, a process-pool call, a prefork worker's accept. Only one lane of a process can be orange at a time: that is the
// GIL. Beyond DefaultLanes lanes the busiest are drawn, and the chart says
// so; intervals closer together than a pixel are merged.
func Lanes(f *frame.Frame) *IntervalChart {
	const view = "charts.Lanes"
	title := "Thread lanes: the GIL and the event loop"
	if p := checkTrace(view, f); p != "" {
		return intervalProblem(title, p)
	}
	drawn := map[string]bool{}
	for _, p := range trace.LanePhases {
		drawn[p] = true
	}
	var ivs []interval
	for _, iv := range readIntervals(f) {
		if drawn[iv.phase] {
			ivs = append(ivs, iv)
		}
	}
	if len(ivs) == 0 {
		return intervalProblem(title, fmt.Sprintf("%s: frame %q has no lane phases (%s) to draw: Go-native servers have no GIL or loop", view, f.Name, strings.Join(trace.LanePhases, ", ")))
	}
	strategies := strategiesOf(ivs)
	type lkey struct {
		s      string
		worker int
		thread string
	}
	busy := map[lkey]float64{}
	for _, iv := range ivs {
		busy[lkey{iv.strategy, iv.worker, iv.thread}] += iv.end - iv.start
	}
	keys := make([]lkey, 0, len(busy))
	for k := range busy {
		keys = append(keys, k)
	}
	c := newIntervalChart(title)
	c.yName = "thread"
	if len(keys) > DefaultLanes {
		sort.Slice(keys, func(i, j int) bool {
			a, b := keys[i], keys[j]
			if busy[a] != busy[b] {
				return busy[a] > busy[b]
			}
			// Equally busy lanes: the same choice on every run.
			if a.s != b.s {
				return a.s < b.s
			}
			if a.worker != b.worker {
				return a.worker < b.worker
			}
			return laneLess(a.thread, b.thread)
		})
		c.notes = append(c.notes, fmt.Sprintf("Showing the %d busiest of %d thread lanes.", DefaultLanes, len(keys)))
		c.subtitle = fmt.Sprintf("the %d busiest of %d thread lanes", DefaultLanes, len(keys))
		keys = keys[:DefaultLanes]
	}
	sIndex := map[string]int{}
	for i, s := range strategies {
		sIndex[s] = i
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.s != b.s {
			return sIndex[a.s] < sIndex[b.s]
		}
		if a.worker != b.worker {
			return a.worker < b.worker
		}
		return laneLess(a.thread, b.thread)
	})
	rowOf := map[lkey]int{}
	for _, k := range keys {
		rowOf[k] = len(c.rows)
		var parts []string
		if len(strategies) > 1 {
			parts = append(parts, orDefault(k.s, "result"))
		}
		if k.worker > 0 {
			parts = append(parts, fmt.Sprintf("w%d", k.worker))
		}
		parts = append(parts, k.thread)
		c.rows = append(c.rows, strings.Join(parts, " · "))
	}
	for _, iv := range ivs {
		row, ok := rowOf[lkey{iv.strategy, iv.worker, iv.thread}]
		if !ok {
			continue
		}
		c.xMax = math.Max(c.xMax, iv.end)
		label := c.rows[row]
		c.bars = append(c.bars, bar{row: row, start: iv.start, end: iv.end, phase: iv.phase, req: iv.req, label: label, band: laneBand(iv.phase)})
	}
	var merged int
	c.bars, merged = mergeBars(c.bars, c.xMax/900)
	c.phases = orderPhases(c.bars, trace.LanePhases)
	if c.subtitle == "" {
		c.subtitle = "per thread: top, the loop blocked by a callback; middle, I/O, C work, pool; bottom, the GIL held or waited for"
	}
	if merged > 0 {
		c.notes = append(c.notes, fmt.Sprintf("%d intervals closer than a pixel merged into their neighbours.", merged))
	}
	c.height = rowHeight(len(c.rows), 100)
	return c
}

// laneLess orders lanes: the loop first, then by name with numbers in
// numeric order ("anyio-2" before "anyio-10").
func laneLess(a, b string) bool {
	if (a == "loop") != (b == "loop") {
		return a == "loop"
	}
	pa, na := splitNum(a)
	pb, nb := splitNum(b)
	if pa != pb {
		return pa < pb
	}
	return na < nb
}

func splitNum(s string) (string, int) {
	i := strings.LastIndexByte(s, '-')
	if i < 0 {
		return s, 0
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return s, 0
	}
	return s[:i], n
}
