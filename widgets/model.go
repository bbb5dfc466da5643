package widgets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/comm"
)

// The protocol, the modules and the versions of ipywidgets 8 (jupyterlab_widgets 3).
const (
	// ProtocolVersion is the widget messaging protocol spoken.
	ProtocolVersion = "2.1.0"
	// Target is the comm target of widget models; ControlTarget the one
	// of the front end's request for every widget's state.
	Target        = "jupyter.widget"
	ControlTarget = "jupyter.widget.control"
	// ViewMIME is the MIME type of a widget's view in a display bundle.
	ViewMIME = "application/vnd.jupyter.widget-view+json"

	controlsModule = "@jupyter-widgets/controls"
	baseModule     = "@jupyter-widgets/base"
	outputModule   = "@jupyter-widgets/output"
	moduleVersion  = "2.0.0"
	outputVersion  = "1.0.0"
)

// A Widget is a model with views in the front ends. Every kind in this
// package is one; a Widget can be a child of a box or a control of
// Interact.
type Widget interface {
	// ModelID is the model's id (its comm's id).
	ModelID() string
	// Render is the widget's view as a display bundle (a cell's last
	// value, display.Show).
	Render() display.Data
	// Close closes the model; its views disappear.
	Close() error
	base() *model
}

// model is the kernel's copy of one widget model: its state, kept as the
// JSON values ipywidgets sends, and its comm.
type model struct {
	kind string // "IntSlider", for the text form and messages

	mu     sync.Mutex
	id     string
	state  map[string]any
	comm   *comm.Comm // nil without a front end
	closed bool
	subs   []*model // its layout and style models

	// validate checks a value the front end sent for key and returns the
	// value to keep (clamped, converted); nil means the generic rule
	// (validateGeneric).
	validate func(key string, raw json.RawMessage) (any, error)
	// custom handles a "custom" message's content; nil refuses them.
	custom func(content json.RawMessage) error
	// valueKeys are the keys whose change is the widget's value changing:
	// watchers (Interact) and notify are told.
	valueKeys map[string]bool
	watchers  []func()
	// notify calls the kind's typed handlers after a value change; called
	// without mu.
	notify func() error
	// text is the widget's text form (text/plain of its view).
	text func() string
	// static, when set, is the widget's static HTML form (static.go has
	// the kinds drawn from their state alone).
	static func() string
	// closeHook runs when the model closes (from either side).
	closeHook func()
}

var (
	regMu    sync.Mutex
	registry = map[string]*model{} // open models, by id: with a comm when a kernel transport is installed
)

// stateOf returns the common state of a model: its model and view classes.
func stateOf(modelModule, modelVersion, modelName, viewModule, viewVersion, viewName string) map[string]any {
	var view any = viewName
	if viewName == "" {
		view = nil
	}
	return map[string]any{
		"_model_module": modelModule, "_model_module_version": modelVersion, "_model_name": modelName,
		"_view_module": viewModule, "_view_module_version": viewVersion, "_view_name": view,
		"_view_count": nil,
	}
}

// newModel returns a model of kind with the state given; open sends it.
func newModel(kind string, state map[string]any) *model {
	return &model{kind: kind, id: comm.NewID(), state: state, valueKeys: map[string]bool{}}
}

// domWidget adds what every DOM widget has: its layout and style models
// (opened first), classes, tooltip, tabbable; described widgets get a
// description too. styleName is the style model's class ("" for none),
// styleState its attributes.
func (m *model) domWidget(described bool, styleName string, styleState map[string]any) {
	layout := newModel("Layout", layoutState())
	layout.open()
	m.subs = append(m.subs, layout)
	m.state["layout"] = "IPY_MODEL_" + layout.id
	m.state["_dom_classes"] = []any{}
	m.state["tabbable"] = nil
	m.state["tooltip"] = nil
	if described {
		m.state["description"] = ""
		m.state["description_allow_html"] = false
	}
	if styleName != "" {
		st := stateOf(controlsModule, moduleVersion, styleName, baseModule, moduleVersion, "StyleView")
		maps.Copy(st, styleState)
		style := newModel("Style", st)
		style.open()
		m.subs = append(m.subs, style)
		m.state["style"] = "IPY_MODEL_" + style.id
	}
}

func layoutState() map[string]any {
	st := stateOf(baseModule, moduleVersion, "LayoutModel", baseModule, moduleVersion, "LayoutView")
	for _, k := range []string{"align_content", "align_items", "align_self", "border_bottom", "border_left",
		"border_right", "border_top", "bottom", "display", "flex", "flex_flow", "grid_area", "grid_auto_columns",
		"grid_auto_flow", "grid_auto_rows", "grid_column", "grid_gap", "grid_row", "grid_template_areas",
		"grid_template_columns", "grid_template_rows", "height", "justify_content", "justify_items", "left",
		"margin", "max_height", "max_width", "min_height", "min_width", "object_fit", "object_position", "order",
		"overflow", "padding", "right", "top", "visibility", "width"} {
		st[k] = nil
	}
	return st
}

// open registers the model (for the control's update_states and the
// notebook's widget state) and opens its comm when a kernel transport is
// installed (comm_open with the whole state).
func (m *model) open() {
	if !comm.Connected() {
		regMu.Lock()
		registry[m.id] = m
		regMu.Unlock()
		return
	}
	m.mu.Lock()
	state := maps.Clone(m.state)
	m.mu.Unlock()
	c, err := comm.OpenID(m.id, Target, map[string]any{"state": state, "buffer_paths": []any{}},
		map[string]any{"version": ProtocolVersion})
	if err != nil {
		fmt.Fprintf(os.Stderr, "widgets: opening %s: %v\n", m.kind, err)
		return
	}
	c.OnMsg(m.handle)
	c.OnClose(func(comm.Msg) { m.closedByFrontEnd() })
	m.mu.Lock()
	m.comm = c
	m.mu.Unlock()
	regMu.Lock()
	registry[m.id] = m
	regMu.Unlock()
}

// ModelID returns the widget model's id.
func (m *model) ModelID() string { return m.id }

func (m *model) base() *model { return m }

// Connected reports whether the widget has views in a front end (a comm).
func (m *model) Connected() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.comm != nil && !m.closed
}

// Render returns the widget's view: the ipywidgets view MIME type, which
// front ends draw from the model (its comm) or from the notebook's widget
// state; its static HTML form (static.go) for pages without a widget
// manager; and a text form. Without a kernel transport (`conclab run`) the
// view refers to the model in the widget state the runner saves in the
// notebook (NotebookState), as nbclient does; a closed widget, or one whose
// comm could not open, has no view.
func (m *model) Render() display.Data {
	d := display.Data{Data: display.MIMEMap{display.MIMETypeText: m.String(), display.MIMETypeHTML: m.staticHTML()}}
	m.mu.Lock()
	view := !m.closed && (m.comm != nil || !comm.Connected())
	m.mu.Unlock()
	if view {
		d.Data[ViewMIME] = map[string]any{"version_major": 2, "version_minor": 0, "model_id": m.id}
	}
	return d
}

// String is the widget's text form.
func (m *model) String() string {
	if m.text != nil {
		return m.text()
	}
	return m.kind
}

// Close closes the widget and its layout and style: comm_close to the front
// ends, whose views disappear. Safe to call twice.
func (m *model) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	c, subs, hook := m.comm, m.subs, m.closeHook
	m.mu.Unlock()
	regMu.Lock()
	delete(registry, m.id)
	regMu.Unlock()
	var err error
	if c != nil {
		err = c.Close(nil)
	}
	for _, s := range subs {
		_ = s.Close()
	}
	if hook != nil {
		hook()
	}
	return err
}

func (m *model) closedByFrontEnd() {
	m.mu.Lock()
	m.closed = true
	hook := m.closeHook
	m.mu.Unlock()
	regMu.Lock()
	delete(registry, m.id)
	regMu.Unlock()
	if hook != nil {
		hook()
	}
}

// get returns the state value of key.
func (m *model) get(key string) any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state[key]
}

// set changes state from the kernel side: the front ends get an update,
// and when a value key changed, its handlers and watchers run.
func (m *model) set(kv map[string]any) error {
	m.mu.Lock()
	changed := false
	for k, v := range kv {
		if m.valueKeys[k] && !jsonEqual(m.state[k], v) {
			changed = true
		}
		m.state[k] = v
	}
	c, closed := m.comm, m.closed
	m.mu.Unlock()
	var err error
	if c != nil && !closed {
		err = c.Send(map[string]any{"method": "update", "state": kv, "buffer_paths": []any{}})
	}
	if changed {
		if nerr := m.changed(); nerr != nil && err == nil {
			err = nerr
		}
	}
	return err
}

// changed runs the typed handlers and the watchers after a value change.
// A handler's panic is recovered and returned as an error, also written to
// standard error.
func (m *model) changed() (err error) {
	m.mu.Lock()
	notify, watchers := m.notify, append([]func(){}, m.watchers...)
	m.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: a change handler panicked: %v", m.kind, r)
			fmt.Fprintf(os.Stderr, "widgets: %v\n", err)
		}
	}()
	if notify != nil {
		if err := notify(); err != nil {
			return err
		}
	}
	for _, w := range watchers {
		w()
	}
	return nil
}

// watch calls f after every change of the widget's value.
func (m *model) watch(f func()) {
	m.mu.Lock()
	m.watchers = append(m.watchers, f)
	m.mu.Unlock()
}

// widgetMsg is the data of a message a front end sends on a widget's comm.
type widgetMsg struct {
	Method      string                     `json:"method"`
	State       map[string]json.RawMessage `json:"state"`
	BufferPaths []json.RawMessage          `json:"buffer_paths"`
	Content     json.RawMessage            `json:"content"`
}

// handle serves a message from a front end: update (validated, applied,
// echoed with echo_update to every front end, handlers run), request_state
// (the whole state back), custom (the kind's own messages).
func (m *model) handle(msg comm.Msg) error {
	var d widgetMsg
	if err := msg.Decode(&d); err != nil {
		return fmt.Errorf("%s %s: %w", m.kind, m.id, err)
	}
	switch d.Method {
	case "update":
		return m.update(msg, d)
	case "request_state":
		m.mu.Lock()
		state, c := maps.Clone(m.state), m.comm
		m.mu.Unlock()
		if c == nil {
			return nil
		}
		return c.Reply(msg, map[string]any{"method": "update", "state": state, "buffer_paths": []any{}})
	case "custom":
		if m.custom == nil {
			return fmt.Errorf("%s %s: custom messages are not handled", m.kind, m.id)
		}
		return m.custom(d.Content)
	case "":
		return fmt.Errorf("%s %s: a widget message needs a method", m.kind, m.id)
	}
	return fmt.Errorf("%s %s: unknown method %q (want update, request_state or custom)", m.kind, m.id, d.Method)
}

// update applies a front end's state change. Every key is checked first;
// when one is refused nothing changes, the front ends get the kept values
// back (echo_update), and the error names the key, what it needs and what
// came.
func (m *model) update(msg comm.Msg, d widgetMsg) error {
	if len(d.BufferPaths) > 0 {
		return m.refuse(msg, d.State, fmt.Errorf("%s %s: binary values are not accepted", m.kind, m.id))
	}
	keys := make([]string, 0, len(d.State))
	for k := range d.State {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	accepted := map[string]any{}
	var errs []error
	for _, k := range keys {
		v, err := m.check(k, d.State[k])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k, err))
			continue
		}
		accepted[k] = v
	}
	if len(errs) > 0 {
		return m.refuse(msg, d.State, fmt.Errorf("%s %s: %w", m.kind, m.id, errors.Join(errs...)))
	}
	m.mu.Lock()
	changed := false
	for k, v := range accepted {
		if m.valueKeys[k] && !jsonEqual(m.state[k], v) {
			changed = true
		}
		m.state[k] = v
	}
	c := m.comm
	m.mu.Unlock()
	if c != nil {
		if err := c.Reply(msg, map[string]any{"method": "echo_update", "state": accepted, "buffer_paths": []any{}}); err != nil {
			return err
		}
	}
	if changed {
		return m.changed()
	}
	return nil
}

// refuse answers a refused update: the kept values of the keys it named
// go back to the front ends, so their views show what the kernel holds.
func (m *model) refuse(msg comm.Msg, sent map[string]json.RawMessage, err error) error {
	m.mu.Lock()
	kept := map[string]any{}
	for k := range sent {
		if v, ok := m.state[k]; ok {
			kept[k] = v
		}
	}
	c := m.comm
	m.mu.Unlock()
	if c != nil && len(kept) > 0 {
		_ = c.Reply(msg, map[string]any{"method": "echo_update", "state": kept, "buffer_paths": []any{}})
	}
	return err
}

func (m *model) check(key string, raw json.RawMessage) (any, error) {
	if m.validate != nil {
		if v, err, ok := m.validateKey(key, raw); ok {
			return v, err
		}
	}
	return m.validateGeneric(key, raw)
}

// validateKey runs the kind's validator; ok is false when it leaves key to
// the generic rule.
func (m *model) validateKey(key string, raw json.RawMessage) (v any, err error, ok bool) {
	v, err = m.validate(key, raw)
	if errors.Is(err, errGeneric) {
		return nil, nil, false
	}
	return v, err, true
}

// errGeneric is returned by a kind's validator for keys it leaves to the
// generic rule.
var errGeneric = errors.New("generic")

// validateGeneric accepts, for a key the model has whose value is a string,
// a bool or null (a description, disabled, a tooltip), a value of the same
// JSON kind; private keys (_...), numbers, lists and references to other
// models cannot be set from a front end.
func (m *model) validateGeneric(key string, raw json.RawMessage) (any, error) {
	m.mu.Lock()
	cur, ok := m.state[key]
	m.mu.Unlock()
	if !ok {
		return nil, errors.New("no such attribute")
	}
	if strings.HasPrefix(key, "_") || key == "layout" || key == "style" || key == "children" {
		return nil, errors.New("cannot be set from a front end")
	}
	var v any
	if err := decodeStrict(raw, &v); err != nil {
		return nil, err
	}
	switch cur.(type) {
	case string:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return nil, fmt.Errorf("want a string, got %s", raw)
	case bool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, fmt.Errorf("want true or false, got %s", raw)
	case nil:
		switch v.(type) {
		case nil, string, bool:
			return v, nil
		}
		return nil, fmt.Errorf("want a string, a bool or null, got %s", raw)
	}
	return nil, errors.New("cannot be set from a front end")
}

func decodeStrict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not JSON: %s", raw)
	}
	return nil
}

// jsonEqual compares two state values as JSON.
func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// quoted is s for text forms: Go-quoted.
func quoted(s string) string { return fmt.Sprintf("%q", s) }

// Description returns the widget's label ("" for kinds without one).
func (m *model) Description() string {
	s, _ := m.get("description").(string)
	return s
}

// SetDescription sets the widget's label.
func (m *model) SetDescription(description string) error {
	if m.get("description") == nil {
		return fmt.Errorf("%s has no description", m.kind)
	}
	return m.set(map[string]any{"description": description})
}

// SetDisabled greys the widget out (disabled) or enables it.
func (m *model) SetDisabled(disabled bool) error {
	if _, ok := m.get("disabled").(bool); !ok {
		return fmt.Errorf("%s cannot be disabled", m.kind)
	}
	return m.set(map[string]any{"disabled": disabled})
}
