package split

import (
	"fmt"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/load"
)

// A Segment is a share of a run: the fraction [From, To) of the whole,
// with 0 ≤ From < To ≤ 1, as in k6's execution segments. N agents running
// the segments 0/N, 1/N, ..., (N-1)/N of the same model together run
// exactly the whole model: every integer quantity (VUs, iterations,
// requests, a ramp's VU level at every instant) and every arrival of an
// open model belongs to exactly one segment.
//
// The arithmetic is k6's: a segment's share of an integer quantity v is
//
//	Scale(v) = floor(v·To) − floor(v·From)
//
// computed exactly on integers. The shares of consecutive segments
// telescope, so they add up to v with no rounding drift, whatever v and
// however many segments. An open model's arrivals are numbered 0, 1, 2, ...
// in the whole schedule and each has a position in [0, 1) (see owns); the
// segment whose [From, To) holds the position sends the arrival, at its
// time in the whole schedule. So any segments that tile [0, 1), with any
// denominators ("0:1/2", "1/2:2/3", "2/3:1"), own every arrival exactly
// once, and the segments interleave over the whole run.
//
// The zero Segment is the whole run.
type Segment struct {
	from, to, den int64 // From = from/den, To = to/den; den 0: the whole
}

// maxSegmentDen bounds a segment's denominator, so that Scale's products
// stay exact in 128 bits and a typo is an error.
const maxSegmentDen = 1_000_000

// NewSegment returns segment i of n equal segments, [i/n, (i+1)/n); i counts
// from 0 to n-1 (the index a Kubernetes Indexed Job gives its pods as
// JOB_COMPLETION_INDEX).
func NewSegment(i, n int) (Segment, error) {
	if n < 1 || n > maxSegmentDen {
		return Segment{}, fmt.Errorf("split: segment count must be in 1..%d, got %d", maxSegmentDen, n)
	}
	if i < 0 || i >= n {
		return Segment{}, fmt.Errorf("split: segment index must be in 0..%d for %d segments, got %d", n-1, n, i)
	}
	return Segment{from: int64(i), to: int64(i + 1), den: int64(n)}, nil
}

// ParseSegment parses "i/n" (segment i of n equal segments, i from 0) or
// k6's "FROM:TO" with each bound a fraction or decimal ("0:1/3",
// "1/3:2/3", "0.5:1"). The empty string is the whole run.
func ParseSegment(s string) (Segment, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Segment{}, nil
	}
	if from, to, ok := strings.Cut(s, ":"); ok {
		a, err := parseFraction(from)
		if err != nil {
			return Segment{}, fmt.Errorf("split: segment %q: start: %w", s, err)
		}
		b, err := parseFraction(to)
		if err != nil {
			return Segment{}, fmt.Errorf("split: segment %q: end: %w", s, err)
		}
		if a.Sign() < 0 || b.Cmp(big.NewRat(1, 1)) > 0 || a.Cmp(b) >= 0 {
			return Segment{}, fmt.Errorf("split: segment %q: want 0 ≤ start < end ≤ 1", s)
		}
		// A common denominator: lcm of the two.
		da, db := a.Denom(), b.Denom()
		g := new(big.Int).GCD(nil, nil, da, db)
		den := new(big.Int).Mul(da, new(big.Int).Div(db, g))
		if !den.IsInt64() || den.Int64() > maxSegmentDen {
			return Segment{}, fmt.Errorf("split: segment %q: denominator above %d", s, maxSegmentDen)
		}
		d := den.Int64()
		return Segment{
			from: a.Num().Int64() * (d / da.Int64()),
			to:   b.Num().Int64() * (d / db.Int64()),
			den:  d,
		}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Segment{}, fmt.Errorf("split: segment %q: want i/N (i from 0 to N-1) or FROM:TO (e.g. 0:1/3)", s)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if err1 != nil || err2 != nil {
		return Segment{}, fmt.Errorf("split: segment %q: want i/N with whole numbers (i from 0 to N-1)", s)
	}
	return NewSegment(i, n)
}

func parseFraction(s string) (*big.Rat, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty")
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("%q is not a fraction or decimal", s)
	}
	return r, nil
}

// IsWhole reports whether s is the whole run [0, 1).
func (s Segment) IsWhole() bool { return s.den == 0 || (s.from == 0 && s.to == s.den) }

// Fraction is the segment's size, To − From.
func (s Segment) Fraction() float64 {
	if s.den == 0 {
		return 1
	}
	return float64(s.to-s.from) / float64(s.den)
}

// String is "i/n" for a segment of equal ones, else "from:to" as
// fractions; "" for the whole run.
func (s Segment) String() string {
	if s.IsWhole() {
		return ""
	}
	if s.to-s.from == 1 {
		return fmt.Sprintf("%d/%d", s.from, s.den)
	}
	return big.NewRat(s.from, s.den).RatString() + ":" + big.NewRat(s.to, s.den).RatString()
}

// floorMul is floor(v·num/den) for v ≥ 0, exact.
func floorMul(v, num, den int64) int64 {
	hi, lo := bits.Mul64(uint64(v), uint64(num))
	q, _ := bits.Div64(hi, lo, uint64(den)) // hi < den since num ≤ den
	return int64(q)
}

// Scale is the segment's share of the non-negative integer quantity v,
// floor(v·To) − floor(v·From). The shares of segments that tile [0, 1) add
// up to v exactly. Negative v scales to 0.
func (s Segment) Scale(v int64) int64 {
	if s.den == 0 {
		return v
	}
	if v <= 0 {
		return 0
	}
	return floorMul(v, s.to, s.den) - floorMul(v, s.from, s.den)
}

// scaleAlong is the segment's share of v split along the segment's share
// of along: v·a(To)/along − v·a(From)/along, each floored, where
// a(x) = floor(along·x) is the split of along itself (Scale). The shares
// of segments that tile [0, 1) telescope to v exactly, and a segment whose
// share of along is 0 gets 0 of v (Closed splits Total along the VUs this
// way, so that no share of the requests lands on a segment without VUs).
// along ≤ 0 splits v by Scale.
func (s Segment) scaleAlong(v, along int64) int64 {
	if s.den == 0 {
		return v
	}
	if along <= 0 {
		return s.Scale(v)
	}
	if v <= 0 {
		return 0
	}
	aTo, aFrom := floorMul(along, s.to, s.den), floorMul(along, s.from, s.den)
	return floorMul(v, aTo, along) - floorMul(v, aFrom, along)
}

// owns reports whether whole-schedule arrival n (from 0) is this segment's.
// Arrival n has the position frac(n/φ) in [0, 1), in exact 64-bit fixed
// point (pos(n) = n·g mod 2⁶⁴ with g the odd integer nearest 2⁶⁴/φ), and
// the segment owns the positions in [From, To): pos·den/2⁶⁴ is compared
// with from and to exactly, so ownership depends only on the fractions
// From and To, not on how they are written. Segments that tile [0, 1)
// therefore own every arrival exactly once, whatever their denominators,
// and the golden-ratio sequence spreads each segment's arrivals evenly
// over the schedule (consecutive arrivals land far apart, and any run of
// arrivals holds each segment's fraction of them to within a few).
func (s Segment) owns(n int64) bool {
	if s.den == 0 {
		return true
	}
	h, _ := bits.Mul64(arrivalPos(n), uint64(s.den)) // floor(pos·den/2⁶⁴)
	return h >= uint64(s.from) && h < uint64(s.to)
}

// phiStride is the odd integer nearest 2⁶⁴/φ.
const phiStride = 0x9E3779B97F4A7C15

// arrivalPos is arrival n's position frac(n/φ), as a 64-bit fraction.
func arrivalPos(n int64) uint64 { return uint64(n) * phiStride }

// ownedBefore counts the arrivals before number m that the segment owns,
// by the rule of owns, in O(log m) exact integer steps.
func (s Segment) ownedBefore(m int64) int64 {
	if s.den == 0 || m <= 0 {
		return max(m, 0)
	}
	return posAtLeast(m, s.threshold(s.from)) - posAtLeast(m, s.threshold(s.to))
}

// threshold is the least 64-bit position at or above x/den:
// ceil(x·2⁶⁴/den), as a big integer (2⁶⁴ for x = den).
func (s Segment) threshold(x int64) *big.Int {
	t := new(big.Int).Lsh(big.NewInt(x), 64)
	d := big.NewInt(s.den)
	t.Add(t, d).Sub(t, big.NewInt(1))
	return t.Quo(t, d)
}

// posAtLeast counts the n in [0, m) with arrivalPos(n) ≥ a (0 ≤ a ≤ 2⁶⁴).
// With M = 2⁶⁴ and pos(n) = n·g − M·floor(n·g/M), pos(n) ≥ a exactly when
// floor((n·g + M − a)/M) − floor(n·g/M) is 1 (else it is 0), so the count
// is a difference of two floor sums.
func posAtLeast(m int64, a *big.Int) int64 {
	M := new(big.Int).Lsh(big.NewInt(1), 64)
	g := new(big.Int).SetUint64(phiStride)
	b := new(big.Int).Sub(M, a)
	c := new(big.Int).Sub(floorSum(m, M, g, b), floorSum(m, M, g, new(big.Int)))
	return c.Int64()
}

// floorSum is Σ_{i=0}^{n-1} floor((a·i + b)/m) for n ≥ 0, m ≥ 1, a, b ≥ 0,
// exact. It reduces a and b modulo m (taking out the whole parts, which
// sum in closed form), then counts the lattice points under the line the
// other way round (swapping the roles of m and a), as Euclid's algorithm
// does, so it takes O(log m) steps.
func floorSum(n int64, m, a, b *big.Int) *big.Int {
	N := big.NewInt(n)
	m, a, b = new(big.Int).Set(m), new(big.Int).Set(a), new(big.Int).Set(b)
	sum := new(big.Int)
	q, t := new(big.Int), new(big.Int)
	for N.Sign() > 0 {
		if a.Cmp(m) >= 0 { // Σ i·floor(a/m) = n(n−1)/2·floor(a/m)
			q.QuoRem(a, m, a)
			t.Sub(N, big.NewInt(1)).Mul(t, N).Rsh(t, 1).Mul(t, q)
			sum.Add(sum, t)
		}
		if b.Cmp(m) >= 0 { // Σ floor(b/m) = n·floor(b/m)
			q.QuoRem(b, m, b)
			sum.Add(sum, t.Mul(N, q))
		}
		// Now a, b < m. The terms count the points (i, y) with
		// 1 ≤ y ≤ (a·i + b)/m, i < n; counted by y instead, they are a
		// floor sum with n' = floor((a·n + b)/m) rows and m, a swapped.
		yMax := new(big.Int).Mul(a, N)
		yMax.Add(yMax, b)
		if yMax.Cmp(m) < 0 {
			break
		}
		N.QuoRem(yMax, m, b)
		m, a = a, m
	}
	return sum
}

// Apply returns this segment's share of model m, a model load.Run runs
// as it runs any other:
//
//   - Burst and Sequential: their share of N;
//   - Closed: its share of VUs, and of Total split along the VUs (a
//     segment's share of Total is in proportion to its share of the VUs,
//     so a segment without VUs has none); Iterations stay per VU,
//     Duration and Think stay;
//   - RampingVUs: a schedule whose level at every instant is the
//     segment's share of the whole's level then (so the agents' VUs add
//     up to the whole's at every moment); Think stays;
//   - Open and RampingRate: the whole's arrival schedule, of which the
//     share sends only the arrivals this segment owns, at their times in
//     the whole schedule (an Open with a segment pacer), with MaxInFlight
//     scaled (at least 1);
//   - Idle: itself.
//
// A share may be empty (1 VU over 3 segments): it is then load.Idle{}, a
// run that sends nothing. The whole model is validated first; any other
// Model is an error.
func (s Segment) Apply(m load.Model) (load.Model, error) {
	if m == nil {
		return nil, fmt.Errorf("split: no model")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if s.IsWhole() {
		return m, nil
	}
	scaleInt := func(v int) int { return int(s.Scale(int64(v))) }
	inFlight := func(n int) int {
		if n == 0 {
			n = load.DefaultMaxInFlight
		}
		return max(scaleInt(n), 1)
	}
	switch m := m.(type) {
	case load.Burst:
		if n := scaleInt(m.N); n > 0 {
			return load.Burst{N: n}, nil
		}
	case load.Sequential:
		if n := scaleInt(m.N); n > 0 {
			return load.Sequential{N: n}, nil
		}
	case load.Closed:
		vus := scaleInt(m.VUs)
		total := int(s.scaleAlong(int64(m.Total), int64(m.VUs)))
		if vus > 0 && (m.Total == 0 || total > 0) {
			return load.Closed{VUs: vus, Duration: m.Duration, Iterations: m.Iterations, Total: total, Think: m.Think}, nil
		}
	case load.RampingVUs:
		whole := m.Schedule
		if whole == nil {
			whole = load.StagesVUs{Start: m.Start, Stages: m.Stages}
		}
		sched := &segmentVUs{whole: whole, seg: s, label: m.String()}
		if sched.Max() > 0 {
			return load.RampingVUs{Think: m.Think, Schedule: sched}, nil
		}
	case load.Open:
		return load.Open{Pacer: &segmentPacer{whole: m.Schedule(), seg: s, label: m.String()},
			MaxInFlight: inFlight(m.MaxInFlight), DropWhenBusy: m.DropWhenBusy}, nil
	case load.RampingRate:
		return load.Open{Pacer: &segmentPacer{whole: m.Schedule(), seg: s, label: m.String()},
			MaxInFlight: inFlight(m.MaxInFlight), DropWhenBusy: m.DropWhenBusy}, nil
	case load.Idle:
		return m, nil
	default:
		return nil, fmt.Errorf("split: a segment cannot split model %T", m)
	}
	return load.Idle{}, nil
}

// segmentVUs is the segment's share of a whole VU schedule: at every
// instant, Scale of the whole's level.
type segmentVUs struct {
	whole load.VUSchedule
	seg   Segment
	label string
	most  int // Max, once computed (-1: not yet)
	known bool
}

func (v *segmentVUs) VUs(elapsed time.Duration) (int, bool) {
	n, done := v.whole.VUs(elapsed)
	return int(v.seg.Scale(int64(n))), done
}

// Max is the most VUs the share ever runs: the largest share of any level
// up to the whole's most (a share is not monotone in the level).
func (v *segmentVUs) Max() int {
	if !v.known {
		for n := int64(0); n <= int64(v.whole.Max()); n++ {
			v.most = max(v.most, int(v.seg.Scale(n)))
		}
		v.known = true
	}
	return v.most
}

func (v *segmentVUs) Duration() time.Duration { return v.whole.Duration() }

func (v *segmentVUs) String() string { return v.label + " segment " + v.seg.String() }

// segmentPacer sends the segment's share of a whole-schedule pacer: its
// k-th hit is the whole's k-th arrival that the segment owns. Arrival
// numbers are found incrementally, so each Pace is O(1) amortised.
type segmentPacer struct {
	whole load.Pacer
	seg   Segment
	label string
	k     int64 // hits for which n is computed
	n     int64 // whole arrival number of segment hit k
	init  bool
}

func (p *segmentPacer) wholeIndex(k int64) int64 {
	if !p.init || k < p.k {
		p.k, p.n, p.init = 0, 0, true
		for !p.seg.owns(p.n) {
			p.n++
		}
	}
	for p.k < k {
		p.n++
		for !p.seg.owns(p.n) {
			p.n++
		}
		p.k++
	}
	return p.n
}

// Pace implements load.Pacer.
func (p *segmentPacer) Pace(elapsed time.Duration, hits int64) (time.Duration, bool) {
	return p.whole.Pace(elapsed, p.wholeIndex(hits))
}

// Rate implements load.Pacer: the segment's share of the whole rate.
func (p *segmentPacer) Rate(elapsed time.Duration) float64 {
	return p.whole.Rate(elapsed) * p.seg.Fraction()
}

// Plan implements load.Planner: the whole's duration and the arrivals the
// segment owns among the whole's (0, unknown, when the whole does not
// plan them).
func (p *segmentPacer) Plan() (time.Duration, int64) {
	pl, ok := p.whole.(load.Planner)
	if !ok {
		return 0, 0
	}
	d, n := pl.Plan()
	if n == 0 {
		return d, 0
	}
	return d, p.seg.ownedBefore(n)
}

func (p *segmentPacer) String() string {
	return strings.TrimPrefix(p.label, "open ") + " segment " + p.seg.String()
}
