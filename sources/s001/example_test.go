package s001_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/sources/s001"
)

// The arithmetic before the run: 100 requests at once take three waves
// of AnyIO's 40 tokens on /sync-sleep, a hundred on /async-block, one on
// /async-ok and nine of /offload's 12 threads on an 8-core laptop.
func ExampleKnobs_Estimate() {
	k := s001.Default
	k.N = 100
	fmt.Print(k.Estimate())
	// Output:
	// source 001 estimated: 100 requests at once, 1s each
	// strategy      at_once  waves  waits  elapsed_s
	// /sync-sleep        40      3      3          3
	// /async-block        1    100    100        100
	// /async-ok         100      1      1          1
	// /offload           12      9      9          9
}

// Each endpoint's model is a literal that reads as its Python.
func ExampleKnobs_Strategy() {
	s, _ := s001.Default.Strategy(s001.AsyncBlock)
	fmt.Printf("async def: %v, time.sleep called as %q, AnyIO tokens %d, CPUs %d\n", s.Async, s.IOCall, s.Limiter, s.Python.CPUs)
	// Output: async def: true, time.sleep called as "block", AnyIO tokens 40, CPUs 8
}

// Versus pairs every endpoint's model with the real app.
func ExampleKnobs_Versus() {
	k := s001.Knobs{N: 10, Wait: 200 * time.Millisecond, Limiter: 40, CPUs: 8}
	var labels []string
	for _, s := range k.Versus(cpython.Options{}).Strategies {
		labels = append(labels, s.Label())
	}
	fmt.Println(strings.Join(labels, ", "))
	// Output: /sync-sleep, real /sync-sleep, /async-block, real /async-block, /async-ok, real /async-ok, /offload, real /offload
}

// The Python under judgment, from the app the lab runs.
func ExampleCode() {
	code, _ := s001.Code("app001.py")
	i := strings.Index(code, "async def async_block")
	fmt.Println(strings.SplitN(code[i:], "\n", 3)[:2])
	// Output: [async def async_block(s: str = None):     """비동기 함수 안에서 일반 대기 (잘못된 코드: blocks the event loop)"""]
}
