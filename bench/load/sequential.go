package load

import "fmt"

// Sequential sends N requests one after another on one keep-alive
// connection.
type Sequential struct{ N int }

func (m Sequential) String() string { return fmt.Sprintf("sequential %d", m.N) }

// Validate implements Model.
func (m Sequential) Validate() error {
	if m.N <= 0 {
		return fmt.Errorf("load: Sequential.N must be positive, got %d", m.N)
	}
	return nil
}

func (m Sequential) outline() outline { return outline{requests: int64(m.N)} }

func (m Sequential) run(e *engine) {
	e.runVUs(vuPlan{vus: 1, iterations: m.N})
}
