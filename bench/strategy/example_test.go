package strategy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

// A preset is a plain value: print it, change it, serve it.
func ExamplePreset() {
	s, err := strategy.Preset("flask 1w x 5t")
	if err != nil {
		panic(err)
	}
	fmt.Println(s)
	s.Name, s.Threads = "flask 1w x 20t", 20
	fmt.Println(s)
	// Output:
	// flask 1w x 5t: gunicorn 1w x 5t, def
	// flask 1w x 20t: gunicorn 1w x 20t, def
}

func ExampleNewPreset() {
	srv, err := strategy.NewPreset("/async-ok", "sleep=100ms")
	if err != nil {
		panic(err)
	}
	if err := srv.Start(context.Background()); err != nil {
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
	srv, err := strategy.NewPreset("/async-block", "sleep=20ms")
	if err != nil {
		panic(err)
	}
	srv.TraceEvents = 10_000
	if err := srv.Start(context.Background()); err != nil {
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
