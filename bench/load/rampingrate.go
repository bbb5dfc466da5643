package load

import (
	"fmt"
	"math"
)

// RampingRate is an open model whose arrival rate changes over the run
// (k6's ramping-arrival-rate): from Start requests per second it moves
// linearly through each stage's Target, evenly spaced (StagesPacer: hit n
// is due when the integral of the rate reaches n). The run lasts the
// stages' total. Everything else is as Open's: latency from the intended
// start, MaxInFlight, DropWhenBusy, arrivals not sent by the end dropped.
// Start and the targets are at most MaxRate.
type RampingRate struct {
	Start        float64
	Stages       []Stage
	MaxInFlight  int
	DropWhenBusy bool
}

// Schedule is the Pacer the model runs.
func (m RampingRate) Schedule() Pacer { return StagesPacer{Start: m.Start, Stages: m.Stages} }

func (m RampingRate) String() string {
	return fmt.Sprintf("open ramp %g/s", m.Start) + stagesString(m.Stages)
}

// Validate implements Model.
func (m RampingRate) Validate() error {
	if err := validateInFlight("RampingRate", m.MaxInFlight); err != nil {
		return err
	}
	if m.Start < 0 || math.IsNaN(m.Start) || math.IsInf(m.Start, 0) || m.Start > MaxRate {
		return fmt.Errorf("load: RampingRate.Start must be a number in 0..%g (load.MaxRate), got %v", float64(MaxRate), m.Start)
	}
	if err := validateStages(m.Stages, MaxRate, "requests/s (load.MaxRate; split the load over agents beyond it)"); err != nil {
		return fmt.Errorf("load: RampingRate.Stages: %w", err)
	}
	return nil
}

func (m RampingRate) outline() outline {
	sched := m.Schedule().(StagesPacer)
	d, n := sched.Plan()
	return outline{duration: d, requests: n, gauge: "target_rps", open: true, level: sched.Rate}
}

func (m RampingRate) run(e *engine) {
	e.runArrivals(m.Schedule(), m.MaxInFlight, m.DropWhenBusy)
}
