package load

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Stage is one step of a ramp (RampingVUs, RampingRate): over Duration
// the level moves linearly from the previous stage's Target (or the
// model's start level) to Target. Target is a number of VUs or a rate.
// A stage whose Target equals the level before it holds the level.
type Stage struct {
	Duration time.Duration
	Target   float64
}

func validateStages(stages []Stage, most float64, unit string) error {
	if len(stages) == 0 {
		return fmt.Errorf("no stages")
	}
	for i, s := range stages {
		if s.Duration <= 0 {
			return fmt.Errorf("stage %d: duration must be positive, got %v", i, s.Duration)
		}
		if s.Target < 0 || math.IsNaN(s.Target) || math.IsInf(s.Target, 0) {
			return fmt.Errorf("stage %d: target must be a finite number ≥ 0, got %v", i, s.Target)
		}
		if s.Target > most {
			return fmt.Errorf("stage %d: target must be at most %g %s, got %v", i, most, unit, s.Target)
		}
	}
	return nil
}

func stagesDuration(stages []Stage) time.Duration {
	var d time.Duration
	for _, s := range stages {
		d += s.Duration
	}
	return d
}

// levelAt interpolates the stages' level at elapsed; done is true past the end.
func levelAt(start float64, stages []Stage, elapsed time.Duration) (level float64, done bool) {
	from := start
	for _, s := range stages {
		if elapsed < s.Duration {
			return from + (s.Target-from)*float64(elapsed)/float64(s.Duration), false
		}
		elapsed -= s.Duration
		from = s.Target
	}
	return from, true
}

func stagesString(stages []Stage) string {
	s := ""
	for _, st := range stages {
		s += fmt.Sprintf("→%g/%v", st.Target, st.Duration)
	}
	return s
}

// ParseStage reads a stage written DURATION:TARGET, as conclab load's
// --stage takes it: "30s:100" (over 30 s, to 100 VUs or 100 requests/s),
// "1m30s:0". The duration is Go's (positive); the target a number ≥ 0.
func ParseStage(s string) (Stage, error) {
	d, t, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return Stage{}, fmt.Errorf("load: stage %q: want DURATION:TARGET, e.g. 30s:100", s)
	}
	dur, err := time.ParseDuration(strings.TrimSpace(d))
	if err != nil || dur <= 0 {
		return Stage{}, fmt.Errorf("load: stage %q: duration %q: want a positive duration such as 30s or 1m30s", s, d)
	}
	target, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || target < 0 || math.IsNaN(target) || math.IsInf(target, 0) {
		return Stage{}, fmt.Errorf("load: stage %q: target %q: want a number ≥ 0 (VUs, or requests/s)", s, t)
	}
	return Stage{Duration: dur, Target: target}, nil
}

// ParseStages parses several stages; the first malformed one is the
// error.
func ParseStages(specs ...string) ([]Stage, error) {
	out := make([]Stage, 0, len(specs))
	for _, s := range specs {
		st, err := ParseStage(s)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}
