package cpython_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/sources/s001"
)

// A Real strategy is one source app on this machine's CPython; it goes in
// an Experiment beside any model strategy (a source's package builds its
// App: sources/s001's is its FastAPI app under uvicorn).
func ExampleReal() {
	r := cpython.Real{Name: "real /async-ok", App: s001.Default.App(), Endpoint: s001.AsyncOK}
	fmt.Println(r.Label(), r.RequestPath(), r.Validate())
	// Output: real /async-ok /async-ok <nil>
}

// The model and the real app in one bench.Run. (Not run as a test: it
// needs conclab's Python environment.)
func ExampleReal_inOneRun() {
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: []strategy.Strategy{
			strategy.Uvicorn{Name: "/async-block", Async: true, IOCall: pymodel.Block},
			cpython.Real{Name: "real /async-block", App: s001.Default.App(), Endpoint: s001.AsyncBlock},
		},
		Workload: pymodel.Workload{Steps: []pymodel.Step{pymodel.Sleep(time.Second)}},
		Load:     load.Burst{N: 10},
	})
	if errors.Is(err, cpython.ErrUnavailable) {
		return // no real CPython here: show the model only
	}
	fmt.Println(res, err)
}

// A missing module is a *MissingError naming its PyPI distribution.
func ExampleMissingError() {
	err := error(&cpython.MissingError{Python: "/x/.venv/bin/python", Modules: []string{"PIL"}, Distributions: []string{"pillow"}})
	fmt.Println(errors.Is(err, cpython.ErrUnavailable))
	fmt.Println(err)
	// Output:
	// true
	// cpython: /x/.venv/bin/python cannot import PIL (PyPI: pillow); conclab's environment has them: run `bash scripts/setup.sh`
}

// A Server is what Real starts: an app in its own process group on a
// loopback port. (Not run as a test: it needs conclab's Python
// environment.)
func ExampleServer() {
	ctx := context.Background()
	srv := cpython.NewServer(s001.Default.App(), cpython.Options{})
	if err := srv.Start(ctx); err != nil {
		fmt.Println(err) // a *MissingError without the environment
		return
	}
	defer srv.Close()
	f, err := s001.Bench(ctx, cpython.Options{}, s001.SyncSleep, srv.URL()+s001.SyncSleep, 10)
	fmt.Println(f, err)
}
