package lab_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/lab"
	"github.com/conclab/conclab/widgets"
)

type cellRec struct {
	mu   sync.Mutex
	outs []display.Data
}

func (r *cellRec) Display(d display.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outs = append(r.outs, d)
	return nil
}
func (r *cellRec) Update(id string, d display.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.outs {
		if r.outs[i].DisplayID() == id {
			r.outs[i] = d
		}
	}
	return nil
}
func (r *cellRec) Clear(bool) error { return nil }

// Headless, a Try's outputs are the cell's: the controls (their view, a
// static form with the values), the live chart, the progress line, the
// table, the waterfall.
func TestTryHeadlessOutputs(t *testing.T) {
	rec := &cellRec{}
	defer display.SetPublisher(rec)()
	strategies, err := bench.Presets("goroutines")
	if err != nil {
		t.Fatal(err)
	}
	vus := widgets.NewIntSlider("VUs", 3, 1, 20)
	err = lab.Try{
		Controls: []widgets.Widget{vus},
		Live:     true,
		Experiment: func() (bench.Experiment, error) {
			return bench.Experiment{Name: "try", Strategies: strategies, Workload: bench.Steps(bench.Sleep(2 * time.Millisecond)),
				Load: load.Closed{VUs: vus.Value(), Duration: 600 * time.Millisecond}}, nil
		},
	}.Show()
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var kinds []string
	for _, d := range rec.outs {
		switch {
		case d.Data[widgets.ViewMIME] != nil:
			kinds = append(kinds, "controls")
			if h, _ := d.Data[display.MIMETypeHTML].(string); !strings.Contains(h, `<output>3</output>`) {
				t.Errorf("the controls' static form does not show VUs = 3: %s", h)
			}
		case d.Data[charts.MIMEType] != nil && strings.Contains(d.Data[display.MIMETypeText].(string), "over time"):
			kinds = append(kinds, "live")
		case d.Data[charts.MIMEType] != nil:
			kinds = append(kinds, "picture")
		case strings.Contains(d.Data[display.MIMETypeText].(string), "goroutines") && strings.Contains(d.Data[display.MIMETypeText].(string), "rps"):
			kinds = append(kinds, "table")
		default:
			kinds = append(kinds, "other")
		}
	}
	if got := strings.Join(kinds, " "); got != "controls other live table picture" {
		t.Errorf("outputs %q; want the controls, the progress line, the live chart, the table, the waterfall", got)
	}
}

// A Try without an experiment or controls is an error naming what is
// missing; an experiment refusing its values fails the run, saying so.
func TestTryErrors(t *testing.T) {
	n := widgets.NewIntSlider("n", 1, 1, 2)
	build := func() (bench.Experiment, error) { return bench.Experiment{}, errors.New("two tokens need two workers") }
	for _, c := range []struct {
		try  lab.Try
		want string
	}{
		{lab.Try{Controls: []widgets.Widget{n}}, "no Experiment"},
		{lab.Try{Experiment: build}, "no controls"},
		{lab.Try{Experiment: build, Controls: []widgets.Widget{n}}, "the experiment for these values: two tokens need two workers"},
	} {
		if err := c.try.Show(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Show() = %v; want an error with %q", err, c.want)
		}
	}
}
