package load

import (
	"fmt"
	"time"
)

// Closed runs VUs virtual users, each sending a request, waiting for the
// response, then thinking for Think before the next (k6's constant-vus).
// It stops after Duration, or after Iterations requests per VU when
// Iterations > 0 (k6's per-vu-iterations), or after Total requests across
// all VUs when Total > 0 (hey's -n, k6's shared-iterations), whichever
// comes first; at least one of the three must be set. VUs is at most
// MaxConcurrency. For a number of VUs that changes over the run, see
// RampingVUs.
type Closed struct {
	VUs        int
	Duration   time.Duration
	Iterations int
	Total      int
	Think      time.Duration
}

func (m Closed) String() string {
	s := fmt.Sprintf("%d VUs", m.VUs)
	if m.Duration > 0 {
		s += " " + m.Duration.String()
	}
	if m.Iterations > 0 {
		s += fmt.Sprintf(" %d iterations", m.Iterations)
	}
	if m.Total > 0 {
		s += fmt.Sprintf(" %d requests", m.Total)
	}
	if m.Think > 0 {
		s += " think " + m.Think.String()
	}
	return s
}

// Validate implements Model.
func (m Closed) Validate() error {
	switch {
	case m.VUs <= 0 || m.VUs > MaxConcurrency:
		return fmt.Errorf("load: Closed.VUs must be in 1..%d, got %d", MaxConcurrency, m.VUs)
	case m.Duration < 0:
		return fmt.Errorf("load: Closed.Duration must not be negative, got %v", m.Duration)
	case m.Iterations < 0:
		return fmt.Errorf("load: Closed.Iterations must not be negative, got %d", m.Iterations)
	case m.Total < 0:
		return fmt.Errorf("load: Closed.Total must not be negative, got %d", m.Total)
	case m.Think < 0:
		return fmt.Errorf("load: Closed.Think must not be negative, got %v", m.Think)
	case m.Duration == 0 && m.Iterations == 0 && m.Total == 0:
		return fmt.Errorf("load: Closed needs a Duration, Iterations or Total")
	}
	return nil
}

func (m Closed) outline() outline {
	p := outline{duration: m.Duration, gauge: "vus"}
	if m.Iterations > 0 {
		p.requests = int64(m.VUs) * int64(m.Iterations)
	}
	if m.Total > 0 && (p.requests == 0 || int64(m.Total) < p.requests) {
		p.requests = int64(m.Total)
	}
	return p
}

func (m Closed) run(e *engine) {
	e.runVUs(vuPlan{vus: m.VUs, iterations: m.Iterations, total: int64(m.Total), think: m.Think})
}
