package load

import "time"

// Model is a load model: what arrives when. Each is a plain struct in a
// file of its own with its validation, plan and run, as k6's executors
// are: Burst, Sequential, Closed (constant VUs), RampingVUs, Open
// (constant arrival rate), RampingRate and Idle. Its String is the
// default "load" label.
type Model interface {
	String() string
	// Validate reports the first bad field, naming it; Run calls it before
	// any request.
	Validate() error
	outline() outline
	run(e *engine)
}

// Compile-time checks.
var (
	_ Model = Burst{}
	_ Model = Sequential{}
	_ Model = Closed{}
	_ Model = RampingVUs{}
	_ Model = Open{}
	_ Model = RampingRate{}
	_ Model = Idle{}
	_ Model = Bursts{}
)

// outline is what a model plans to do, known before it runs.
type outline struct {
	duration time.Duration // 0: bounded by counts
	requests int64         // at most this many; 0: unknown
	gauge    string        // the series' gauge column: "vus", "target_rps" or none
	open     bool          // latency from the intended start, uncorrected kept
	// level, when set, is the gauge at each moment (a schedule's rate or
	// VUs): the series' gauge is read from it at each interval's end.
	level func(time.Duration) float64
}
