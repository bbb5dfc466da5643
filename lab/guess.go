package lab

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/frame"
)

// Guessed is a learner's guess, one value per row (an endpoint, a
// strategy), drawn beside the measurement by charts.Beside. Make it with
// Guess; Per, In and Little derive the guess in another unit. A value of
// 0 is "not guessed yet" (a lesson's guess cell starts at 0): it is left
// out of the chart, which says so.
//
// A Guessed is a value; its methods return a new one.
type Guessed struct {
	values map[string]float64
	// unit is the values' time unit (0: not a time — waits, req/s, the
	// metric's own unit); rate marks throughputs derived by Little.
	unit time.Duration
	rate bool
	what string // how the values were derived, for the frame's name
}

// Guess is the learner's guess, values per row in the unit of the metric
// it is charted against: charts.Beside("elapsed_s", …, lab.Guess(g)) reads
// g as seconds, Beside("waits", …) as waits. Per, In and Little convert.
func Guess(values map[string]float64) Guessed {
	v := make(map[string]float64, len(values))
	for k, x := range values {
		v[k] = x
	}
	return Guessed{values: v}
}

// In says the values are times counted in unit (time.Second,
// time.Millisecond): the guess is then charted against a metric in
// seconds (…_s) or milliseconds (…_ms) converted to it, and Per and
// Little read it in that unit.
func (g Guessed) In(unit time.Duration) Guessed {
	g.unit = unit
	return g
}

// Per turns a guess of times (seconds, or In's unit) into multiples of
// unit: a batch time into waits, guess.Per(wait).
func (g Guessed) Per(unit time.Duration) Guessed {
	out := g.derive(fmt.Sprintf("per %v", unit), func(x float64) float64 {
		if unit <= 0 {
			return math.NaN()
		}
		return x * g.seconds() / unit.Seconds()
	})
	out.unit = 0
	return out
}

// Little turns a guess of response times R (seconds, or In's unit) into
// throughputs by Little's law for a closed load of n users who each pause
// think between an answer and their next request: X = n / (R + think),
// requests per second.
func (g Guessed) Little(n int, think time.Duration) Guessed {
	out := g.derive(fmt.Sprintf("by Little's law, %d users, think %v", n, think), func(r float64) float64 {
		d := r*g.seconds() + think.Seconds()
		if n <= 0 || d <= 0 {
			return math.NaN()
		}
		return float64(n) / d
	})
	out.unit, out.rate = 0, true
	return out
}

// seconds is one value's length in seconds: In's unit, or a second.
func (g Guessed) seconds() float64 {
	if g.unit > 0 {
		return g.unit.Seconds()
	}
	return 1
}

func (g Guessed) derive(what string, fn func(float64) float64) Guessed {
	v := make(map[string]float64, len(g.values))
	for k, x := range g.values {
		if x == 0 {
			v[k] = 0
			continue
		}
		v[k] = fn(x)
	}
	w := what
	if g.what != "" {
		w = g.what + ", " + what
	}
	return Guessed{values: v, unit: g.unit, rate: g.rate, what: w}
}

// Value is the guess for a row, and whether one was made (not 0, not
// missing).
func (g Guessed) Value(row string) (float64, bool) {
	x, ok := g.values[row]
	return x, ok && x != 0 && !math.IsNaN(x)
}

// Rows are the guessed rows (values not 0), sorted.
func (g Guessed) Rows() []string {
	var out []string
	for k := range g.values {
		if _, ok := g.Value(k); ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// FrameFor is the guess as a frame named "your guess" with columns
// strategy and metric, one row per guessed row (values not 0, sorted by
// row), for charts.Beside. A guess In a time unit is converted to a metric
// in seconds (…_s) or milliseconds (…_ms).
func (g Guessed) FrameFor(metric string) *frame.Frame {
	scale := 1.0
	if g.unit > 0 {
		switch {
		case strings.HasSuffix(metric, "_ms"):
			scale = g.unit.Seconds() * 1000
		case strings.HasSuffix(metric, "_s"):
			scale = g.unit.Seconds()
		}
	}
	f := frame.Of("your guess", "strategy", metric)
	for _, k := range g.Rows() {
		f.MustAppend(frame.Row{"strategy": k, metric: g.values[k] * scale})
	}
	return f
}

// String is the guess in one line: its rows and values, and how it was
// derived.
func (g Guessed) String() string {
	rows := g.Rows()
	if len(rows) == 0 {
		return "your guess: none yet (fill in the guess cell)"
	}
	parts := make([]string, len(rows))
	for i, k := range rows {
		parts[i] = fmt.Sprintf("%s %s", k, frame.FormatNumber(g.values[k]))
	}
	s := "your guess: " + strings.Join(parts, ", ")
	if g.what != "" {
		s += " (" + g.what + ")"
	}
	return s
}
