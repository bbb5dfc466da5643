package load

import (
	"fmt"
	"math"
	"time"
)

// RampingVUs runs a number of closed-model VUs that changes over the run
// (k6's ramping-vus): from Start it moves linearly through each stage's
// Target (a number of VUs, rounded to the nearest), each VU sending a
// request, waiting for the response and thinking for Think before the
// next. The run lasts the stages' total. When the level drops, the VUs
// above it finish their request and wait; when it rises they resume.
// Schedule, when set, replaces Start and Stages (bench/load/split gives
// each agent its share of the whole's schedule this way). Levels are at
// most MaxConcurrency.
type RampingVUs struct {
	Start    int
	Stages   []Stage
	Think    time.Duration
	Schedule VUSchedule
}

// A VUSchedule says how many VUs of a RampingVUs run are active at each
// moment. Like a Pacer it is clock-free: VUs(elapsed) is the number
// active at elapsed since the start, and done=true from the end on. Max
// is the most VUs ever active, Duration the schedule's length. VUs is
// called from two goroutines (the ramp and the series' intervals), so it
// must be safe for concurrent use: a function of elapsed, as a ramp is.
type VUSchedule interface {
	VUs(elapsed time.Duration) (n int, done bool)
	Max() int
	Duration() time.Duration
}

// StagesVUs ramps linearly from Start through Stages, rounding the level
// to the nearest whole VU: the schedule of RampingVUs{Start, Stages}.
type StagesVUs struct {
	Start  int
	Stages []Stage
}

var _ VUSchedule = StagesVUs{}

// VUs implements VUSchedule.
func (s StagesVUs) VUs(elapsed time.Duration) (int, bool) {
	l, done := levelAt(float64(s.Start), s.Stages, elapsed)
	return int(math.Round(l)), done
}

// Max implements VUSchedule: the largest of the levels.
func (s StagesVUs) Max() int {
	n := s.Start
	for _, st := range s.Stages {
		n = max(n, int(math.Round(st.Target)))
	}
	return n
}

// Duration implements VUSchedule.
func (s StagesVUs) Duration() time.Duration { return stagesDuration(s.Stages) }

func (m RampingVUs) schedule() VUSchedule {
	if m.Schedule != nil {
		return m.Schedule
	}
	return StagesVUs{Start: m.Start, Stages: m.Stages}
}

func (m RampingVUs) String() string {
	s := ""
	if m.Schedule != nil {
		s = fmt.Sprintf("ramping VUs %v", m.Schedule)
	} else {
		s = fmt.Sprintf("ramping VUs %d", m.Start) + stagesString(m.Stages)
	}
	if m.Think > 0 {
		s += " think " + m.Think.String()
	}
	return s
}

// Validate implements Model.
func (m RampingVUs) Validate() error {
	if m.Think < 0 {
		return fmt.Errorf("load: RampingVUs.Think must not be negative, got %v", m.Think)
	}
	if m.Schedule != nil {
		if n := m.Schedule.Max(); n < 0 || n > MaxConcurrency {
			return fmt.Errorf("load: RampingVUs.Schedule: Max must be in 0..%d, got %d", MaxConcurrency, n)
		}
		if m.Schedule.Duration() <= 0 {
			return fmt.Errorf("load: RampingVUs.Schedule: Duration must be positive, got %v", m.Schedule.Duration())
		}
		return nil
	}
	if m.Start < 0 || m.Start > MaxConcurrency {
		return fmt.Errorf("load: RampingVUs.Start must be in 0..%d, got %d", MaxConcurrency, m.Start)
	}
	if err := validateStages(m.Stages, MaxConcurrency, "VUs"); err != nil {
		return fmt.Errorf("load: RampingVUs.Stages: %w", err)
	}
	return nil
}

func (m RampingVUs) outline() outline {
	s := m.schedule()
	return outline{duration: s.Duration(), gauge: "vus", level: func(el time.Duration) float64 {
		n, _ := s.VUs(el)
		return float64(n)
	}}
}

func (m RampingVUs) run(e *engine) {
	s := m.schedule()
	e.runVUs(vuPlan{vus: s.Max(), think: m.Think, schedule: s})
}
