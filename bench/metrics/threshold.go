package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// A Threshold is a pass/fail criterion on a result, as k6's thresholds
// are: "p95<200ms", "errors<1%", "rps>500". Parse one with
// ParseThreshold; check a result with Result.CheckThresholds.
//
// The vocabulary (k6's where it fits):
//
//	p95, p99.9, p(95)        a latency percentile       p95<200ms, p(99)<1s
//	med, avg, min, max       latency statistics         avg<50ms, max<=2s
//	errors                   failed requests: a count,  errors<10
//	                         or with % their rate       errors<1%
//	rps                      completed requests/second  rps>500
//	count                    completed requests         count>=1000
//	dropped                  dropped arrivals           dropped<1
//
// k6's metric names are accepted as a prefix: "http_req_duration:
// p(95)<200" (a bare latency is in milliseconds, as in k6),
// "http_req_failed: rate<0.01", "http_reqs: rate>500",
// "http_reqs: count>1000", "dropped_iterations: count<1". The
// operators are <, <=, > and >=. Latency statistics are over the
// requests that got a response (as the summary's are); a result with
// none of them fails a latency threshold, as a result without requests
// fails an error-rate one (there is nothing to pass on).
type Threshold struct {
	text  string
	stat  stat
	q     float64 // percentile, for statQuantile
	op    string
	limit float64 // ns for latencies, a fraction for rates, else as written
}

type stat int

const (
	statQuantile stat = iota
	statMed
	statAvg
	statMin
	statMax
	statErrors
	statErrorRate
	statRPS
	statCount
	statDropped
)

func (s stat) latency() bool { return s <= statMax }

// ParseThreshold parses one threshold (see Threshold). A malformed one is
// an error that says what was wrong and what is accepted.
func ParseThreshold(s string) (Threshold, error) {
	t := Threshold{text: strings.TrimSpace(s)}
	bad := func(format string, args ...any) (Threshold, error) {
		return Threshold{}, fmt.Errorf("metrics: threshold %q: %s", s, fmt.Sprintf(format, args...))
	}
	expr := strings.Join(strings.Fields(t.text), "")
	if expr == "" {
		return bad("empty; want e.g. p95<200ms, errors<1%%, rps>500")
	}
	metric := ""
	if m, rest, ok := strings.Cut(expr, ":"); ok {
		metric, expr = m, rest
	}
	i := strings.IndexAny(expr, "<>")
	if i < 0 {
		return bad("no operator; want one of <, <=, >, >= (e.g. p95<200ms)")
	}
	lhs, rest := expr[:i], expr[i:]
	t.op = rest[:1]
	if len(rest) > 1 && rest[1] == '=' {
		t.op = rest[:2]
	}
	rhs := rest[len(t.op):]
	if strings.ContainsAny(rhs, "<>=") || strings.Contains(lhs, "=") {
		return bad("one comparison only (e.g. p95<200ms)")
	}
	if rhs == "" {
		return bad("no value after %s", t.op)
	}
	switch metric {
	case "", "http_req_duration":
	case "http_req_failed":
		if lhs != "rate" {
			return bad("http_req_failed takes rate (e.g. http_req_failed: rate<0.01)")
		}
		lhs = "error_rate"
	case "http_reqs":
		switch lhs {
		case "rate":
			lhs = "rps"
		case "count":
		default:
			return bad("http_reqs takes rate or count (e.g. http_reqs: rate>500)")
		}
	case "dropped_iterations":
		if lhs != "count" {
			return bad("dropped_iterations takes count (e.g. dropped_iterations: count<1)")
		}
		lhs = "dropped"
	default:
		return bad("unknown metric %q; want http_req_duration, http_req_failed, http_reqs or dropped_iterations, or none", metric)
	}
	if metric == "http_req_duration" && !isLatencyStat(lhs) {
		return bad("http_req_duration takes p(N), med, avg, min or max")
	}
	switch {
	case isQuantile(lhs):
		q, err := parseQuantile(lhs)
		if err != nil {
			return bad("%v", err)
		}
		t.stat, t.q = statQuantile, q
	case lhs == "med":
		t.stat = statMed
	case lhs == "avg":
		t.stat = statAvg
	case lhs == "min":
		t.stat = statMin
	case lhs == "max":
		t.stat = statMax
	case lhs == "errors":
		t.stat = statErrors
	case lhs == "error_rate":
		t.stat = statErrorRate
	case lhs == "rps":
		t.stat = statRPS
	case lhs == "count":
		t.stat = statCount
	case lhs == "dropped":
		t.stat = statDropped
	default:
		return bad("unknown statistic %q; want p95 (any percentile), med, avg, min, max, errors, rps, count or dropped", lhs)
	}
	switch {
	case t.stat.latency():
		d, err := parseLatency(rhs)
		if err != nil {
			return bad("%v", err)
		}
		t.limit = float64(d)
	case t.stat == statErrors && strings.HasSuffix(rhs, "%"), t.stat == statErrorRate:
		pct := strings.HasSuffix(rhs, "%")
		v, err := parseNumber(strings.TrimSuffix(rhs, "%"))
		if err != nil {
			return bad("%v", err)
		}
		if pct {
			v /= 100
		}
		if v > 1 {
			return bad("a rate is at most 100%% (1)")
		}
		t.stat, t.limit = statErrorRate, v
	case t.stat == statRPS:
		v, err := parseNumber(strings.TrimSuffix(rhs, "/s"))
		if err != nil {
			return bad("%v", err)
		}
		t.limit = v
	default: // counts
		v, err := parseNumber(rhs)
		if err != nil {
			return bad("%v", err)
		}
		if v != math.Trunc(v) {
			hint := ""
			if t.stat == statErrors {
				hint = "; for a rate write errors<1%"
			}
			return bad("a count is a whole number, got %s%s", rhs, hint)
		}
		t.limit = v
	}
	return t, nil
}

// ParseThresholds parses several thresholds; the first malformed one is
// the error.
func ParseThresholds(specs ...string) ([]Threshold, error) {
	out := make([]Threshold, 0, len(specs))
	for _, s := range specs {
		t, err := ParseThreshold(s)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func isLatencyStat(s string) bool {
	return isQuantile(s) || s == "med" || s == "avg" || s == "min" || s == "max"
}

func isQuantile(s string) bool {
	return len(s) > 1 && s[0] == 'p' && (s[1] == '(' || (s[1] >= '0' && s[1] <= '9'))
}

func parseQuantile(s string) (float64, error) {
	n := s[1:]
	if strings.HasPrefix(n, "(") {
		if !strings.HasSuffix(n, ")") {
			return 0, fmt.Errorf("unclosed parenthesis in %q", s)
		}
		n = n[1 : len(n)-1]
	}
	q, err := strconv.ParseFloat(n, 64)
	if err != nil || !(q > 0 && q <= 100) {
		return 0, fmt.Errorf("percentile %q: want a number in (0, 100], e.g. p95, p99.9, p(95)", n)
	}
	return q, nil
}

func parseNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("value %q: want a non-negative number", s)
	}
	return v, nil
}

// parseLatency reads a duration ("200ms", "1.5s", "500us") or a bare
// number of milliseconds (k6's unit for http_req_duration).
func parseLatency(s string) (time.Duration, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > float64(DefaultHighest/time.Millisecond) {
			return 0, fmt.Errorf("latency %q: want 0 to %v", s, DefaultHighest)
		}
		return time.Duration(v * float64(time.Millisecond)), nil
	}
	d, err := time.ParseDuration(strings.ReplaceAll(s, "µ", "u"))
	if err != nil || d < 0 || d > DefaultHighest {
		return 0, fmt.Errorf("latency %q: want a duration such as 200ms, 1s or 500us (or milliseconds), 0 to %v", s, DefaultHighest)
	}
	return d, nil
}

// String is the threshold as written.
func (t Threshold) String() string { return t.text }

func (t Threshold) pass(v float64) bool {
	switch t.op {
	case "<":
		return v < t.limit
	case "<=":
		return v <= t.limit
	case ">":
		return v > t.limit
	}
	return v >= t.limit
}

// ThresholdResult is one threshold checked against a result.
type ThresholdResult struct {
	Threshold Threshold
	// Value is what was compared with the threshold's limit, in its unit:
	// nanoseconds for latencies, a fraction (0–1) for rates, else a count
	// or requests per second. NaN when there was nothing to measure.
	Value float64
	// Passed is whether the threshold holds.
	Passed bool
	// Aborted is set on the threshold that stopped the run early, being
	// certain to fail (load.Options.AbortOnFail).
	Aborted bool
}

// Measured formats Value in the threshold's unit: "p95=12.30ms",
// "errors=1.25%", "rps=503.1".
func (tr ThresholdResult) Measured() string {
	t := tr.Threshold
	name := t.statName()
	if math.IsNaN(tr.Value) {
		if t.stat == statErrorRate {
			return name + "=none (no requests)"
		}
		return name + "=none (no responses)"
	}
	switch {
	case t.stat.latency():
		return name + "=" + fmtDur(time.Duration(tr.Value))
	case t.stat == statErrorRate:
		return fmt.Sprintf("%s=%.2f%%", name, 100*tr.Value)
	case t.stat == statRPS:
		return fmt.Sprintf("%s=%.1f", name, tr.Value)
	}
	return fmt.Sprintf("%s=%.0f", name, tr.Value)
}

func (t Threshold) statName() string {
	switch t.stat {
	case statQuantile:
		return "p(" + strconv.FormatFloat(t.q, 'f', -1, 64) + ")"
	case statMed:
		return "med"
	case statAvg:
		return "avg"
	case statMin:
		return "min"
	case statMax:
		return "max"
	case statErrors, statErrorRate:
		return "errors"
	case statRPS:
		return "rps"
	case statCount:
		return "count"
	}
	return "dropped"
}

// value is the threshold's statistic of r; NaN when r has none.
func (t Threshold) value(r *Result) float64 {
	switch t.stat {
	case statQuantile:
		if r.Latency.Count == 0 {
			return math.NaN()
		}
		return float64(clampTo(r.Percentile(t.q), r.Latency))
	case statMed, statAvg, statMin, statMax:
		if r.Latency.Count == 0 {
			return math.NaN()
		}
		return float64(map[stat]time.Duration{statMed: r.Latency.Med, statAvg: r.Latency.Avg, statMin: r.Latency.Min, statMax: r.Latency.Max}[t.stat])
	case statErrors:
		return float64(r.Errors())
	case statErrorRate:
		if r.Count() == 0 {
			return math.NaN()
		}
		return float64(r.Errors()) / float64(r.Count())
	case statRPS:
		return r.RPS()
	case statCount:
		return float64(r.Count())
	}
	return float64(r.Dropped)
}

// Check evaluates the threshold on r.
func (t Threshold) Check(r *Result) ThresholdResult {
	v := t.value(r)
	return ThresholdResult{Threshold: t, Value: v, Passed: !math.IsNaN(v) && t.pass(v)}
}

// Doomed reports whether the threshold is certain to fail on the run that
// c reports so far, whatever its remaining requests do, given that the run
// completes at most maxRequests requests in all (0: unknown). Only what is
// certain counts: a percentile or an average is doomed when even
// maxRequests instant responses could not bring it under the limit; an
// error rate when even maxRequests successes could not; a count, a
// minimum or a maximum when it is already past the limit. Without
// maxRequests, rates and latency percentiles are never doomed; rps and
// dropped arrivals never are.
func (t Threshold) Doomed(c *Cut, maxRequests int64) bool {
	tot := &c.Total
	switch t.stat {
	case statQuantile:
		h := c.total
		if h == nil || maxRequests <= 0 {
			return false
		}
		n := h.TotalCount()
		if n == 0 || n > maxRequests {
			return false
		}
		k := max(int64(t.q/100*float64(maxRequests)+0.5), 1) // the final rank
		x := int64(t.limit)
		switch t.op {
		case "<", "<=": // at best, the rest are instant: the rank moves down
			r := k - (maxRequests - n)
			if r < 1 {
				return false
			}
			if x < 1 {
				return t.op == "<" // nothing is under 0
			}
			v := h.ValueAtQuantile(100 * float64(r) / float64(n)) // the top of the rank-r sample's bucket
			if t.op == "<" {
				return v > x-1 && !h.ValuesAreEquivalent(x-1, v) // its bucket lies at or above x
			}
			return v > x && !h.ValuesAreEquivalent(x, v)
		default: // at best, the rest are slow: the rank stays among these
			if k > n {
				return false
			}
			v := h.ValueAtQuantile(100 * float64(k) / float64(n))
			if t.op == ">" {
				return v <= x
			}
			return v < x
		}
	case statAvg:
		if maxRequests <= 0 || t.op[0] != '<' {
			return false
		}
		least := float64(tot.Sum / maxRequests)
		return !t.pass(least)
	case statMin:
		return t.op[0] == '>' && tot.Min >= 0 && !t.pass(float64(tot.Min))
	case statMax:
		return t.op[0] == '<' && tot.Min >= 0 && !t.pass(float64(tot.Max))
	case statErrors:
		return t.op[0] == '<' && !t.pass(float64(tot.Errors()))
	case statErrorRate:
		if maxRequests <= 0 || t.op[0] != '<' {
			return false
		}
		return !t.pass(float64(tot.Errors()) / float64(maxRequests))
	case statCount:
		if t.op[0] == '<' {
			return !t.pass(float64(tot.N))
		}
		return maxRequests > 0 && !t.pass(float64(maxRequests))
	}
	return false
}

// CheckThresholds evaluates ts on r, keeps the outcomes in r.Thresholds
// (the summary's thresholds_failed column, ThresholdFrame, the text
// summary) and returns them. Calling it again replaces them.
func (r *Result) CheckThresholds(ts ...Threshold) []ThresholdResult {
	aborted := map[string]bool{}
	for _, tr := range r.Thresholds {
		if tr.Aborted {
			aborted[tr.Threshold.text] = true
		}
	}
	out := make([]ThresholdResult, len(ts))
	for i, t := range ts {
		out[i] = t.Check(r)
		out[i].Aborted = aborted[t.text]
	}
	r.Thresholds = out
	return out
}

// Passed reports whether every checked threshold passed (true when none
// was checked).
func (r *Result) Passed() bool {
	for _, tr := range r.Thresholds {
		if !tr.Passed {
			return false
		}
	}
	return true
}

// FailedThresholds are the thresholds that failed.
func (r *Result) FailedThresholds() []ThresholdResult {
	var out []ThresholdResult
	for _, tr := range r.Thresholds {
		if !tr.Passed {
			out = append(out, tr)
		}
	}
	return out
}
