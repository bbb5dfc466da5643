package pymodel_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
)

func TestCrowdFactor(t *testing.T) {
	t.Parallel()
	c := &pymodel.Crowd{Factors: []pymodel.CrowdFactor{{N: 1, Factor: 1}, {N: 6, Factor: 0.9}, {N: 20, Factor: 1.3}}}
	for _, tc := range []struct {
		n    int
		want float64
	}{
		{0, 1}, {1, 1}, {6, 0.9}, {13, 1.1}, {20, 1.3}, {40, 1.3},
	} {
		if got := c.Factor(tc.n); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("Factor(%d) = %v; want %v", tc.n, got, tc.want)
		}
	}
	var none *pymodel.Crowd
	if got := none.Factor(5); got != 1 {
		t.Errorf("nil crowd: Factor(5) = %v; want 1", got)
	}
}

func TestCrowdValidate(t *testing.T) {
	t.Parallel()
	burn := pymodel.Burn(time.Millisecond)
	for _, tc := range []struct {
		name string
		step pymodel.Step
		want string
	}{
		{"no factors", withCrowd(burn, nil), "has no factors"},
		{"n zero", withCrowd(burn, []pymodel.CrowdFactor{{N: 0, Factor: 1}}), "n = 0, want at least 1"},
		{"n descending", withCrowd(burn, []pymodel.CrowdFactor{{N: 4, Factor: 1}, {N: 2, Factor: 1}}), "want n ascending"},
		{"factor zero", withCrowd(burn, []pymodel.CrowdFactor{{N: 1, Factor: 0}}), "want a positive number"},
		{"nested", withCrowd(pymodel.Seq("outer", withCrowd(burn, []pymodel.CrowdFactor{{N: 1, Factor: 1}})), []pymodel.CrowdFactor{{N: 1, Factor: 1}}), "has a Crowd inside a crowd seq"},
		{"sleep", withCrowd(pymodel.Sleep(time.Millisecond), []pymodel.CrowdFactor{{N: 1, Factor: 1}}), "Crowd is for burn, cpu and seq steps"},
	} {
		err := tc.step.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v; want an error containing %q", tc.name, err, tc.want)
		}
	}
	ok := withCrowd(pymodel.Seq("pipeline", burn, burn), []pymodel.CrowdFactor{{N: 1, Factor: 1}, {N: 20, Factor: 1.2}})
	if err := ok.Validate(); err != nil {
		t.Errorf("a seq crowd: %v", err)
	}
	if got := ok.Label(); !strings.Contains(got, "crowd(1:1 20:1.2)") {
		t.Errorf("Label() = %q; want the crowd's factors in it", got)
	}
}

func withCrowd(s pymodel.Step, f []pymodel.CrowdFactor) pymodel.Step {
	s.Crowd = &pymodel.Crowd{Factors: f}
	return s
}

// Three def handlers in one process run a crowd seq at once: its burn,
// started when all three are inside, costs the factor for three. Run one
// after another, each costs its own duration. CPU time, so other load on
// the machine does not move it; the burn stops at its target, so the
// lower bounds are exact and the upper ones have a whole burn of room.
func TestCrowdChargesRunningSteps(t *testing.T) {
	t.Parallel()
	const burn = 20 * time.Millisecond
	run := func(t *testing.T, n int) time.Duration {
		rt, err := pymodel.New(pymodel.Config{Mode: pymodel.WSGI, Threads: n})
		if err != nil {
			t.Fatal(err)
		}
		if err := rt.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		var entered sync.WaitGroup
		entered.Add(n)
		all := make(chan struct{})
		go func() { entered.Wait(); close(all) }()
		meet := pymodel.Custom("meet", true, func(ctx context.Context) error {
			entered.Done()
			select {
			case <-all:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		step := withCrowd(pymodel.Seq("pipeline", meet, pymodel.BurnNoGIL(burn)),
			[]pymodel.CrowdFactor{{N: 1, Factor: 1}, {N: 3, Factor: 4}})
		h := pymodel.Handler{Name: "crowded", Steps: []pymodel.Step{step}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				if _, err := rt.Handle(ctx, h); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		return rt.Stats().CPU
	}
	if got := run(t, 1); got < burn || got >= 2*burn {
		t.Errorf("alone: CPU %v; want %v (factor 1) and less than %v", got, burn, 2*burn)
	}
	if got, want := run(t, 3), 3*4*burn; got < want || got >= want+3*burn {
		t.Errorf("three at once: CPU %v; want %v (3 x factor 4 x %v) and less than %v", got, want, burn, want+3*burn)
	}
}
