package pymodel

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A crowd step counts itself out however it ends: done, failed or cancelled.
func TestCrowdCountsOut(t *testing.T) {
	t.Parallel()
	cr := &crowds{}
	th := &pythread{gil: NewGIL(0, false), crowds: cr}
	boom := errors.New("boom")
	var inside int
	peek := Custom("peek", true, func(ctx context.Context) error { inside = cr.count("pipeline"); return nil })
	fail := Custom("fail", true, func(ctx context.Context) error { return boom })
	crowd := &Crowd{Factors: []CrowdFactor{{N: 1, Factor: 1}}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		step Step
		want error
	}{
		{"done", context.Background(), Step{Kind: KindSeq, Name: "pipeline", Steps: []Step{peek, BurnNoGIL(time.Millisecond)}, Crowd: crowd}, nil},
		{"failed", context.Background(), Step{Kind: KindSeq, Name: "pipeline", Steps: []Step{fail, BurnNoGIL(time.Millisecond)}, Crowd: crowd}, boom},
		{"cancelled", ctx, Step{Kind: KindSeq, Name: "pipeline", Steps: []Step{BurnNoGIL(time.Second)}, Crowd: crowd}, context.Canceled},
	} {
		if err := th.runCrowded(tc.ctx, tc.step); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v; want %v", tc.name, err, tc.want)
		}
		if n := cr.count("pipeline"); n != 0 {
			t.Errorf("%s: %d still counted after the step ended", tc.name, n)
		}
	}
	if inside != 1 {
		t.Errorf("inside the step it counted %d; want 1", inside)
	}
}
