package widgets_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
	"github.com/conclab/conclab/kernel/comm"
	"github.com/conclab/conclab/widgets"
)

// frontEnd is a comm transport keeping what the kernel side publishes; the
// tests deliver what a front end would send with comm.Deliver. (The real
// front ends are exercised by kernel/testdata/test_widgets.py through
// jupyter_client and widgets/browser/widgets.mjs in Chromium.)
type frontEnd struct {
	mu   sync.Mutex
	msgs []published
}

type published struct {
	kind    comm.Kind
	id      string
	data    map[string]any
	meta    map[string]any
	parent  any
	buffers [][]byte
}

func (f *frontEnd) Publish(kind comm.Kind, content, metadata map[string]any, buffers [][]byte, parent any) error {
	// Round-trip through JSON, as the wire does.
	b, err := json.Marshal(content)
	if err != nil {
		return err
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	data, _ := c["data"].(map[string]any)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, published{kind, c["comm_id"].(string), data, metadata, parent, buffers})
	return nil
}

func (f *frontEnd) take() []published {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.msgs
	f.msgs = nil
	return out
}

// connect installs a front end for the test (the package state is per
// process: these tests are not parallel).
func connect(t *testing.T) *frontEnd {
	f := &frontEnd{}
	t.Cleanup(comm.SetTransport(f))
	return f
}

func send(t *testing.T, id string, data any, parent string) error {
	t.Helper()
	b, err := json.Marshal(map[string]any{"comm_id": id, "data": data})
	if err != nil {
		t.Fatal(err)
	}
	return comm.Deliver(comm.KindMsg, b, nil, nil, parent)
}

func update(t *testing.T, id string, state map[string]any, parent string) error {
	return send(t, id, map[string]any{"method": "update", "state": state, "buffer_paths": []any{}}, parent)
}

func TestOpenState(t *testing.T) {
	f := connect(t)
	s := widgets.NewIntSlider("VUs", 500, 1, 200)
	msgs := f.take()
	if len(msgs) != 3 {
		t.Fatalf("%d messages; want the layout's, the style's and the slider's comm_open", len(msgs))
	}
	layout, style, slider := msgs[0], msgs[1], msgs[2]
	for _, m := range msgs {
		if m.kind != comm.KindOpen || m.meta["version"] != widgets.ProtocolVersion {
			t.Errorf("%s %v; want comm_open with version %s", m.kind, m.meta, widgets.ProtocolVersion)
		}
	}
	st := slider.data["state"].(map[string]any)
	want := map[string]any{"_model_name": "IntSliderModel", "_view_name": "IntSliderView", "_model_module": "@jupyter-widgets/controls",
		"_model_module_version": "2.0.0", "value": 200.0, "min": 1.0, "max": 200.0, "description": "VUs",
		"layout": "IPY_MODEL_" + layout.id, "style": "IPY_MODEL_" + style.id}
	for k, v := range want {
		if st[k] != v {
			t.Errorf("state[%q] = %v; want %v", k, st[k], v)
		}
	}
	if layout.data["state"].(map[string]any)["_model_name"] != "LayoutModel" || style.data["state"].(map[string]any)["_model_name"] != "SliderStyleModel" {
		t.Errorf("layout %v, style %v", layout.data["state"], style.data["state"])
	}
	d := s.Render()
	if v, _ := d.Data[widgets.ViewMIME].(map[string]any); v["model_id"] != s.ModelID() || v["version_major"] != 2 {
		t.Errorf("Render() = %v; want the widget view of %s", d.Data, s.ModelID())
	}
	if d.Data[display.MIMETypeText] != `IntSlider("VUs" = 200)` {
		t.Errorf("text form %q", d.Data[display.MIMETypeText])
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	closes := 0
	for _, m := range f.take() {
		if m.kind == comm.KindClose {
			closes++
		}
	}
	if closes != 3 || comm.Lookup(s.ModelID()) != nil {
		t.Errorf("Close sent %d comm_close; want 3 (slider, layout, style)", closes)
	}
}

func TestFrontEndUpdates(t *testing.T) {
	f := connect(t)
	islider := widgets.NewIntSlider("i", 5, 0, 10)
	fslider := widgets.NewFloatSlider("f", 0.5, 0, 1)
	rng := widgets.NewIntRangeSlider("r", 2, 8, 0, 10)
	dd, err := widgets.NewDropdown("d", []string{"8k", "7k"}, "8k")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := widgets.NewToggleButtons("t", []string{"a", "b", "c"}, "a")
	if err != nil {
		t.Fatal(err)
	}
	cb := widgets.NewCheckbox("c", false)
	tx := widgets.NewText("x", "")
	lb := widgets.NewLabel("l")
	pg := widgets.NewProgress("p", 1, 10)
	out := widgets.NewOutput()
	f.take()
	tests := []struct {
		name  string
		w     widgets.Widget
		state map[string]any
		err   string // "" when accepted
		echo  string // the echoed state, JSON
		got   func() string
		want  string
	}{
		{"int", islider, map[string]any{"value": 7}, "", `{"value":7}`, func() string { return fmt.Sprint(islider.Value()) }, "7"},
		{"int clamped", islider, map[string]any{"value": 99}, "", `{"value":10}`, func() string { return fmt.Sprint(islider.Value()) }, "10"},
		{"int from 3.0", islider, map[string]any{"value": 3.0}, "", `{"value":3}`, func() string { return fmt.Sprint(islider.Value()) }, "3"},
		{"int not a number", islider, map[string]any{"value": "abc"}, `value: want an integer, got "abc"`, `{"value":3}`, func() string { return fmt.Sprint(islider.Value()) }, "3"},
		{"int fraction", islider, map[string]any{"value": 2.5}, "value: want an integer, got 2.5", `{"value":3}`, nil, ""},
		{"float", fslider, map[string]any{"value": 0.25}, "", `{"value":0.25}`, func() string { return fmt.Sprint(fslider.Value()) }, "0.25"},
		{"float bool", fslider, map[string]any{"value": true}, "value: want a number, got true", `{"value":0.25}`, nil, ""},
		{"range", rng, map[string]any{"value": []int{3, 4}}, "", `{"value":[3,4]}`, func() string { a, b := rng.Value(); return fmt.Sprint(a, b) }, "3 4"},
		{"range reversed", rng, map[string]any{"value": []int{5, 4}}, "low 5 is above high 4", `{"value":[3,4]}`, nil, ""},
		{"range short", rng, map[string]any{"value": []int{5}}, "want [low, high], got [5]", `{"value":[3,4]}`, nil, ""},
		{"dropdown", dd, map[string]any{"index": 1}, "", `{"index":1}`, func() string { return dd.Value() }, "7k"},
		{"dropdown out of range", dd, map[string]any{"index": 2}, "index 2 is not one of the 2 options", `{"index":1}`, nil, ""},
		{"toggle", tb, map[string]any{"index": 2}, "", `{"index":2}`, func() string { return tb.Value() }, "c"},
		{"checkbox", cb, map[string]any{"value": true}, "", `{"value":true}`, func() string { return fmt.Sprint(cb.Value()) }, "true"},
		{"checkbox string", cb, map[string]any{"value": "yes"}, `value: want true or false, got "yes"`, `{"value":true}`, nil, ""},
		{"text", tx, map[string]any{"value": "héllo"}, "", `{"value":"héllo"}`, func() string { return tx.Value() }, "héllo"},
		{"description", tx, map[string]any{"description": "new"}, "", `{"description":"new"}`, func() string { return tx.Description() }, "new"},
		{"label is shown only", lb, map[string]any{"value": "x"}, "value: is shown, not set, by a front end", `{"value":"l"}`, nil, ""},
		{"progress is shown only", pg, map[string]any{"value": 5}, "value: is shown, not set, by a front end", `{"value":1}`, nil, ""},
		{"output is the kernel's", out, map[string]any{"outputs": []any{}}, "outputs: is set by the kernel", `{"outputs":[]}`, nil, ""},
		{"private", islider, map[string]any{"_model_name": "X"}, "_model_name: cannot be set from a front end", `{"_model_name":"IntSliderModel"}`, nil, ""},
		{"layout", islider, map[string]any{"layout": "IPY_MODEL_x"}, "layout: cannot be set from a front end", "kept", nil, ""},
		{"number", islider, map[string]any{"max": 5}, "max: cannot be set from a front end", `{"max":10}`, nil, ""},
		{"unknown", islider, map[string]any{"nosuch": 1}, "nosuch: no such attribute", "{}", nil, ""},
	}
	for i, tt := range tests {
		parent := fmt.Sprintf("msg-%d", i)
		err := update(t, tt.w.ModelID(), tt.state, parent)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: Deliver = %v; want error %q", tt.name, err, tt.err)
		}
		var echoes []string
		for _, m := range f.take() {
			if m.id == tt.w.ModelID() && m.data["method"] == "echo_update" {
				b, _ := json.Marshal(m.data["state"])
				echoes = append(echoes, string(b))
				if m.parent != parent {
					t.Errorf("%s: echo_update's parent %v; want the update's %s", tt.name, m.parent, parent)
				}
			}
		}
		if tt.echo == "kept" {
			if len(echoes) != 1 || !strings.Contains(echoes[0], "IPY_MODEL_") {
				t.Errorf("%s: echoed %v; want the kept reference", tt.name, echoes)
			}
		} else if tt.echo != "" && (len(echoes) != 1 || echoes[0] != tt.echo) && !(tt.echo == "{}" && len(echoes) == 0) {
			t.Errorf("%s: echoed %v; want %s", tt.name, echoes, tt.echo)
		}
		if tt.got != nil && tt.got() != tt.want {
			t.Errorf("%s: value %s; want %s", tt.name, tt.got(), tt.want)
		}
	}
	// request_state: the whole state back, as an update answering it.
	if err := send(t, islider.ModelID(), map[string]any{"method": "request_state"}, "rs"); err != nil {
		t.Fatal(err)
	}
	msgs := f.take()
	if len(msgs) != 1 || msgs[0].data["method"] != "update" || msgs[0].parent != "rs" || msgs[0].data["state"].(map[string]any)["value"] != 3.0 {
		t.Errorf("request_state answered %+v", msgs)
	}
	if err := send(t, islider.ModelID(), map[string]any{"method": "custom", "content": map[string]any{}}, "c"); err == nil {
		t.Error("a custom message to a slider: want an error")
	}
	if err := send(t, islider.ModelID(), map[string]any{"state": map[string]any{}}, "c"); err == nil || !strings.Contains(err.Error(), "needs a method") {
		t.Errorf("no method: %v", err)
	}
}

func TestHandlersAndKernelSide(t *testing.T) {
	f := connect(t)
	s := widgets.NewIntSlider("n", 1, 0, 10)
	var seen []int
	s.OnChange(func(v int) { seen = append(seen, v) })
	f.take()
	_ = update(t, s.ModelID(), map[string]any{"value": 4}, "p1")
	_ = update(t, s.ModelID(), map[string]any{"value": 4}, "p2") // unchanged: no call
	if err := s.SetValue(20); err != nil {                       // clamped to 10
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != "[4 10]" {
		t.Errorf("OnChange saw %v; want [4 10]", seen)
	}
	var sent []string
	for _, m := range f.take() {
		if m.data["method"] == "update" {
			b, _ := json.Marshal(m.data["state"])
			sent = append(sent, string(b))
		}
	}
	if fmt.Sprint(sent) != `[{"value":10}]` {
		t.Errorf("the kernel's SetValue sent %v; want one update with 10", sent)
	}
	s.OnChange(func(int) { panic("boom") })
	err := update(t, s.ModelID(), map[string]any{"value": 2}, "p3")
	if err == nil || !strings.Contains(err.Error(), "a change handler panicked: boom") {
		t.Errorf("a handler's panic: %v", err)
	}
	b := widgets.NewButton("Go")
	clicks := 0
	b.OnClick(func() { clicks++ })
	if err := send(t, b.ModelID(), map[string]any{"method": "custom", "content": map[string]any{"event": "click"}}, "k"); err != nil {
		t.Fatal(err)
	}
	if err := send(t, b.ModelID(), map[string]any{"method": "custom", "content": map[string]any{"event": "hover"}}, "k"); err == nil {
		t.Error("an unknown button event: want an error")
	}
	if clicks != 1 || b.Clicks() != 1 {
		t.Errorf("clicks %d, Clicks() %d; want 1", clicks, b.Clicks())
	}
}

func TestButtonContext(t *testing.T) {
	b := widgets.NewButton("Stop")
	ctx, cancel := b.Context(context.Background())
	defer cancel()
	if err := b.Click(); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == nil || !strings.Contains(context.Cause(ctx).Error(), `stopped: "Stop" clicked`) {
		t.Errorf("after a click: %v, cause %v", ctx.Err(), context.Cause(ctx))
	}
	ctx2, cancel2 := b.Context(context.Background())
	cancel2()
	if !errors.Is(context.Cause(ctx2), context.Canceled) {
		t.Errorf("cancel: cause %v", context.Cause(ctx2))
	}
}

func TestControlRequestStates(t *testing.T) {
	f := connect(t)
	s := widgets.NewIntSlider("n", 3, 0, 10)
	_ = s.SetValue(6)
	f.take()
	if err := comm.Deliver(comm.KindOpen, json.RawMessage(`{"comm_id": "ctl", "target_name": "jupyter.widget.control", "data": {}}`), nil, nil, "o"); err != nil {
		t.Fatal(err)
	}
	if err := send(t, "ctl", map[string]any{"method": "request_states"}, "rq"); err != nil {
		t.Fatal(err)
	}
	msgs := f.take()
	if len(msgs) != 1 || msgs[0].data["method"] != "update_states" || msgs[0].parent != "rq" {
		t.Fatalf("request_states answered %+v", msgs)
	}
	states := msgs[0].data["states"].(map[string]any)
	mine := states[s.ModelID()].(map[string]any)
	if mine["model_name"] != "IntSliderModel" || mine["state"].(map[string]any)["value"] != 6.0 {
		t.Errorf("the slider's state in update_states: %v", mine)
	}
	if err := send(t, "ctl", map[string]any{"method": "other"}, "rq"); err == nil {
		t.Error("an unknown control method: want an error")
	}
	if err := comm.Deliver(comm.KindOpen, json.RawMessage(`{"comm_id": "fw", "target_name": "jupyter.widget", "data": {"state": {}}}`), nil, nil, "o"); err == nil {
		t.Error("a front end creating a widget model: want an error (and the comm closed)")
	}
	_ = comm.Deliver(comm.KindClose, json.RawMessage(`{"comm_id": "ctl", "data": {}}`), nil, nil, "c")
}

func TestOutputCaptures(t *testing.T) {
	connect(t)
	defer display.SetPublisher(nil)()
	o := widgets.NewOutput()
	defer o.Close()
	o.Capture(func() {
		display.Display(display.Text("shown"))
		h, _ := display.Open(display.Text("live 1"))
		display.CaptureStream("stdout", "one ")
		display.CaptureStream("stdout", "two\n")
		display.CaptureStream("stderr", "warn\n")
		h.Update(display.Text("live 2"))
	})
	if got, want := o.Text(), "shown\nlive 2\none two\nwarn\n"; got != want {
		t.Errorf("Output text %q; want %q", got, want)
	}
	o.Clear(true) // kept until the next output
	if o.Text() == "" {
		t.Error("Clear(true) emptied at once")
	}
	o.Stream("stdout", "fresh\n")
	if got := o.Text(); got != "fresh\n" {
		t.Errorf("after Clear(true) and a print: %q", got)
	}
	o.Stream("stdout", strings.Repeat("x", widgets.MaxOutputText))
	o.Stream("stdout", "zzz")
	if got := o.Text(); len(got) > widgets.MaxOutputText+200 || !strings.Contains(got, "output truncated after 1 MiB") || strings.Contains(got, "zzz") {
		t.Errorf("a flood: %d bytes kept, notice %v", len(got), strings.Contains(got, "truncated"))
	}
	o.Clear(false)
	if o.Text() != "" {
		t.Errorf("Clear(false) left %q", o.Text())
	}
}

// Interact with a front end: changes cancel the run in progress, runs
// never overlap, the last value's run is the one shown.
func TestInteractConnected(t *testing.T) {
	connect(t)
	defer widgets.SetDrawn(true)()
	defer display.SetPublisher(nil)()
	n := widgets.NewIntSlider("n", 1, 0, 2000)
	var active, maxActive, runs, cancelled atomic.Int64
	started := make(chan int, 1000)
	it := widgets.NewInteractive(func(ctx context.Context) error {
		a := active.Add(1)
		defer active.Add(-1)
		if a > maxActive.Load() {
			maxActive.Store(a)
		}
		runs.Add(1)
		v := n.Value()
		started <- v
		select {
		case <-ctx.Done():
			cancelled.Add(1)
			return ctx.Err()
		case <-time.After(30 * time.Millisecond):
		}
		display.Display(display.Text(fmt.Sprintf("result %d", v)))
		return nil
	}, n)
	defer it.Close()
	it.SetDebounce(20 * time.Millisecond)
	if err := it.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-started
	if got := it.Output().Text(); got != "result 1\n" {
		t.Fatalf("first run shows %q", got)
	}
	// A change mid-run cancels it; the next starts with the new value.
	_ = update(t, n.ModelID(), map[string]any{"value": 2}, "u")
	<-started
	_ = update(t, n.ModelID(), map[string]any{"value": 3}, "u")
	state := func() string {
		return fmt.Sprintf("output %q, running %v, runs %d", it.Output().Text(), it.Running(), runs.Load())
	}
	waitFor(t, func() bool { return it.Output().Text() == "result 3\n" && !it.Running() }, state)
	if cancelled.Load() != 1 {
		t.Errorf("%d runs cancelled; want the one a change interrupted", cancelled.Load())
	}
	// 1,000 changes in a row: one run, with the last value.
	before := runs.Load()
	for i := 0; i < 1000; i++ {
		_ = update(t, n.ModelID(), map[string]any{"value": 10 + i}, "u")
	}
	waitFor(t, func() bool { return it.Output().Text() == "result 1009\n" && !it.Running() }, state)
	if maxActive.Load() != 1 {
		t.Errorf("%d runs at once; want 1", maxActive.Load())
	}
	if r := runs.Load() - before; r < 1 || r > 50 {
		t.Errorf("1,000 changes started %d runs", r)
	}
	// Interrupting the kernel cancels the run in progress.
	for len(started) > 0 {
		<-started
	}
	_ = update(t, n.ModelID(), map[string]any{"value": 5}, "u")
	if v := <-started; v != 5 {
		t.Fatalf("run started with %d; want 5", v)
	}
	before = cancelled.Load()
	cell.Interrupted()
	waitFor(t, func() bool { return !it.Running() }, state)
	if cancelled.Load() != before+1 || strings.Contains(it.Output().Text(), "result 5") {
		t.Errorf("an interrupt: %d cancelled (was %d), output %q", cancelled.Load(), before, it.Output().Text())
	}
	// A run's error shows in the Output; Close stops the runs.
	it2 := widgets.NewInteractive(func(ctx context.Context) error { return errors.New("no such preset") }, n)
	if err := it2.Run(context.Background()); err == nil || it2.Output().Text() != "Error: no such preset\n" {
		t.Errorf("a failing run: %v, Output %q", err, it2.Output().Text())
	}
	it2.Close()
	if err := it2.Run(context.Background()); !errors.Is(err, widgets.ErrClosed) {
		t.Errorf("Run after Close: %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool, state func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within 10 s: %s", state())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func ExampleNewIntSlider() {
	// Without a front end (a headless run) a widget is a plain value.
	vus := widgets.NewIntSlider("VUs", 20, 1, 200)
	vus.OnChange(func(v int) { fmt.Println("changed to", v) })
	vus.SetValue(500) // kept within its bounds
	fmt.Println(vus.Value(), vus)
	// Output:
	// changed to 200
	// 200 IntSlider("VUs" = 200)
}

func ExampleInteract() {
	// Headless, Interact runs the function once with the controls' values;
	// in a kernel it runs again whenever a control changes.
	vus := widgets.NewIntSlider("VUs", 20, 1, 200)
	think, _ := widgets.NewDropdown("think", []string{"0s", "1s"}, "1s")
	err := widgets.Interact(func(ctx context.Context) error {
		fmt.Printf("%d VUs thinking %s\n", vus.Value(), think.Value())
		return nil
	}, vus, think)
	fmt.Println(err)
	// Output:
	// 20 VUs thinking 1s
	// <nil>
}

func ExampleButton_Context() {
	stop := widgets.NewButton("Stop")
	ctx, cancel := stop.Context(context.Background())
	defer cancel()
	stop.Click() // a front end's click does the same
	<-ctx.Done()
	fmt.Println(context.Cause(ctx))
	// Output:
	// stopped: "Stop" clicked
}

func ExampleNewDropdown() {
	image, err := widgets.NewDropdown("image", []string{"8k JPEG", "7 KB PNG"}, "8k JPEG")
	fmt.Println(image.Value(), err)
	_, err = widgets.NewDropdown("image", []string{"8k JPEG"}, "4k")
	fmt.Println(err)
	// Output:
	// 8k JPEG <nil>
	// Dropdown "image": value "4k" is not one of the options ["8k JPEG"]
}

func ExampleNewHBox() {
	box := widgets.NewHBox(widgets.NewCheckbox("quick", true), widgets.NewText("name", "run 1"))
	fmt.Println(box.Render().Data[display.MIMETypeText])
	// Output:
	// Checkbox("quick" = true)  Text("name" = "run 1")
}

func ExampleNewOutput() {
	out := widgets.NewOutput()
	out.Display(display.Text("a table"))
	out.Stream("stdout", "a line\n")
	fmt.Print(out.Text())
	// Output:
	// a table
	// a line
}

func ExampleNewProgress() {
	p := widgets.NewProgress("load", 0, 200)
	p.SetValue(50)
	fmt.Println(p)
	// Output:
	// load 50/200 (25%)
}
