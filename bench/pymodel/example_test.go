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
