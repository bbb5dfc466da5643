package widgets

import (
	"errors"
	"fmt"
	"maps"

	"github.com/conclab/conclab/kernel/comm"
)

// A reloaded page, or one opening a notebook whose kernel already has
// widgets, asks for every widget at once: its widget manager opens a comm
// to "jupyter.widget.control" and sends {"method": "request_states"}; the
// kernel answers on that comm with {"method": "update_states", "states":
// {id: {model_name, model_module, model_module_version, state}},
// "buffer_paths": [[id, path...]...]} (with the binary buffers, none for
// this package's kinds), and the page draws every widget with the values
// it has now.

func init() {
	comm.Register(ControlTarget, openControl)
	comm.Register(Target, func(c *comm.Comm, m comm.Msg) error {
		return errors.New("widget models are created by the kernel; a front end cannot create one here")
	})
}

func openControl(c *comm.Comm, _ comm.Msg) error {
	c.OnMsg(func(m comm.Msg) error {
		var d struct {
			Method string `json:"method"`
		}
		if err := m.Decode(&d); err != nil {
			return err
		}
		if d.Method != "request_states" {
			return fmt.Errorf("%s: unknown method %q (want request_states)", ControlTarget, d.Method)
		}
		return c.Reply(m, map[string]any{"method": "update_states", "states": States(), "buffer_paths": []any{}})
	})
	return nil
}

// States returns every open widget model's state as update_states sends
// it, by model id.
func States() map[string]any {
	regMu.Lock()
	ms := make([]*model, 0, len(registry))
	for _, m := range registry {
		ms = append(ms, m)
	}
	regMu.Unlock()
	out := make(map[string]any, len(ms))
	for _, m := range ms {
		m.mu.Lock()
		st := maps.Clone(m.state)
		m.mu.Unlock()
		out[m.id] = map[string]any{
			"model_name": st["_model_name"], "model_module": st["_model_module"],
			"model_module_version": st["_model_module_version"], "state": st,
		}
	}
	return out
}

// StateMIME is the key of the widgets' state in a notebook's metadata
// ("widgets"), as JupyterLab's "save widget state" and nbclient write it.
const StateMIME = "application/vnd.jupyter.widget-state+json"

// NotebookState returns the notebook metadata entry "widgets" for every
// open widget — {StateMIME: {"state": {id: {model_name, model_module,
// model_module_version, state}}, "version_major": 2, "version_minor": 0}},
// the shape nbclient (papermill, nbconvert --execute) writes — or nil when
// none is open. `conclab run` saves it in the executed notebook, so its
// widget views are drawn from it: by JupyterLab opening the notebook, by
// nbconvert's HTML export.
func NotebookState() map[string]any {
	st := States()
	if len(st) == 0 {
		return nil
	}
	return map[string]any{StateMIME: map[string]any{"state": st, "version_major": 2, "version_minor": 0}}
}

// CloseAll closes every open widget: for a runner that executes another
// notebook in the same process (its widgets and state start afresh).
func CloseAll() {
	regMu.Lock()
	ms := make([]*model, 0, len(registry))
	for _, m := range registry {
		ms = append(ms, m)
	}
	regMu.Unlock()
	for _, m := range ms {
		_ = m.Close()
	}
}
