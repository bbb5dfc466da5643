package s003_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/sources/internal/knob"
	"github.com/conclab/conclab/sources/s003"
	"github.com/conclab/conclab/sources/shape"
)

// The lesson's frames from one model run at small knobs: I/O rows in
// waits, CPU rows in burns, the speed-ups read from them, the estimate's
// burns, and the model's accept spacing (the convoy effect: an accept
// loop whose worker computes waits longer between accepts).
func TestLessonFrames(t *testing.T) {
	t.Parallel()
	k := s003.Default
	k.N, k.Wait, k.SumN, k.Burn = 6, 60*time.Millisecond, 1_000_000, 30*time.Millisecond
	k.IO = k.IO[:1]
	io, err := bench.Run(context.Background(), k.IOExperiment())
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := bench.Run(context.Background(), k.CPUExperiment())
	if err != nil {
		t.Fatal(err)
	}
	if err := shape.Err("model", append(k.IOChecks(io), k.CPUChecks(cpu, k.Burn.Seconds())...)...); err != nil {
		t.Error(err)
	}
	f, err := k.Summary(io, cpu, k.Burn)
	if err != nil {
		t.Fatal(err)
	}
	if f.Len() != 1+4 {
		t.Fatalf("%d rows; want 5\n%v", f.Len(), f)
	}
	// flask 1w x 5t, 6 sleeps: two waves.
	if w := f.Where("workload", "io").Float("waits", 0); w < 1.9 || w > 4 {
		t.Errorf("flask 1w x 5t: %v waits; want two waves", w)
	}
	// One worker: the six burns one after another, at least 6 burns.
	if b, _ := f.Where("workload", "cpu").Get("strategy", "flask 1w x 10t", "burns"); b < 5.7 {
		t.Errorf("flask 1w x 10t: %v burns; want ≥ 6", b)
	}
	sp := s003.SpeedUps(f)
	if sp.Len() != 2 || !(sp.Float("model", 0) > 0) || !math.IsNaN(sp.Float("real", 0)) || sp.Float("source", 0) < 1.78 {
		t.Errorf("speed-ups:\n%v", sp)
	}
	if _, err := k.Summary(io, cpu, 0); err == nil {
		t.Error("Summary with no cost: want an error")
	}
}

func TestEstimateBurns(t *testing.T) {
	t.Parallel()
	k := s003.Default
	cpu := k.Estimate(2).Where("workload", "cpu")
	// flask 1w x 10t: 10 burns at best and worst; 2w x 5t on 2 cores: 5 to 10.
	if b := cpu.Floats("burns"); b[0] != 10 || b[1] != 5 || cpu.Floats("burns_max")[1] != 10 {
		t.Errorf("burns %v, max %v", b, cpu.Floats("burns_max"))
	}
	k.FreeThreaded = true
	ft := k.Estimate(2).Where("workload", "cpu")
	if ft.Float("burns", 0) != 5 || !strings.HasSuffix(ft.Text("strategy", 0), "free-threaded") {
		t.Errorf("free-threaded on 2 cores: 10 / 2 burns:\n%v", ft)
	}
	if got := k.Estimate(2).Where("workload", "io").Floats("waits"); got[0] != 2 || got[1] != 1 || got[2] != 1 {
		t.Errorf("I/O waves %v; want [2 1 1]", got)
	}
}

func TestSplitBurnsAndTable(t *testing.T) {
	t.Parallel()
	busiest := s003.Busiest(mustSummary(t))
	f := s003.SplitBurns(busiest, 10, 1, 2, 8)
	if f.Len() != 3 {
		t.Fatalf("%v", f)
	}
	if f.Float("burns", 0) != 10 || f.Float("burns", 1) != 7 || f.Float("burns", 2) != 7 {
		t.Errorf("a 7/3 split: 10 burns on one core, 7 on two or more:\n%v", f)
	}
	if s := f.Float("source_busiest", 1); math.Abs(s-0.56) > 0.001 {
		t.Errorf("the source's implied share %v; want 14/25", s)
	}
	tbl := s003.Table().Where("workload", "cpu")
	if tbl.Float("burns", 0) != 10 || math.Abs(tbl.Float("burns", 1)-5.6) > 1e-9 {
		t.Errorf("source burns:\n%v", tbl)
	}
}

func mustSummary(t *testing.T) *frameT {
	t.Helper()
	f := newSplit()
	s, err := s003.SplitSummary(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestKnobErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		k    func(*s003.Knobs)
		want string
	}{
		{func(k *s003.Knobs) { k.SwitchInterval = -time.Millisecond }, "switchInterval"},
		{func(k *s003.Knobs) { k.Accept = "fair" }, "accept"},
		{func(k *s003.Knobs) { k.N = -1 }, "n"},
		{func(k *s003.Knobs) { k.Wait = -time.Second }, "wait"},
		{func(k *s003.Knobs) { k.SumN = 0 }, "sumN"},
	} {
		k := s003.Default
		c.k(&k)
		err := k.Validate()
		var ke *knob.Error // the parameters cell's name, not the Go field's
		if !errors.As(err, &ke) || ke.Knob != c.want || !strings.Contains(err.Error(), "knob "+c.want+" must be") {
			t.Errorf("want an error naming the lesson's knob %s, got %v", c.want, err)
		}
	}
	k := s003.Default
	k.Accept, k.SwitchInterval = strategy.AcceptBalanced, time.Millisecond
	if err := k.Validate(); err != nil {
		t.Error(err)
	}
	// A --reuse-port server's model accepts as --reuse-port whatever the
	// policy of the other rows.
	if g := (s003.Stack{Workers: 2, Threads: 5, ReusePort: true}).Model(strategy.AcceptGreedy).(strategy.Gunicorn); g.Accept != strategy.AcceptReusePort {
		t.Errorf("reuse-port model accepts %q", g.Accept)
	}
}

func TestHandlers(t *testing.T) {
	t.Parallel()
	d, err := s003.Handlers()
	if err != nil {
		t.Fatal(err)
	}
	md := d.Data[display.MIMETypeMarkdown].(string)
	for _, want := range []string{"app003_flask.py", "_conclab.py", "app003_fastapi.py", "sum(x**2 for x in num_list)  # ◀"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	if _, err := s003.Excerpt("app003_flask.py", 30, 20); err == nil {
		t.Error("lines 30..20: want an error")
	}
}

// The model's accept spacing: every two-worker server has its gaps, each
// counted under idle or computing; gaps between bursts are left out.
func TestAcceptGaps(t *testing.T) {
	t.Parallel()
	k := s003.Default
	k.N, k.SumN = 10, 100_000
	e, err := k.SplitExperiment(s003.Splits{Stacks: []s003.Stack{{Workers: 2, Threads: 5}}, Bursts: 3, Model: true, Cost: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	g := s003.AcceptGaps(res, 50*time.Millisecond)
	t.Logf("\n%v", g)
	if g.Len() != 2 {
		t.Fatalf("want an idle and a computing row:\n%v", g)
	}
	total := g.Float("gaps", 0) + g.Float("gaps", 1)
	// 3 bursts of 10 over two workers: 30 accepts, at most 28 gaps within bursts.
	if total < 1 || total > 28 {
		t.Errorf("%v gaps", total)
	}
}
