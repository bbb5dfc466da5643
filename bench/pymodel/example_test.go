package pymodel_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
)

// Source 001's bug: time.sleep inside async def blocks the event loop, so
// concurrent requests run one after another; awaiting the sleep does not.
func ExampleRuntime_Handle() {
	rt, err := pymodel.New(pymodel.Config{})
	if err != nil {
		panic(err)
	}
	if err := rt.Start(context.Background()); err != nil {
		panic(err)
	}
	defer rt.Close()

	run := func(call pymodel.Call) time.Duration {
		s := pymodel.Sleep(100 * time.Millisecond)
		s.Call = call
		h := pymodel.Handler{Async: true, Steps: []pymodel.Step{s}}
		var wg sync.WaitGroup
		start := time.Now()
		for i := 0; i < 5; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rt.Handle(context.Background(), h)
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	blocked, awaited := run(pymodel.Block), run(pymodel.Await)
	fmt.Println("blocking: 5 waits in a row:", blocked >= 500*time.Millisecond)
	fmt.Println("awaited: overlapping:", awaited < 250*time.Millisecond)
	fmt.Println("slow callbacks:", rt.Stats().Loop.SlowCallbacks)
	// Output:
	// blocking: 5 waits in a row: true
	// awaited: overlapping: true
	// slow callbacks: 5
}

func ExampleParseWorkload() {
	w, err := pymodel.ParseWorkload("cpu=10_000_000,sleep=1s:await,burn=50ms:nogil")
	if err != nil {
		panic(err)
	}
	for _, s := range w.Steps {
		fmt.Println(s, "io:", s.IsIO())
	}
	_, err = pymodel.ParseWorkload("sleep=0s")
	fmt.Println(err)
	// Output:
	// cpu=10000000 io: false
	// sleep=1s:await io: true
	// burn=50ms:nogil io: false
	// pymodel: sleep step: duration must be positive, got 0s
}

func ExampleDefaultExecutorSize() {
	// asyncio.to_thread on the source's 8-core laptop vs this 2-core box.
	fmt.Println(pymodel.DefaultExecutorSize(8), pymodel.DefaultExecutorSize(2), pymodel.DefaultExecutorSize(64))
	// Output: 12 6 32
}

// A C extension call that holds the GIL for a fifth of its work: the held
// part, then the released part; shares outside 0..1 are refused.
func ExampleBurnHeld() {
	s := pymodel.BurnHeld(100*time.Millisecond, 0.2)
	fmt.Printf("%v %.2f %v\n", s, s.HeldShare(), s.Validate())
	w, err := pymodel.ParseWorkload("burn=50ms:held=0.25,cpu=1000:held=1")
	fmt.Println(w, err)
	s.GILReleased = 1.5
	fmt.Println(s.Validate())
	fmt.Println(pymodel.Seq("convert_image", pymodel.BurnHeld(10*time.Millisecond, 0.1), pymodel.BurnNoGIL(time.Millisecond)))
	// Output:
	// burn=100ms:held=0.2 0.20 <nil>
	// burn=50ms:held=0.25,cpu=1000 <nil>
	// pymodel: step burn=100ms:held=-0.5: GILReleased must be between 0 and 1 (a share of the step's work; held share = 1 - GILReleased), got 1.5
	// convert_image[burn=10ms:held=0.1 burn=1ms:nogil]
}

// A crowd's factor for a count at once: linear between its points, the
// last point's beyond them.
func ExampleCrowd_Factor() {
	c := &pymodel.Crowd{Key: "convert_image", Factors: []pymodel.CrowdFactor{{N: 1, Factor: 0.9}, {N: 20, Factor: 1.14}}}
	fmt.Printf("%.2f %.2f %.2f\n", c.Factor(1), c.Factor(10), c.Factor(40))
	step := pymodel.Seq("convert_image", pymodel.BurnNoGIL(100*time.Millisecond))
	step.Crowd = c
	fmt.Println(step.Label(), step.Validate())
	// Output:
	// 0.90 1.01 1.14
	// convert_image[burn=100ms:nogil]:crowd(1:0.9 20:1.14) <nil>
}
