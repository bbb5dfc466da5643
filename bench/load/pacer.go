package load

import (
	"math"
	"math/rand"
	"time"
)

// A Pacer decides when the open model sends. It is clock-free: given the
// time elapsed since the run started and the number of hits already sent,
// Pace returns how long from elapsed until the next hit is due (negative
// when it is overdue) or stop=true when no more hits are due. Rate reports
// the intended rate (hits/s) at elapsed, for the series.
//
// The generator calls Pace from one goroutine with non-decreasing
// arguments; the intended start of hit number hits is elapsed+wait, which
// is what the latency of that request is measured from. Rate labels the
// series' intervals and is called from another goroutine, concurrently
// with Pace: it must be a function of elapsed only, safe for concurrent
// use (every pacer here is).
type Pacer interface {
	Pace(elapsed time.Duration, hits int64) (wait time.Duration, stop bool)
	Rate(elapsed time.Duration) float64
}

// A Planner is a Pacer that knows its plan: how long it runs and how many
// hits it schedules in all (0: unknown). An Open model whose Pacer is a
// Planner lasts Duration (so its rps is over the planned duration) and
// checks the hits against Options.MaxRequests before it starts.
type Planner interface {
	Plan() (duration time.Duration, hits int64)
}

// Compile-time checks.
var (
	_ Pacer   = ConstantPacer{}
	_ Pacer   = (*PoissonPacer)(nil)
	_ Pacer   = StagesPacer{}
	_ Planner = ConstantPacer{}
	_ Planner = (*PoissonPacer)(nil)
	_ Planner = StagesPacer{}
)

// countHits is the number of hits p schedules before it stops: the least
// n whose Pace says stop (Pace's stop depends on hits only, and once it
// stops it stays stopped). It takes O(log n) calls to Pace; a pacer that
// has not stopped by 2⁶² hits counts as 0 (unknown).
func countHits(p Pacer) int64 {
	stop := func(n int64) bool { _, s := p.Pace(0, n); return s }
	hi := int64(1)
	for !stop(hi) {
		if hi > 1<<61 {
			return 0
		}
		hi *= 2
	}
	lo := int64(0) // stop(hi) holds; find the least such n in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo)/2
		if stop(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// ConstantPacer sends PerSecond hits per second, evenly spaced, hit n due
// at n/PerSecond. A zero Duration never stops (the run's own bounds stop it).
type ConstantPacer struct {
	PerSecond float64
	Duration  time.Duration
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Pace implements Pacer.
func (p ConstantPacer) Pace(elapsed time.Duration, hits int64) (time.Duration, bool) {
	if p.PerSecond <= 0 {
		return 0, true
	}
	due := secs(float64(hits) / p.PerSecond)
	if p.Duration > 0 && due >= p.Duration {
		return 0, true
	}
	return due - elapsed, false
}

// Rate implements Pacer.
func (p ConstantPacer) Rate(time.Duration) float64 { return p.PerSecond }

// Plan implements Planner: hits n/PerSecond before Duration (0 hits
// planned, unknown, without a Duration).
func (p ConstantPacer) Plan() (time.Duration, int64) {
	if p.Duration <= 0 {
		return 0, 0
	}
	return p.Duration, countHits(p)
}

// PoissonPacer sends at an average rate with exponentially distributed
// gaps (a Poisson process), as independent users would arrive. It keeps
// state, so it must not be shared by runs going on at the same time; a run
// that starts again from hit 0 replays the same arrivals.
type PoissonPacer struct {
	rate     float64
	duration time.Duration
	seed     int64
	rng      *rand.Rand
	hits     int64   // hits for which next is computed
	next     float64 // due time of hit number hits, in seconds
}

// NewPoissonPacer returns a Poisson pacer; the same seed gives the same
// arrival times. A zero duration never stops.
func NewPoissonPacer(rate float64, duration time.Duration, seed int64) *PoissonPacer {
	return &PoissonPacer{rate: rate, duration: duration, seed: seed, rng: rand.New(rand.NewSource(seed))}
}

// Pace implements Pacer. Hit 0 is due at 0.
func (p *PoissonPacer) Pace(elapsed time.Duration, hits int64) (time.Duration, bool) {
	if p.rate <= 0 {
		return 0, true
	}
	if hits < p.hits { // a new run: replay from the start
		p.rng, p.hits, p.next = rand.New(rand.NewSource(p.seed)), 0, 0
	}
	for p.hits < hits {
		p.next += p.rng.ExpFloat64() / p.rate
		p.hits++
	}
	due := secs(p.next)
	if p.duration > 0 && due >= p.duration {
		return 0, true
	}
	return due - elapsed, false
}

// Rate implements Pacer: the mean rate.
func (p *PoissonPacer) Rate(time.Duration) float64 { return p.rate }

// Plan implements Planner: the duration; the number of hits is a draw, so
// it is not planned (0).
func (p *PoissonPacer) Plan() (time.Duration, int64) { return p.duration, 0 }

// StagesPacer ramps the rate linearly through Stages, starting at Start
// hits/s (k6's ramping-arrival-rate). Hit n is due when the integral of
// the rate reaches n. It stops at the end of the last stage.
type StagesPacer struct {
	Start  float64
	Stages []Stage
}

// Pace implements Pacer.
func (p StagesPacer) Pace(elapsed time.Duration, hits int64) (time.Duration, bool) {
	k := float64(hits) // hits due before the next one
	var offset time.Duration
	from := p.Start
	for _, s := range p.Stages {
		d := s.Duration.Seconds()
		inStage := (from + s.Target) / 2 * d
		if k < inStage || (k == 0 && inStage > 0) {
			// Solve from*t + (to-from)/(2d)*t² = k for the first t ≥ 0.
			a := (s.Target - from) / (2 * d)
			disc := from*from + 4*a*k
			den := from + math.Sqrt(math.Max(disc, 0))
			var t float64
			if den > 0 {
				t = 2 * k / den
			}
			return offset + secs(t) - elapsed, false
		}
		k -= inStage
		offset += s.Duration
		from = s.Target
	}
	return 0, true
}

// Rate implements Pacer.
func (p StagesPacer) Rate(elapsed time.Duration) float64 {
	r, _ := levelAt(p.Start, p.Stages, elapsed)
	return r
}

// Plan implements Planner: the stages' total and the hits due before it.
func (p StagesPacer) Plan() (time.Duration, int64) {
	return stagesDuration(p.Stages), countHits(p)
}
