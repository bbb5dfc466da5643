package widgets

import (
	"fmt"
)

// Progress is a progress bar of integers from 0 to Max.
type Progress struct{ *model }

// NewProgress returns a progress bar labelled description at value of max.
func NewProgress(description string, value, max int) *Progress {
	if max <= 0 {
		max = 1
	}
	st := stateOf(controlsModule, moduleVersion, "IntProgressModel", controlsModule, moduleVersion, "ProgressView")
	st["bar_style"], st["min"], st["max"], st["orientation"], st["value"] = "", 0, max, "horizontal", clampInt(value, 0, max)
	p := &Progress{model: newModel("Progress", st)}
	p.domWidget(true, "ProgressStyleModel", map[string]any{"bar_color": nil, "description_width": ""})
	p.state["description"] = description
	p.valueKeys["value"] = true
	p.validate = readOnlyValue
	p.text = func() string {
		v, m := p.Value(), p.Max()
		return fmt.Sprintf("%s %d/%d (%.0f%%)", p.Description(), v, m, 100*float64(v)/float64(m))
	}
	p.open()
	return p
}

// Value returns how far the bar is.
func (p *Progress) Value() int { return asInt(p.get("value")) }

// Max returns the bar's end.
func (p *Progress) Max() int { return asInt(p.get("max")) }

// SetValue moves the bar to v (kept within [0, Max]).
func (p *Progress) SetValue(v int) error {
	return p.set(map[string]any{"value": clampInt(v, 0, p.Max())})
}

// SetMax sets the bar's end (at least 1); the value stays within it.
func (p *Progress) SetMax(max int) error {
	if max <= 0 {
		return fmt.Errorf("Progress.SetMax(%d): the end must be positive", max)
	}
	return p.set(map[string]any{"max": max, "value": clampInt(p.Value(), 0, max)})
}

// SetBarStyle colours the bar: "success", "info", "warning", "danger", or
// "" for the plain one.
func (p *Progress) SetBarStyle(style string) error {
	switch style {
	case "", "success", "info", "warning", "danger":
		return p.set(map[string]any{"bar_style": style})
	}
	return fmt.Errorf("Progress.SetBarStyle(%q): want success, info, warning, danger or \"\"", style)
}
