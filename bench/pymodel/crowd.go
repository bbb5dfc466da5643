package pymodel

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Crowd makes a CPU step cost more (or less) the more steps of its kind run
// at once in its process. Work that allocates a lot afresh pays for it in
// page faults and the allocator's locks: source 000's 8K image pipeline
// maps and zeroes hundreds of megabytes a run, and on this kind of machine
// it costs about a fifth more with twenty conversions in flight in one
// CPython process than alone, while two processes converting at once pay
// nothing extra (py/calibrate.py measures it; bench/cpython's
// ConvertImageStep sets it).
//
// The count is of the steps with the same Key that are running in the
// step's process (a runtime, a prefork worker, a process-pool worker),
// this one included, taken as each of its burns starts: a seq step's
// count is taken before each of its steps, so a conversion that began
// alone and is joined by others pays more for its later steps.
type Crowd struct {
	// Key names the steps counted together; "" counts by the step's Name
	// (by its Label when it has no Name either).
	Key string `json:"key,omitempty"`
	// Factors multiply the step's cost (a burn's Duration, a cpu step's N,
	// every such step inside a seq) by how many run at once: linear
	// between the points given, the first point's factor below it, the
	// last's above it. At least one point; N at least 1 and ascending,
	// factors positive. A factor need not be 1 at N = 1: the step's own
	// cost can be a measure taken otherwise (bench/cpython's convert
	// steps are timed one by one, its crowd as a whole pipeline).
	Factors []CrowdFactor `json:"factors"`
}

// CrowdFactor multiplies a step's own cost (its Duration or N) when N of
// its kind run at once.
type CrowdFactor struct {
	N      int     `json:"n"`
	Factor float64 `json:"factor"`
}

// Factor is the cost factor with n steps of the crowd running at once.
func (c *Crowd) Factor(n int) float64 {
	if c == nil || len(c.Factors) == 0 {
		return 1
	}
	f := c.Factors
	if n <= f[0].N {
		return f[0].Factor
	}
	for i := 1; i < len(f); i++ {
		if n <= f[i].N {
			a, b := f[i-1], f[i]
			return a.Factor + (b.Factor-a.Factor)*float64(n-a.N)/float64(b.N-a.N)
		}
	}
	return f[len(f)-1].Factor
}

// validate reports factors that are not a usable table; key is the
// effective key (Step.crowdKey), named in errors.
func (c *Crowd) validate(key string) error {
	if len(c.Factors) == 0 {
		return fmt.Errorf("crowd %q has no factors", key)
	}
	for i, p := range c.Factors {
		switch {
		case p.N < 1:
			return fmt.Errorf("crowd %q: point %d has n = %d, want at least 1", key, i+1, p.N)
		case i > 0 && p.N <= c.Factors[i-1].N:
			return fmt.Errorf("crowd %q: point %d has n = %d after n = %d, want n ascending", key, i+1, p.N, c.Factors[i-1].N)
		case math.IsNaN(p.Factor) || math.IsInf(p.Factor, 0) || p.Factor <= 0:
			return fmt.Errorf("crowd %q: point %d (n = %d) has factor %v, want a positive number", key, i+1, p.N, p.Factor)
		}
	}
	return nil
}

// label is a short description such as "crowd(1:1 20:1.2)".
func (c *Crowd) label() string {
	parts := make([]string, len(c.Factors))
	for i, p := range c.Factors {
		parts[i] = strconv.Itoa(p.N) + ":" + strconv.FormatFloat(p.Factor, 'g', 3, 64)
	}
	return "crowd(" + strings.Join(parts, " ") + ")"
}

// crowds counts the crowd steps running in one process, by key.
type crowds struct {
	mu sync.Mutex
	n  map[string]int
}

// enter counts one more step of key running and returns a func that
// counts it out.
func (c *crowds) enter(key string) (leave func()) {
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[key]++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.n[key]--
		c.mu.Unlock()
	}
}

// count is how many steps of key are running.
func (c *crowds) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// crowdKey is the key s's crowd counts by: Crowd.Key, else Name, else
// Label (built only then: a step runs it on every call).
func (s Step) crowdKey() string {
	if k := cmp.Or(s.Crowd.Key, s.Name); k != "" {
		return k
	}
	return s.Label()
}

// scaled is s with its CPU work multiplied by f: a burn's Duration, a cpu
// step's N, and those of a seq's steps. Other steps are as they are.
func scaled(s Step, f float64) Step {
	if f == 1 {
		return s
	}
	switch s.Kind {
	case KindBurn:
		s.Duration = max(time.Duration(math.Round(float64(s.Duration)*f)), 1)
	case KindCPU:
		s.N = max(int(math.Round(float64(s.N)*f)), 1)
	case KindSeq:
		subs := make([]Step, len(s.Steps))
		for i, sub := range s.Steps {
			subs[i] = scaled(sub, f)
		}
		s.Steps = subs
	}
	return s
}
