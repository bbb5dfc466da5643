package split

import (
	"context"
	"fmt"
	"io"

	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
)

// Agent is what one agent of a split run adds to a load run: its segment
// of the whole model and, optionally, where its interval log goes. The
// shared start is load.Options.StartAt.
type Agent struct {
	// Segment is the agent's share (the zero Segment: the whole run).
	Segment Segment
	// Log, when set, receives the run as an HdrHistogram interval log
	// (HlogWriter), written as the run goes and ended with the run's
	// totals; Merge combines it with the other agents'. A write error is
	// the run's error.
	Log io.Writer
}

// Run runs agent a's segment of model m with load.Run: the share
// (Segment.Apply), labelled with the whole model's description and the
// segment ("10 VUs 1m0s segment 1/3"), its interval log written as it
// goes. An agent whose share is empty still runs (load.Idle: no request)
// and says so in a warning, so that its log merges with the others'. The
// result and error are load.Run's, and the log's first write error.
func Run(ctx context.Context, t load.Target, m load.Model, o load.Options, a Agent) (*metrics.Result, error) {
	share, err := a.Segment.Apply(m)
	if err != nil {
		return nil, err
	}
	whole := o.Load
	if whole == "" {
		whole = m.String()
	}
	if !a.Segment.IsWhole() {
		o.Load = whole + " segment " + a.Segment.String()
	}
	var hw *HlogWriter
	if a.Log != nil {
		h := HlogHeader{}
		if !a.Segment.IsWhole() {
			h.Segment, h.Whole = a.Segment.String(), whole
		}
		hw = NewHlogWriter(a.Log, h)
		onStart, onInterval := o.OnStart, o.OnInterval
		o.OnStart = func(p load.Plan) {
			hw.mu.Lock()
			hw.header.Labels, hw.header.GaugeName, hw.header.Tick = p.Labels, p.Gauge, p.Interval
			hw.header.Uncorrected, hw.header.Phases = p.Uncorrected, p.Phases
			hw.mu.Unlock()
			hw.Begin(p.Start)
			if onStart != nil {
				onStart(p)
			}
		}
		o.OnInterval = func(c *metrics.Cut) {
			hw.Interval(c)
			if onInterval != nil {
				onInterval(c)
			}
		}
	}
	res, err := load.Run(ctx, t, share, o)
	if res == nil {
		return nil, err
	}
	if _, idle := share.(load.Idle); idle && !a.Segment.IsWhole() {
		if _, wasIdle := m.(load.Idle); !wasIdle {
			res.Warn(fmt.Sprintf("segment %s has no share of %s (its shares of VUs or requests round to zero): no request was sent", a.Segment, whole))
		}
	}
	if hw != nil {
		if werr := hw.End(res); werr != nil && err == nil {
			err = werr
		}
	}
	return res, err
}
