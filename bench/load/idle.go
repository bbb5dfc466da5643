package load

import (
	"fmt"
	"time"
)

// Idle sends no request and lasts Duration (0: it ends at once). It is
// the share of a split run that has nothing to send (bench/load/split),
// so that such an agent still reports, and logs, an empty result.
type Idle struct{ Duration time.Duration }

func (m Idle) String() string { return fmt.Sprintf("idle %v", m.Duration) }

// Validate implements Model.
func (m Idle) Validate() error {
	if m.Duration < 0 {
		return fmt.Errorf("load: Idle.Duration must not be negative, got %v", m.Duration)
	}
	return nil
}

func (m Idle) outline() outline { return outline{duration: m.Duration} }

func (m Idle) run(e *engine) {
	if m.Duration > 0 {
		select {
		case <-e.stopNew:
		case <-e.hard.Done():
		}
	}
}
