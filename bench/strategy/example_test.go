package strategy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

// A preset is a value of its family's type: print it, change a field, serve
// it.
func ExamplePreset() {
	s, err := strategy.Preset("flask 1w x 5t")
	if err != nil {
		panic(err)
	}
	fmt.Println(s)
	g := s.(strategy.Gunicorn)
	g.Name, g.Threads = "flask 1w x 20t", 20
	fmt.Println(g)
	// Output:
	// flask 1w x 5t: gunicorn 1w x 5t, def
	// flask 1w x 20t: gunicorn 1w x 20t, def
}

// A family's value is a strategy of its own; an empty Name labels it from
// its fields.
func ExampleUvicorn() {
	for _, s := range []strategy.Strategy{
		strategy.Uvicorn{Async: true, IOCall: pymodel.Await},
		strategy.Uvicorn{Name: "/sync-sleep", Python: strategy.Python{CPUs: 8}},
		strategy.Gunicorn{Workers: 2, Threads: 5},
		strategy.Bounded{Limit: 4},
		strategy.GoProcessPool{Workers: 2},
	} {
		fmt.Printf("%-20s valid: %v\n", s.Label(), s.Validate() == nil)
	}
	fmt.Println(strategy.Bounded{Name: "none at once"}.Validate())
	// Output:
	// uvicorn 1w async def valid: true
	// /sync-sleep          valid: true
	// gunicorn 2w x 5t     valid: true
	// bounded 4            valid: true
	// go process pool      valid: true
	// strategy "none at once": bounded needs a positive Limit, got 0
}

func ExampleStrategy_Start() {
	w, err := pymodel.ParseWorkload("sleep=100ms")
	if err != nil {
		panic(err)
	}
	srv, err := strategy.MustPreset("/async-ok").Start(context.Background(), w, strategy.StartOptions{})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	resp, err := http.Get(srv.URL() + "/async-ok")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.StatusCode, " ", string(body))
	fmt.Println("requests:", srv.Stats().Requests)
	// Output:
	// 200 ok
	// requests: 1
}

// A traced server: a burst through the model, read back as a trace.
func ExampleServer_Trace() {
	w := pymodel.Workload{Steps: []pymodel.Step{pymodel.Sleep(20 * time.Millisecond)}}
	srv, err := strategy.MustPreset("/async-block").Start(context.Background(), w, strategy.StartOptions{TraceEvents: 10_000})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp, err := http.Get(srv.URL() + "/work"); err == nil {
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	tr, err := srv.Trace()
	if err != nil {
		panic(err)
	}
	fmt.Println("handlers at once:", trace.MaxOverlap(tr.Events, trace.Handler))
	fmt.Println("waves:", trace.Waves(tr.Events, trace.Handler))
	// Output:
	// handlers at once: 1
	// waves: [1 1 1]
}
