package lab

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"unicode"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/widgets"
)

// A try-it shown as a Voilà dashboard keeps its controls' values in the
// page's address. Voilà starts a fresh kernel for every page visit and runs
// the notebook again, so nothing the last kernel held survives a reload;
// the address does — it is the one thing a reload, a bookmark or a shared
// link carries to the next kernel (Voilà hands the visit's query string to
// the kernel it starts: widgets.PageQuery). So:
//
//   - Show reads the address: `?tokens=6&users=8` sets those controls
//     before the first run, which then runs and draws for them. A value a
//     control does not take (out of its range, not a number, not one of its
//     options) is ignored, and the page says so under the controls; the
//     cell does not fail. Keys no control of the page has are named there
//     too (the page checks those, as only it sees every try-it).
//   - Under the controls an output of PageStateMIME lists the controls'
//     keys, values and the lesson's values; conclab's JupyterLab extension
//     (which Voilà loads) draws it as a line saying the values are kept in
//     the address, with a link back to the lesson's values, and puts the
//     values in the address as they change (history.replaceState: no
//     reload, no new history entry). It also watches the page's kernel and
//     says so plainly when it stops (killed, restarted empty, culled).
//
// A control's key is its description in lower case, runs of anything but
// letters and digits as one "-" ("think (ms)" → "think-ms"); a key taken
// by an earlier try-it of the notebook, or one of Voilà's own (token,
// template, theme), gets "-2", "-3"... Outside Voilà (JupyterLab, Notebook
// 7, headless runs) none of this happens.

// PageStateMIME is the MIME type of a try-it's page state (pageState's
// JSON), drawn by conclab's JupyterLab extension in Voilà.
const PageStateMIME = "application/vnd.conclab.page-state.v1+json"

// voilaKeys are query keys Voilà reads itself.
var voilaKeys = []string{"token", "template", "theme"}

// pageQuery is widgets.PageQuery; tests set it.
var pageQuery = widgets.PageQuery

var (
	keysMu sync.Mutex
	keys   = map[string]bool{} // knob keys taken in this kernel
)

// pageState is PageStateMIME's content.
type pageState struct {
	// Knobs are the try-it's controls that the address carries, in order.
	Knobs []pageKnob `json:"knobs"`
	// Notes say what of the address was ignored, and why.
	Notes []string `json:"notes"`
	// Reserved are keys the page's address may hold that are no knob's
	// (Voilà's own).
	Reserved []string `json:"reserved"`
}

type pageKnob struct {
	Key     string `json:"key"`
	Label   string `json:"label"`
	Value   string `json:"value"`
	Default string `json:"default"` // the lesson's value
}

// pageAddress is a try-it's link to the page's address.
type pageAddress struct {
	out   *widgets.Output
	mu    sync.Mutex // orders the sends of the state
	knobs []addrKnob
	notes []string
}

type addrKnob struct {
	knob widgets.Knob
	key  string
	def  string
}

// describer is what every control kind has.
type describer interface{ Description() string }

// newPageAddress takes keys for the controls that are Knobs, applies the
// query's values to them (query and qerr as widgets.PageQuery returns
// them), and returns the state's Output, showing the state and updated as
// the controls change.
func newPageAddress(controls []widgets.Widget, query url.Values, qerr error) *pageAddress {
	a := &pageAddress{out: widgets.NewOutput()}
	if qerr != nil {
		a.notes = append(a.notes, fmt.Sprintf("ignored the page's address: %v", qerr))
	}
	for _, c := range controls {
		k, ok := c.(widgets.Knob)
		if !ok {
			continue
		}
		label := ""
		if d, ok := c.(describer); ok {
			label = d.Description()
		}
		ak := addrKnob{knob: k, key: takeKey(label), def: k.FormValue()}
		a.knobs = append(a.knobs, ak)
		vs, ok := query[ak.key]
		if !ok {
			continue
		}
		v := vs[len(vs)-1]
		if len(vs) > 1 {
			a.notes = append(a.notes, fmt.Sprintf("%s is %d times in the page's address; the last, %q, is taken", ak.key, len(vs), v))
		}
		if err := k.SetFormValue(v); err != nil {
			a.notes = append(a.notes, fmt.Sprintf("ignored %s=%s from the page's address (kept %s): %v", ak.key, v, k.FormValue(), err))
		}
	}
	for _, ak := range a.knobs {
		widgets.Watch(ak.knob, a.show)
	}
	a.show()
	return a
}

// takeKey returns the key for a control described label, unused so far in
// this kernel, and takes it.
func takeKey(label string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(label) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	base := b.String()
	if base == "" {
		base = "knob"
	}
	keysMu.Lock()
	defer keysMu.Unlock()
	key := base
	for n := 2; keys[key] || isVoilaKey(key); n++ {
		key = fmt.Sprintf("%s-%d", base, n)
	}
	keys[key] = true
	return key
}

func isVoilaKey(k string) bool {
	for _, v := range voilaKeys {
		if k == v {
			return true
		}
	}
	return false
}

// state returns the page state now.
func (a *pageAddress) state() pageState {
	st := pageState{Notes: append([]string{}, a.notes...), Reserved: voilaKeys}
	for _, ak := range a.knobs {
		label := ak.key
		if d, ok := ak.knob.(describer); ok {
			label = d.Description()
		}
		st.Knobs = append(st.Knobs, pageKnob{Key: ak.key, Label: label, Value: ak.knob.FormValue(), Default: ak.def})
	}
	if st.Knobs == nil {
		st.Knobs = []pageKnob{}
	}
	return st
}

// show replaces the Output's content with the state now.
func (a *pageAddress) show() {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := a.state()
	var q url.Values = url.Values{}
	for _, k := range st.Knobs {
		q.Set(k.Key, k.Value)
	}
	text := "values in the page's address: ?" + q.Encode()
	for _, n := range st.Notes {
		text += "\n" + n
	}
	_ = a.out.Clear(true)
	_ = a.out.Display(display.Data{Data: display.MIMEMap{PageStateMIME: st, display.MIMETypeText: text}})
}
