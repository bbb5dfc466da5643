package widgets_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/widgets"
)

// cellPublisher records what reaches the cell, as the kernel's publisher
// sends it on and nbclient records it.
type cellPublisher struct {
	mu   sync.Mutex
	outs []display.Data
}

func (p *cellPublisher) Display(d display.Data) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.outs = append(p.outs, d)
	return nil
}

func (p *cellPublisher) Update(id string, d display.Data) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.outs {
		if p.outs[i].DisplayID() == id {
			p.outs[i] = d
		}
	}
	return nil
}

func (p *cellPublisher) Clear(bool) error { return nil }

func (p *cellPublisher) texts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, d := range p.outs {
		s, _ := d.Data[display.MIMETypeText].(string)
		out = append(out, s)
	}
	return out
}

// A kernel with no front end drawing widgets (nbclient, papermill): the
// first run's outputs go to the cell, after the controls; the Output stays
// empty. With a front end drawing them, they go to the Output.
func TestInteractFirstRunWhere(t *testing.T) {
	for _, drawn := range []bool{false, true} {
		t.Run(fmt.Sprintf("drawn=%v", drawn), func(t *testing.T) {
			connect(t)
			defer widgets.SetDrawn(drawn)()
			pub := &cellPublisher{}
			defer display.SetPublisher(pub)()
			n := widgets.NewIntSlider("burst", 5, 1, 40)
			err := widgets.Interact(func(ctx context.Context) error {
				return display.Display(display.Text(fmt.Sprintf("table of %d", n.Value())))
			}, n)
			if err != nil {
				t.Fatal(err)
			}
			got := pub.texts()
			if len(got) == 0 || !strings.Contains(got[0], `IntSlider("burst" = 5)`) {
				t.Fatalf("cell outputs %q; want the controls first", got)
			}
			view := pub.outs[0].Data[widgets.ViewMIME].(map[string]any)
			if drawn {
				if len(got) != 1 {
					t.Errorf("cell outputs %q; want the controls alone (the run shows in the Output)", got)
				}
				return
			}
			if len(got) != 2 || got[1] != "table of 5" {
				t.Errorf("cell outputs %q; want the controls, then the run's table", got)
			}
			if view["model_id"] == "" {
				t.Errorf("the controls' view has no model: %v", view)
			}
		})
	}
}

// Every kind's static HTML shows its value, escaped; a box holds its
// children; an Output its outputs.
func TestStaticHTML(t *testing.T) {
	dd, _ := widgets.NewDropdown("image", []string{"8K JPEG", "<7 KB PNG>"}, "<7 KB PNG>")
	tb, _ := widgets.NewToggleButtons("handler", []string{"def", "async def"}, "async def")
	out := widgets.NewOutput()
	out.Display(display.HTML("<table><tr><td>42</td></tr></table>"))
	out.Stream("stdout", "a <line>\n")
	ffs := widgets.NewFloatSlider("think (s)", 0.25, 0, 2)
	for _, c := range []struct {
		w    widgets.Widget
		want []string
	}{
		{widgets.NewIntSlider("tokens", 40, 1, 80), []string{`>tokens<`, `type="range" disabled min="1" max="80" step="1" value="40"`, `<output>40</output>`}},
		{ffs, []string{`<output>0.25</output>`}},
		{widgets.NewIntRangeSlider("rows", 3, 9, 0, 10), []string{`<output>3 – 9</output>`}},
		{dd, []string{`<option selected>&lt;7 KB PNG&gt;</option>`, `<option>8K JPEG</option>`}},
		{tb, []string{`color:#fff">async def</span>`}},
		{widgets.NewCheckbox("quick", true), []string{`checked> quick`}},
		{widgets.NewText("name", `a "b"`), []string{`value="a &#34;b&#34;"`}},
		{widgets.NewButton("Stop"), []string{`<button disabled>Stop</button>`}},
		{widgets.NewLabel("<b>"), []string{`&lt;b&gt;`}},
		{widgets.NewHTML("<b>bold</b>"), []string{`<b>bold</b>`}},
		{widgets.NewProgress("load", 50, 200), []string{`<progress value="50" max="200"`}},
		{out, []string{`<td>42</td>`, `a &lt;line&gt;`}},
		{widgets.NewHBox(widgets.NewCheckbox("x", false), widgets.NewLabel("y")), []string{`flex-direction:row`, `type="checkbox" disabled> x`, `>y<`}},
	} {
		h, _ := c.w.Render().Data[display.MIMETypeHTML].(string)
		for _, w := range c.want {
			if !strings.Contains(h, w) {
				t.Errorf("%T static HTML %s\nwant it to contain %s", c.w, h, w)
			}
		}
		if strings.Contains(h, "<script") {
			t.Errorf("%T static HTML has a script: %s", c.w, h)
		}
	}
}

// NotebookState is the metadata nbclient writes: every open widget's
// model and state, by id, with the values it has now.
func TestNotebookState(t *testing.T) {
	s := widgets.NewIntSlider("VUs", 20, 1, 200)
	s.SetValue(30)
	b := widgets.NewVBox(s)
	closed := widgets.NewLabel("gone")
	closed.Close()
	md := widgets.NotebookState()
	raw, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]struct {
		State map[string]struct {
			ModelName   string         `json:"model_name"`
			ModelModule string         `json:"model_module"`
			ModuleVer   string         `json:"model_module_version"`
			State       map[string]any `json:"state"`
		} `json:"state"`
		Major int `json:"version_major"`
		Minor int `json:"version_minor"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	ws := got[widgets.StateMIME]
	if ws.Major != 2 || ws.Minor != 0 {
		t.Errorf("version %d.%d; want 2.0", ws.Major, ws.Minor)
	}
	sl := ws.State[s.ModelID()]
	if sl.ModelName != "IntSliderModel" || sl.ModelModule != "@jupyter-widgets/controls" || sl.ModuleVer != "2.0.0" || sl.State["value"] != 30.0 {
		t.Errorf("the slider's entry %+v", sl)
	}
	if ws.State[b.ModelID()].State["children"].([]any)[0] != "IPY_MODEL_"+s.ModelID() {
		t.Errorf("the box's children %v", ws.State[b.ModelID()].State["children"])
	}
	layout := strings.TrimPrefix(sl.State["layout"].(string), "IPY_MODEL_")
	if ws.State[layout].ModelName != "LayoutModel" {
		t.Errorf("the slider's layout %s is not in the state", layout)
	}
	if _, ok := ws.State[closed.ModelID()]; ok {
		t.Error("a closed widget is in the state")
	}
	for _, w := range []widgets.Widget{s, b} {
		w.Close()
	}
}

func TestStartedByVoila(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"SERVER_SOFTWARE": "voila/0.5.13"}, true},
		{map[string]string{"VOILA_PREHEAT": "True"}, true},
		{map[string]string{"SERVER_SOFTWARE": "nginx"}, false},
		{map[string]string{}, false},
	} {
		if got := widgets.StartedByVoila(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("startedByVoila(%v) = %v; want %v", c.env, got, c.want)
		}
	}
}
