package strategy

import (
	"fmt"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
)

// Server kinds of spec.
const (
	kindUvicorn       = "uvicorn"
	kindGunicorn      = "gunicorn"
	kindGoroutines    = "goroutines"
	kindBounded       = "bounded"
	kindSerial        = "serial"
	kindGoProcessPool = "goprocesspool"
)

// spec is what the server underneath every family of this package runs:
// each family converts itself to one (its spec method), and a prefork
// child is sent its parent's as JSON.
type spec struct {
	Name string `json:"name"`
	Kind string `json:"kind"`

	// Python model.
	Workers int          `json:"workers,omitempty"` // prefork processes; 0 means 1
	Threads int          `json:"threads,omitempty"` // uvicorn: limiter tokens; gunicorn: threads (pymodel.Config.Threads)
	Async   bool         `json:"async,omitempty"`
	CPUCall pymodel.Call `json:"cpu_call,omitempty"`
	IOCall  pymodel.Call `json:"io_call,omitempty"`
	Accept  string       `json:"accept,omitempty"` // prefork accept policy (AcceptGreedy, AcceptBalanced)

	CPUs           int                   `json:"cpus,omitempty"`
	Executor       int                   `json:"executor,omitempty"`
	ThreadExecutor int                   `json:"thread_executor,omitempty"`
	ProcessWorkers int                   `json:"process_workers,omitempty"` // also GoProcessPool's size
	SwitchInterval time.Duration         `json:"switch_interval,omitempty"`
	FreeThreaded   bool                  `json:"free_threaded,omitempty"`
	SlowCallback   time.Duration         `json:"slow_callback,omitempty"`
	Framework      pymodel.FrameworkCost `json:"framework,omitempty"`

	// Go-native.
	Limit int `json:"limit,omitempty"` // Bounded's semaphore, Serial's 1
}

func (s spec) isPython() bool { return s.Kind == kindUvicorn || s.Kind == kindGunicorn }

// pythonSpec is a Python family's spec.
func pythonSpec(name, kind string, workers, threads int, async bool, cpu, io pymodel.Call, p Python) spec {
	return spec{
		Name: name, Kind: kind, Workers: workers, Threads: threads, Async: async, CPUCall: cpu, IOCall: io,
		CPUs: p.CPUs, Executor: p.Executor, ThreadExecutor: p.ThreadExecutor, ProcessWorkers: p.ProcessWorkers,
		SwitchInterval: p.SwitchInterval, FreeThreaded: p.FreeThreaded, SlowCallback: p.SlowCallback,
		Framework: p.Framework,
	}
}

// describe is the one-line String of a Python family.
func (s spec) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", s.Name, s.Kind)
	w := s.Workers
	if w == 0 {
		w = 1
	}
	fmt.Fprintf(&b, " %dw", w)
	if s.Threads > 0 {
		if s.Kind == kindUvicorn {
			fmt.Fprintf(&b, ", limiter %d", s.Threads)
		} else {
			fmt.Fprintf(&b, " x %dt", s.Threads)
		}
	}
	if s.Async {
		b.WriteString(", async def")
	} else {
		b.WriteString(", def")
	}
	if s.CPUCall != "" {
		fmt.Fprintf(&b, ", cpu %s", s.CPUCall)
	}
	if s.IOCall != "" {
		fmt.Fprintf(&b, ", io %s", s.IOCall)
	}
	if s.CPUs > 0 {
		fmt.Fprintf(&b, ", %d CPUs", s.CPUs)
	}
	if s.FreeThreaded {
		b.WriteString(", free-threaded")
	}
	if !s.Framework.IsZero() {
		fmt.Fprintf(&b, ", framework (%v)", s.Framework)
	}
	return b.String()
}

// resolve returns the steps with each empty Call set from the strategy.
func (s spec) resolve(steps []pymodel.Step) []pymodel.Step {
	out := make([]pymodel.Step, len(steps))
	for i, st := range steps {
		if st.Call == "" {
			if st.IsIO() {
				st.Call = s.IOCall
			} else {
				st.Call = s.CPUCall
			}
		}
		if st.Call == "" {
			st.Call = pymodel.Block
		}
		out[i] = st
	}
	return out
}
