package strategy

import (
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
)

// Python is the modelled interpreter a Python family (Uvicorn, Gunicorn)
// runs on: its os.cpu_count(), executor sizes, GIL switch interval and
// asyncio's slow-callback warning. The zero value is CPython's defaults on
// this machine.
type Python struct {
	CPUs           int           // modelled os.cpu_count(); 0: this machine's
	Executor       int           // asyncio default executor; 0: min(32, CPUs+4)
	ThreadExecutor int           // the app's ThreadPoolExecutor(); 0: min(32, CPUs+4)
	ProcessWorkers int           // ProcessPoolExecutor() size; 0: CPUs
	SwitchInterval time.Duration // 0: 5 ms
	FreeThreaded   bool          // PEP 703: no GIL
	SlowCallback   time.Duration // 0: 100 ms; negative: none
	// Framework is the server stack's own CPU per request (zero: none);
	// a measured Calibration gives this machine's (bench/cpython).
	Framework pymodel.FrameworkCost
}

// Validate reports a negative size or switch interval, naming the field.
func (p Python) Validate() error { return p.validate("python") }

func (p Python) validate(label string) error {
	if err := checkCounts(label, "CPUs", p.CPUs, "Executor", p.Executor, "ThreadExecutor", p.ThreadExecutor,
		"ProcessWorkers", p.ProcessWorkers, "SwitchInterval", p.SwitchInterval); err != nil {
		return err
	}
	if err := p.Framework.Validate(); err != nil {
		return fmt.Errorf("strategy %q: %w", label, err)
	}
	return nil
}
