package widgets

import (
	"encoding/json"
	"fmt"
)

// Checkbox is a labelled checkbox: a bool.
type Checkbox struct {
	*model
	onChange []func(bool)
}

// NewCheckbox returns a checkbox labelled description, checked when value.
func NewCheckbox(description string, value bool) *Checkbox {
	st := stateOf(controlsModule, moduleVersion, "CheckboxModel", controlsModule, moduleVersion, "CheckboxView")
	st["disabled"], st["indent"], st["value"] = false, true, value
	c := &Checkbox{model: newModel("Checkbox", st)}
	c.domWidget(true, "CheckboxStyleModel", map[string]any{"background": nil, "description_width": ""})
	c.state["description"] = description
	c.valueKeys["value"] = true
	c.validate = func(key string, raw json.RawMessage) (any, error) {
		if key != "value" {
			return nil, errGeneric
		}
		return decodeBool(raw)
	}
	c.notify = func() error {
		v := c.Value()
		c.mu.Lock()
		hs := append([]func(bool){}, c.onChange...)
		c.mu.Unlock()
		for _, h := range hs {
			h(v)
		}
		return nil
	}
	c.text = func() string { return fmt.Sprintf("Checkbox(%s = %v)", quoted(c.Description()), c.Value()) }
	c.open()
	return c
}

// Value reports whether the box is checked.
func (c *Checkbox) Value() bool { b, _ := c.get("value").(bool); return b }

// SetValue checks or unchecks the box.
func (c *Checkbox) SetValue(v bool) error { return c.set(map[string]any{"value": v}) }

// OnChange calls f with the new value whenever it changes.
func (c *Checkbox) OnChange(f func(v bool)) {
	c.mu.Lock()
	c.onChange = append(c.onChange, f)
	c.mu.Unlock()
}

// Text is a one-line text field.
type Text struct {
	*model
	onChange []func(string)
}

// NewText returns a text field labelled description holding value.
func NewText(description, value string) *Text {
	st := stateOf(controlsModule, moduleVersion, "TextModel", controlsModule, moduleVersion, "TextView")
	st["continuous_update"], st["disabled"], st["placeholder"], st["value"] = true, false, "\u200b", value
	t := &Text{model: newModel("Text", st)}
	t.domWidget(true, "TextStyleModel", map[string]any{"background": nil, "description_width": "", "font_size": nil, "text_color": nil})
	t.state["description"] = description
	t.valueKeys["value"] = true
	t.validate = func(key string, raw json.RawMessage) (any, error) {
		if key != "value" {
			return nil, errGeneric
		}
		return decodeString(raw)
	}
	t.notify = func() error {
		v := t.Value()
		t.mu.Lock()
		hs := append([]func(string){}, t.onChange...)
		t.mu.Unlock()
		for _, h := range hs {
			h(v)
		}
		return nil
	}
	t.text = func() string { return fmt.Sprintf("Text(%s = %s)", quoted(t.Description()), quoted(t.Value())) }
	t.open()
	return t
}

// Value returns the text.
func (t *Text) Value() string { s, _ := t.get("value").(string); return s }

// SetValue replaces the text.
func (t *Text) SetValue(v string) error { return t.set(map[string]any{"value": v}) }

// OnChange calls f with the new text whenever it changes (as it is typed).
func (t *Text) OnChange(f func(v string)) {
	t.mu.Lock()
	t.onChange = append(t.onChange, f)
	t.mu.Unlock()
}

// Label shows a line of text.
type Label struct{ *model }

// NewLabel returns a label showing value.
func NewLabel(value string) *Label {
	st := stateOf(controlsModule, moduleVersion, "LabelModel", controlsModule, moduleVersion, "LabelView")
	st["placeholder"], st["value"] = "\u200b", value
	l := &Label{model: newModel("Label", st)}
	l.domWidget(true, "LabelStyleModel", map[string]any{"background": nil, "description_width": "", "font_family": nil,
		"font_size": nil, "font_style": nil, "font_variant": nil, "font_weight": nil, "text_color": nil, "text_decoration": nil})
	l.validate = readOnlyValue
	l.text = func() string { return l.Value() }
	l.open()
	return l
}

// Value returns the label's text.
func (l *Label) Value() string { s, _ := l.get("value").(string); return s }

// SetValue replaces the label's text.
func (l *Label) SetValue(v string) error { return l.set(map[string]any{"value": v}) }

// HTML shows a piece of HTML.
type HTML struct{ *model }

// NewHTML returns a widget showing the HTML value.
func NewHTML(value string) *HTML {
	st := stateOf(controlsModule, moduleVersion, "HTMLModel", controlsModule, moduleVersion, "HTMLView")
	st["placeholder"], st["value"] = "\u200b", value
	h := &HTML{model: newModel("HTML", st)}
	h.domWidget(true, "HTMLStyleModel", map[string]any{"background": nil, "description_width": "", "font_size": nil, "text_color": nil})
	h.validate = readOnlyValue
	h.text = func() string { return h.Value() }
	h.open()
	return h
}

// Value returns the HTML shown.
func (h *HTML) Value() string { s, _ := h.get("value").(string); return s }

// SetValue replaces the HTML shown.
func (h *HTML) SetValue(v string) error { return h.set(map[string]any{"value": v}) }

// readOnlyValue refuses a value from a front end (labels, HTML, progress
// bars show what the kernel sets).
func readOnlyValue(key string, raw json.RawMessage) (any, error) {
	if key == "value" {
		return nil, fmt.Errorf("is shown, not set, by a front end")
	}
	return nil, errGeneric
}
