package load

import (
	"fmt"
	"math"
	"time"
)

// Open sends Rate requests per second for Duration whatever the responses
// do (k6's constant-arrival-rate), evenly spaced or, with Poisson, with
// exponential gaps (Seed makes them reproducible). Pacer, when set,
// replaces Rate, Duration, Poisson and Seed with any schedule (a Pacer
// that is also a Planner says how long it runs). For a rate that changes
// over the run, see RampingRate.
//
// Latency is measured from each request's intended start (coordinated
// omission corrected); the latency from the actual send is kept beside it
// (Result.Uncorrected).
//
// At most MaxInFlight requests run at once, each on its own connection
// (0: DefaultMaxInFlight). An arrival finding all of them busy waits for
// one (wrk2's behaviour: the send is late, and the corrected latency,
// measured from when it was due, includes the wait), or with DropWhenBusy
// is dropped and counted (k6's dropped_iterations). At the planned end no
// new request starts: arrivals still waiting then, and any others due
// before the end, are counted as dropped, so a rate the target cannot
// reach ends on time. Rate is at most MaxRate.
type Open struct {
	Rate         float64
	Duration     time.Duration
	Poisson      bool
	Seed         int64
	Pacer        Pacer
	MaxInFlight  int
	DropWhenBusy bool
}

// Schedule is the Pacer the model runs: Pacer when set, else Rate's, with
// Poisson or evenly spaced arrivals.
func (m Open) Schedule() Pacer {
	switch {
	case m.Pacer != nil:
		return m.Pacer
	case m.Poisson:
		return NewPoissonPacer(m.Rate, m.Duration, m.Seed)
	}
	return ConstantPacer{PerSecond: m.Rate, Duration: m.Duration}
}

func (m Open) String() string {
	switch {
	case m.Pacer != nil:
		switch p := m.Pacer.(type) {
		case ConstantPacer:
			return fmt.Sprintf("open %g/s %v", p.PerSecond, p.Duration)
		case *PoissonPacer:
			return fmt.Sprintf("open poisson %g/s %v", p.rate, p.duration)
		case StagesPacer:
			return RampingRate{Start: p.Start, Stages: p.Stages}.String()
		case fmt.Stringer:
			return "open " + p.String()
		}
		return fmt.Sprintf("open %T", m.Pacer)
	case m.Poisson:
		return fmt.Sprintf("open poisson %g/s %v", m.Rate, m.Duration)
	}
	return fmt.Sprintf("open %g/s %v", m.Rate, m.Duration)
}

// Validate implements Model.
func (m Open) Validate() error {
	if err := validateInFlight("Open", m.MaxInFlight); err != nil {
		return err
	}
	if m.Pacer != nil {
		return nil
	}
	switch {
	case m.Rate <= 0 || math.IsNaN(m.Rate) || math.IsInf(m.Rate, 0):
		return fmt.Errorf("load: Open.Rate must be a positive number, got %v", m.Rate)
	case m.Rate > MaxRate:
		return fmt.Errorf("load: Open.Rate %g/s is above load.MaxRate (%g/s), more than one process can send; split the load over agents (bench/load/split, conclab load --segment i/N)", m.Rate, float64(MaxRate))
	case m.Duration <= 0:
		return fmt.Errorf("load: Open.Duration must be positive, got %v", m.Duration)
	}
	return nil
}

func validateInFlight(model string, n int) error {
	if n < 0 || n > MaxConcurrency {
		return fmt.Errorf("load: %s.MaxInFlight must be in 0..%d, got %d", model, MaxConcurrency, n)
	}
	return nil
}

func (m Open) outline() outline {
	sched := m.Schedule()
	p := outline{gauge: "target_rps", open: true, level: sched.Rate}
	if pl, ok := sched.(Planner); ok {
		p.duration, p.requests = pl.Plan()
	}
	return p
}

func (m Open) run(e *engine) {
	e.runArrivals(m.Schedule(), m.MaxInFlight, m.DropWhenBusy)
}
