package pymodel_test

import (
	"context"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// A uvicorn process that pays FastAPI's own cost per request: each request
// is charged half of Loop on the event loop before its handler and half
// after it, holding the GIL — traced as framework, inside the loop's
// blocked callbacks.
func ExampleFrameworkCost() {
	rec := trace.NewRecorder(0)
	rt, err := pymodel.New(pymodel.Config{Framework: pymodel.FrameworkCost{Loop: 400 * time.Microsecond}, Trace: rec})
	if err != nil {
		panic(err)
	}
	if err := rt.Start(context.Background()); err != nil {
		panic(err)
	}
	defer rt.Close()
	h := pymodel.Handler{Async: true, Steps: []pymodel.Step{pymodel.Sleep(time.Millisecond)}}
	for range 3 {
		if _, err := rt.Handle(context.Background(), h); err != nil {
			panic(err)
		}
	}
	evs := rec.Snapshot().Events
	in, all := trace.Within(evs, trace.Framework, trace.LoopBlocked)
	fmt.Printf("%d framework charges, %d inside a loop callback\n", all, in)
	fmt.Println(rt.Stats().CPU >= 3*400*time.Microsecond)
	// Output:
	// 6 framework charges, 6 inside a loop callback
	// true
}
