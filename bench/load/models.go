package load

// The load models: what arrives when. Burst (N at once), Sequential (one
// after another), Closed (k6's constant VUs with think time, and ramps) and
// Open (a constant arrival rate, coordinated omission corrected, and
// stages). Their run methods, driving the engine, are in load.go.

import (
	"fmt"
	"math"
	"time"
)

// Model is a load model: Burst, Sequential, Closed or Open. Its String is
// the default "load" label.
type Model interface {
	String() string
	validate() error
	// plan returns the planned duration (0: bounded by counts) and the
	// planned request count (0: unknown).
	plan() (time.Duration, int64)
	run(e *engine)
}

// Burst sends N requests at once, each on its own new connection; the
// headline figure is the elapsed time of the whole burst.
type Burst struct{ N int }

// Sequential sends N requests one after another on one connection.
type Sequential struct{ N int }

// Closed runs VUs virtual users, each sending a request, waiting for the
// response, then thinking for Think before the next (k6's constant-vus).
// It stops after Duration, or after Iterations requests per VU when
// Iterations > 0 (k6's per-vu-iterations), or after Total requests across
// all VUs when Total > 0 (hey's -n), whichever comes first; at least one of
// the three must be set. With Stages the number of active VUs ramps from
// VUs through each stage's Target (k6's ramping-vus) and Duration is the
// stages' total.
type Closed struct {
	VUs        int
	Duration   time.Duration
	Iterations int
	Total      int
	Think      time.Duration
	Stages     []Stage
}

// Open sends Rate requests per second for Duration whatever the responses
// do (k6's constant-arrival-rate), evenly spaced or, with Poisson, with
// exponential gaps (Seed makes them reproducible). With Stages the rate
// ramps from Rate through each stage's Target and Duration is the stages'
// total. Pacer, when set, replaces all of that.
//
// At most MaxInFlight requests run at once, each on its own connection
// (0: DefaultMaxInFlight). An arrival finding all of them busy waits for
// one (wrk2's behaviour: the send is late, and the corrected latency,
// measured from when it was due, includes the wait), or with DropWhenBusy
// is dropped and counted (k6's dropped_iterations). At the planned end no
// new request starts: arrivals still waiting then, and any others due
// before the end, are counted as dropped, so a rate the target cannot
// reach ends on time. Rate and stage targets are at most MaxRate.
type Open struct {
	Rate         float64
	Duration     time.Duration
	Poisson      bool
	Seed         int64
	Stages       []Stage
	Pacer        Pacer
	MaxInFlight  int
	DropWhenBusy bool
}

func (m Burst) String() string      { return fmt.Sprintf("burst %d", m.N) }
func (m Sequential) String() string { return fmt.Sprintf("sequential %d", m.N) }

func (m Closed) String() string {
	var s string
	if len(m.Stages) > 0 {
		s = fmt.Sprintf("ramping VUs %d", m.VUs)
		for _, st := range m.Stages {
			s += fmt.Sprintf("→%g/%v", st.Target, st.Duration)
		}
	} else {
		s = fmt.Sprintf("%d VUs", m.VUs)
		if m.Duration > 0 {
			s += " " + m.Duration.String()
		}
		if m.Iterations > 0 {
			s += fmt.Sprintf(" %d iterations", m.Iterations)
		}
		if m.Total > 0 {
			s += fmt.Sprintf(" %d requests", m.Total)
		}
	}
	if m.Think > 0 {
		s += " think " + m.Think.String()
	}
	return s
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
			return Open{Rate: p.Start, Stages: p.Stages}.String()
		case fmt.Stringer:
			return "open " + p.String()
		}
		return fmt.Sprintf("open %T", m.Pacer)
	case len(m.Stages) > 0:
		s := fmt.Sprintf("open ramp %g/s", m.Rate)
		for _, st := range m.Stages {
			s += fmt.Sprintf("→%g/%v", st.Target, st.Duration)
		}
		return s
	case m.Poisson:
		return fmt.Sprintf("open poisson %g/s %v", m.Rate, m.Duration)
	}
	return fmt.Sprintf("open %g/s %v", m.Rate, m.Duration)
}

func (m Burst) validate() error {
	if m.N <= 0 || m.N > MaxConcurrency {
		return fmt.Errorf("load: Burst.N must be in 1..%d, got %d", MaxConcurrency, m.N)
	}
	return nil
}

func (m Sequential) validate() error {
	if m.N <= 0 {
		return fmt.Errorf("load: Sequential.N must be positive, got %d", m.N)
	}
	return nil
}

func (m Closed) validate() error {
	if m.VUs < 0 || (m.VUs == 0 && len(m.Stages) == 0) {
		return fmt.Errorf("load: Closed.VUs must be positive, got %d", m.VUs)
	}
	if m.VUs > MaxConcurrency {
		return fmt.Errorf("load: Closed.VUs must be at most %d, got %d", MaxConcurrency, m.VUs)
	}
	for i, st := range m.Stages {
		if st.Target > MaxConcurrency {
			return fmt.Errorf("load: Closed.Stages: stage %d: target must be at most %d VUs, got %v", i, MaxConcurrency, st.Target)
		}
	}
	if m.Duration < 0 {
		return fmt.Errorf("load: Closed.Duration must not be negative, got %v", m.Duration)
	}
	if m.Iterations < 0 {
		return fmt.Errorf("load: Closed.Iterations must not be negative, got %d", m.Iterations)
	}
	if m.Think < 0 {
		return fmt.Errorf("load: Closed.Think must not be negative, got %v", m.Think)
	}
	if err := validateStages(m.Stages); err != nil {
		return fmt.Errorf("load: Closed.Stages: %w", err)
	}
	if m.Total < 0 {
		return fmt.Errorf("load: Closed.Total must not be negative, got %d", m.Total)
	}
	if m.Duration == 0 && m.Iterations == 0 && m.Total == 0 && len(m.Stages) == 0 {
		return fmt.Errorf("load: Closed needs a Duration, Iterations, Total or Stages")
	}
	return nil
}

func (m Open) validate() error {
	if m.MaxInFlight < 0 || m.MaxInFlight > MaxConcurrency {
		return fmt.Errorf("load: Open.MaxInFlight must be in 0..%d, got %d", MaxConcurrency, m.MaxInFlight)
	}
	if m.Pacer != nil {
		return nil
	}
	if m.Rate < 0 || math.IsNaN(m.Rate) || math.IsInf(m.Rate, 0) || (m.Rate == 0 && len(m.Stages) == 0) {
		return fmt.Errorf("load: Open.Rate must be a positive number, got %v", m.Rate)
	}
	if len(m.Stages) == 0 && m.Duration <= 0 {
		return fmt.Errorf("load: Open.Duration must be positive, got %v", m.Duration)
	}
	if m.Rate > MaxRate {
		return fmt.Errorf("load: Open.Rate %g/s is above load.MaxRate (%g/s), more than one process can send; split the load over agents with Options.Segment (conclab load --segment i/N)", m.Rate, float64(MaxRate))
	}
	if err := validateStages(m.Stages); err != nil {
		return fmt.Errorf("load: Open.Stages: %w", err)
	}
	for i, st := range m.Stages {
		if st.Target > MaxRate {
			return fmt.Errorf("load: Open.Stages: stage %d: target %g/s is above load.MaxRate (%g/s); split the load over agents with Options.Segment", i, st.Target, float64(MaxRate))
		}
	}
	return nil
}

func (m Burst) plan() (time.Duration, int64)      { return 0, int64(m.N) }
func (m Sequential) plan() (time.Duration, int64) { return 0, int64(m.N) }

func (m Closed) plan() (time.Duration, int64) { return m.planShare(Segment{}) }

// planShare is plan for segment seg of the model (the zero Segment: the
// whole).
func (m Closed) planShare(seg Segment) (time.Duration, int64) {
	if len(m.Stages) > 0 {
		return stagesDuration(m.Stages), 0
	}
	n := int64(0)
	if m.Iterations > 0 {
		n = seg.Scale(int64(m.VUs)) * int64(m.Iterations)
	}
	if m.Total > 0 {
		if t := m.totalShare(seg); n == 0 || t < n {
			n = t
		}
	}
	return m.Duration, n
}

// totalShare is segment seg's share of Total: Total split along the VUs
// (the most VUs, with Stages), so that a segment without VUs has none of
// it and the shares of segments that tile the whole add up to Total.
func (m Closed) totalShare(seg Segment) int64 {
	return seg.scaleAlong(int64(m.Total), int64(m.maxVUs()))
}

// maxVUs is the largest number of VUs the model runs at once: the most of
// its levels, each rounded as the ramp rounds it.
func (m Closed) maxVUs() int {
	n := m.VUs
	for _, s := range m.Stages {
		n = max(n, int(math.Round(s.Target)))
	}
	return n
}

func (m Open) plan() (time.Duration, int64) {
	switch p := m.Pacer.(type) {
	case nil:
	case ConstantPacer:
		return p.Duration, int64(math.Ceil(p.PerSecond * p.Duration.Seconds()))
	case *PoissonPacer:
		return p.duration, 0
	case StagesPacer:
		return stagesDuration(p.Stages), 0
	default:
		return 0, 0
	}
	switch {
	case len(m.Stages) > 0:
		return stagesDuration(m.Stages), 0
	}
	return m.Duration, int64(math.Ceil(m.Rate * m.Duration.Seconds()))
}
