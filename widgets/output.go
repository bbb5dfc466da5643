package widgets

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/conclab/conclab/display"
)

// MaxOutputText bounds the stream text an Output keeps (its whole list of
// outputs is sent to the front ends at each change); beyond it, text is
// dropped with one notice, until the Output is cleared.
const MaxOutputText = 1 << 20

// Output is an area showing outputs — prints, displays, charts, errors —
// inside the widget rather than under the cell: what Capture's function
// (and Interact's) shows goes there. It keeps its outputs as ipywidgets'
// Output does, in its "outputs" state, which the kernel sets, so it is
// drawn again with its content when a page reloads. Output is a
// display.Capturer.
type Output struct {
	*model
	sendMu    sync.Mutex // orders the sends of the outputs
	entries   []outEntry
	clearWait bool
	textBytes int
	truncated bool
}

type outEntry struct {
	out       map[string]any // an nbformat output
	displayID string
}

var _ display.Capturer = (*Output)(nil)

// NewOutput returns an empty output area.
func NewOutput() *Output {
	st := stateOf(outputModule, outputVersion, "OutputModel", outputModule, outputVersion, "OutputView")
	st["msg_id"], st["outputs"] = "", []any{}
	o := &Output{model: newModel("Output", st)}
	o.domWidget(false, "", nil)
	o.validate = func(key string, raw json.RawMessage) (any, error) {
		switch key {
		case "outputs", "msg_id":
			return nil, fmt.Errorf("is set by the kernel")
		}
		return nil, errGeneric
	}
	o.model.text = o.Text
	o.model.static = func() string {
		o.mu.Lock()
		defer o.mu.Unlock()
		return outputsHTML(o.entries)
	}
	o.closeHook = func() { display.Release(o) }
	o.open()
	return o
}

// Capture runs fn with the outputs it makes — displays, prints of the
// process, clears — going to the Output (display.Capture's rules) and
// returns when fn does. Without a front end, fn runs with outputs where
// they would go anyway (the cell).
func (o *Output) Capture(fn func()) {
	if !o.Connected() {
		fn()
		return
	}
	end := display.Capture(o)
	defer end()
	fn()
}

// Display adds d to the outputs.
func (o *Output) Display(d display.Data) error {
	entry := outEntry{out: map[string]any{"output_type": "display_data", "data": encodeData(d.Data),
		"metadata": orObject(d.Metadata)}}
	if id, ok := d.Transient["display_id"].(string); ok {
		entry.displayID = id
	}
	return o.change(func() {
		o.applyClear()
		o.entries = append(o.entries, entry)
	})
}

// Update replaces the data of the outputs shown with display id id.
func (o *Output) Update(id string, d display.Data) error {
	return o.change(func() {
		for i := range o.entries {
			if o.entries[i].displayID == id {
				o.entries[i].out = map[string]any{"output_type": "display_data", "data": encodeData(d.Data),
					"metadata": orObject(d.Metadata)}
			}
		}
	})
}

// Clear removes the outputs; with wait, when the next output arrives (so
// the old ones stay in view until then).
func (o *Output) Clear(wait bool) error {
	if wait {
		o.mu.Lock()
		o.clearWait = true
		o.mu.Unlock()
		return nil
	}
	return o.change(func() {
		o.clearWait = true
		o.applyClear()
	})
}

// Stream adds text written to stdout or stderr (name), joined to the last
// output when that is text of the same stream.
func (o *Output) Stream(name, text string) error {
	if name != "stdout" && name != "stderr" {
		return fmt.Errorf("Output.Stream: unknown stream %q", name)
	}
	return o.change(func() {
		o.applyClear()
		if o.truncated {
			return
		}
		if o.textBytes+len(text) > MaxOutputText {
			text = text[:max(0, MaxOutputText-o.textBytes)] + "\n[widgets: output truncated after 1 MiB; the rest is dropped]\n"
			o.truncated = true
		}
		o.textBytes += len(text)
		if n := len(o.entries); n > 0 {
			last := o.entries[n-1].out
			if last["output_type"] == "stream" && last["name"] == name {
				last["text"] = last["text"].(string) + text
				return
			}
		}
		o.entries = append(o.entries, outEntry{out: map[string]any{"output_type": "stream", "name": name, "text": text}})
	})
}

// Error adds an error output (ename, evalue, traceback), as a failed cell
// shows one.
func (o *Output) Error(ename, evalue string, traceback ...string) error {
	if len(traceback) == 0 {
		traceback = []string{ename + ": " + evalue}
	}
	tb := make([]any, len(traceback))
	for i, l := range traceback {
		tb[i] = l
	}
	return o.change(func() {
		o.applyClear()
		o.entries = append(o.entries, outEntry{out: map[string]any{"output_type": "error", "ename": ename,
			"evalue": evalue, "traceback": tb}})
	})
}

// Owns reports whether an output with display id id is shown here.
func (o *Output) Owns(id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.entries {
		if e.displayID == id {
			return true
		}
	}
	return false
}

// Text returns the outputs as text: stream text, the text/plain of
// displays, errors as "ename: evalue".
func (o *Output) Text() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var b strings.Builder
	for _, e := range o.entries {
		switch e.out["output_type"] {
		case "stream":
			b.WriteString(e.out["text"].(string))
		case "display_data":
			if t, ok := e.out["data"].(map[string]any)[display.MIMETypeText].(string); ok {
				b.WriteString(t)
				if !strings.HasSuffix(t, "\n") {
					b.WriteByte('\n')
				}
			}
		case "error":
			fmt.Fprintf(&b, "%s: %s\n", e.out["ename"], e.out["evalue"])
		}
	}
	return b.String()
}

// applyClear empties the outputs when a clear is pending. Called with mu.
func (o *Output) applyClear() {
	if o.clearWait {
		o.entries, o.clearWait, o.textBytes, o.truncated = nil, false, 0, false
	}
}

// change applies f to the entries and sends the outputs, in order.
func (o *Output) change(f func()) error {
	o.sendMu.Lock()
	defer o.sendMu.Unlock()
	o.mu.Lock()
	f()
	outs := make([]any, len(o.entries))
	for i, e := range o.entries {
		outs[i] = cloneOutput(e.out)
	}
	o.mu.Unlock()
	return o.set(map[string]any{"outputs": outs})
}

func cloneOutput(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// encodeData is a bundle as nbformat stores it: binary data (images) in
// base64, text as strings, JSON as it is.
func encodeData(m display.MIMEMap) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if b, ok := v.([]byte); ok {
			if strings.HasPrefix(k, "text/") || k == display.MIMETypeSVG || k == display.MIMETypeJavaScript {
				out[k] = string(b)
			} else {
				out[k] = base64.StdEncoding.EncodeToString(b)
			}
			continue
		}
		out[k] = v
	}
	return out
}

func orObject(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
