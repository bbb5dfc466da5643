package lab

import (
	"fmt"
	"regexp"
	"strconv"
)

// slowCallback is a model event loop's imitation of asyncio's debug-mode
// log line, as bench prefixes it with the strategy: "WHO: Executing <Task
// LABEL> took S seconds".
var slowCallback = regexp.MustCompile(`^(.*): Executing <Task .*> took ([0-9.]+) seconds$`)

// foldWarnings folds a run's slow-callback lines into one line per
// strategy (how many, the longest), in the order the strategies first
// warned, and keeps every other warning as it is: a try-it re-runs often,
// and a line per blocked callback buries the warnings that matter.
func foldWarnings(ws []string) []string {
	type slow struct {
		n       int
		longest float64
		at      int // index in out
	}
	var out []string
	by := map[string]*slow{}
	for _, w := range ws {
		m := slowCallback.FindStringSubmatch(w)
		if m == nil {
			out = append(out, w)
			continue
		}
		s, ok := by[m[1]]
		if !ok {
			s = &slow{at: len(out)}
			by[m[1]] = s
			out = append(out, "")
		}
		s.n++
		if d, err := strconv.ParseFloat(m[2], 64); err == nil && d > s.longest {
			s.longest = d
		}
	}
	for who, s := range by {
		out[s.at] = fmt.Sprintf("%s: %s held the event loop (the longest %.3f s); asyncio's debug mode logs each as \"Executing <Task …> took … seconds\"",
			who, callbacks(s.n), s.longest)
	}
	return out
}

func callbacks(n int) string {
	if n == 1 {
		return "1 slow callback"
	}
	return strconv.Itoa(n) + " slow callbacks"
}
