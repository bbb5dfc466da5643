package widgets

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// selection is what Dropdown and ToggleButtons share: options (labels)
// and the index of the selected one, which is what front ends send.
type selection struct {
	*model
	onChange []func(string)
}

func newSelection(kind, modelName, viewName, styleName string, styleState map[string]any, description string,
	options []string, value string) (*selection, error) {
	if len(options) == 0 {
		return nil, fmt.Errorf("%s %q: no options", kind, description)
	}
	i := slices.Index(options, value)
	if i < 0 {
		return nil, fmt.Errorf("%s %q: value %q is not one of the options %q", kind, description, value, options)
	}
	labels := make([]any, len(options))
	for j, o := range options {
		labels[j] = o
	}
	st := stateOf(controlsModule, moduleVersion, modelName, controlsModule, moduleVersion, viewName)
	st["_options_labels"] = labels
	st["index"] = i
	st["disabled"] = false
	s := &selection{model: newModel(kind, st)}
	s.domWidget(true, styleName, styleState)
	s.state["description"] = description
	s.valueKeys["index"] = true
	s.validate = func(key string, raw json.RawMessage) (any, error) {
		if key != "index" {
			return nil, errGeneric
		}
		n, err := decodeInt(raw)
		if err != nil {
			return nil, err
		}
		if k := len(s.Options()); n < 0 || n >= k {
			return nil, fmt.Errorf("index %d is not one of the %d options", n, k)
		}
		return n, nil
	}
	s.notify = func() error {
		v := s.Value()
		for _, h := range s.handlers() {
			h(v)
		}
		return nil
	}
	s.text = func() string {
		return fmt.Sprintf("%s(%s = %s of %s)", kind, quoted(s.Description()), quoted(s.Value()),
			strings.Join(s.Options(), "|"))
	}
	return s, nil
}

// Options returns the labels to choose from.
func (s *selection) Options() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls, _ := s.state["_options_labels"].([]any)
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i], _ = l.(string)
	}
	return out
}

// Index returns the index of the selected option.
func (s *selection) Index() int { return asInt(s.get("index")) }

// Value returns the selected option.
func (s *selection) Value() string {
	opts, i := s.Options(), s.Index()
	if i < 0 || i >= len(opts) {
		return ""
	}
	return opts[i]
}

// SetValue selects the option v.
func (s *selection) SetValue(v string) error {
	i := slices.Index(s.Options(), v)
	if i < 0 {
		return fmt.Errorf("%s %q: %q is not one of the options %q", s.kind, s.Description(), v, s.Options())
	}
	return s.set(map[string]any{"index": i})
}

// OnChange calls f with the selected option whenever the selection changes.
func (s *selection) OnChange(f func(v string)) {
	s.mu.Lock()
	s.onChange = append(s.onChange, f)
	s.mu.Unlock()
}

func (s *selection) handlers() []func(string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]func(string){}, s.onChange...)
}

// Dropdown picks one of a list of options.
type Dropdown struct{ *selection }

// NewDropdown returns a dropdown labelled description showing value, one
// of options (an error when it is not, or there are none).
func NewDropdown(description string, options []string, value string) (*Dropdown, error) {
	s, err := newSelection("Dropdown", "DropdownModel", "DropdownView", "DescriptionStyleModel",
		map[string]any{"description_width": ""}, description, options, value)
	if err != nil {
		return nil, err
	}
	s.open()
	return &Dropdown{s}, nil
}

// ToggleButtons picks one of a few options shown side by side as buttons.
type ToggleButtons struct{ *selection }

// NewToggleButtons returns toggle buttons labelled description with value,
// one of options, pressed (an error when it is not, or there are none).
func NewToggleButtons(description string, options []string, value string) (*ToggleButtons, error) {
	s, err := newSelection("ToggleButtons", "ToggleButtonsModel", "ToggleButtonsView", "ToggleButtonsStyleModel",
		map[string]any{"button_width": "", "description_width": "", "font_weight": ""}, description, options, value)
	if err != nil {
		return nil, err
	}
	s.state["button_style"] = ""
	s.state["icons"] = []any{}
	s.state["tooltips"] = []any{}
	s.open()
	return &ToggleButtons{s}, nil
}
