package widgets

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// IntSlider is a slider of integers from Min to Max.
type IntSlider struct {
	*model
	onChange []func(int)
}

// NewIntSlider returns a slider labelled description, at value (kept within
// [min, max]), in steps of 1.
func NewIntSlider(description string, value, min, max int) *IntSlider {
	if max < min {
		min, max = max, min
	}
	st := stateOf(controlsModule, moduleVersion, "IntSliderModel", controlsModule, moduleVersion, "IntSliderView")
	sliderState(st)
	st["min"], st["max"], st["step"], st["readout_format"] = min, max, 1, "d"
	st["value"] = clampInt(value, min, max)
	s := &IntSlider{model: newModel("IntSlider", st)}
	s.domWidget(true, "SliderStyleModel", map[string]any{"description_width": "", "handle_color": nil})
	s.state["description"] = description
	s.valueKeys["value"] = true
	s.validate = func(key string, raw json.RawMessage) (any, error) {
		if key != "value" {
			return nil, errGeneric
		}
		v, err := decodeInt(raw)
		if err != nil {
			return nil, err
		}
		lo, hi := s.Range()
		return clampInt(v, lo, hi), nil
	}
	s.notify = func() error {
		v := s.Value()
		for _, h := range s.handlers() {
			h(v)
		}
		return nil
	}
	s.text = func() string {
		return fmt.Sprintf("IntSlider(%s = %d)", quoted(s.Description()), s.Value())
	}
	s.open()
	return s
}

func sliderState(st map[string]any) {
	st["behavior"] = "drag-tap"
	st["continuous_update"] = true
	st["disabled"] = false
	st["orientation"] = "horizontal"
	st["readout"] = true
}

// Value returns the slider's value.
func (s *IntSlider) Value() int { return asInt(s.get("value")) }

// Range returns the slider's bounds.
func (s *IntSlider) Range() (min, max int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return asInt(s.state["min"]), asInt(s.state["max"])
}

// SetValue moves the slider to v (kept within its bounds).
func (s *IntSlider) SetValue(v int) error {
	lo, hi := s.Range()
	return s.set(map[string]any{"value": clampInt(v, lo, hi)})
}

// SetStep sets the slider's step.
func (s *IntSlider) SetStep(step int) error {
	if step <= 0 {
		return fmt.Errorf("IntSlider.SetStep(%d): the step must be positive", step)
	}
	return s.set(map[string]any{"step": step})
}

// OnChange calls f with the new value whenever it changes (from a front end
// or SetValue).
func (s *IntSlider) OnChange(f func(v int)) {
	s.mu.Lock()
	s.onChange = append(s.onChange, f)
	s.mu.Unlock()
}

func (s *IntSlider) handlers() []func(int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]func(int){}, s.onChange...)
}

// FloatSlider is a slider of float64 values from Min to Max.
type FloatSlider struct {
	*model
	onChange []func(float64)
}

// NewFloatSlider returns a slider labelled description, at value (kept
// within [min, max]), in steps of a hundredth of the range, showing two
// decimals.
func NewFloatSlider(description string, value, min, max float64) *FloatSlider {
	if max < min {
		min, max = max, min
	}
	st := stateOf(controlsModule, moduleVersion, "FloatSliderModel", controlsModule, moduleVersion, "FloatSliderView")
	sliderState(st)
	step := (max - min) / 100
	if step == 0 {
		step = 0.1
	}
	st["min"], st["max"], st["step"], st["readout_format"] = min, max, step, ".2f"
	st["value"] = clampFloat(value, min, max)
	s := &FloatSlider{model: newModel("FloatSlider", st)}
	s.domWidget(true, "SliderStyleModel", map[string]any{"description_width": "", "handle_color": nil})
	s.state["description"] = description
	s.valueKeys["value"] = true
	s.validate = func(key string, raw json.RawMessage) (any, error) {
		if key != "value" {
			return nil, errGeneric
		}
		v, err := decodeFloat(raw)
		if err != nil {
			return nil, err
		}
		lo, hi := s.Range()
		return clampFloat(v, lo, hi), nil
	}
	s.notify = func() error {
		v := s.Value()
		for _, h := range s.handlers() {
			h(v)
		}
		return nil
	}
	s.text = func() string {
		return fmt.Sprintf("FloatSlider(%s = %s)", quoted(s.Description()), strconv.FormatFloat(s.Value(), 'g', -1, 64))
	}
	s.open()
	return s
}

// Value returns the slider's value.
func (s *FloatSlider) Value() float64 { return asFloat(s.get("value")) }

// Range returns the slider's bounds.
func (s *FloatSlider) Range() (min, max float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return asFloat(s.state["min"]), asFloat(s.state["max"])
}

// SetValue moves the slider to v (kept within its bounds).
func (s *FloatSlider) SetValue(v float64) error {
	lo, hi := s.Range()
	return s.set(map[string]any{"value": clampFloat(v, lo, hi)})
}

// SetStep sets the slider's step.
func (s *FloatSlider) SetStep(step float64) error {
	if !(step > 0) {
		return fmt.Errorf("FloatSlider.SetStep(%v): the step must be positive", step)
	}
	return s.set(map[string]any{"step": step})
}

// SetReadoutFormat sets how the value is shown (a d3-format, e.g. ".1f").
func (s *FloatSlider) SetReadoutFormat(format string) error {
	return s.set(map[string]any{"readout_format": format})
}

// OnChange calls f with the new value whenever it changes.
func (s *FloatSlider) OnChange(f func(v float64)) {
	s.mu.Lock()
	s.onChange = append(s.onChange, f)
	s.mu.Unlock()
}

func (s *FloatSlider) handlers() []func(float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]func(float64){}, s.onChange...)
}

// IntRangeSlider is a slider with two handles, a low and a high integer.
type IntRangeSlider struct {
	*model
	onChange []func(low, high int)
}

// NewIntRangeSlider returns a range slider labelled description from low to
// high (kept within [min, max], low <= high).
func NewIntRangeSlider(description string, low, high, min, max int) *IntRangeSlider {
	if max < min {
		min, max = max, min
	}
	if high < low {
		low, high = high, low
	}
	st := stateOf(controlsModule, moduleVersion, "IntRangeSliderModel", controlsModule, moduleVersion, "IntRangeSliderView")
	sliderState(st)
	st["min"], st["max"], st["step"], st["readout_format"] = min, max, 1, "d"
	st["value"] = []any{clampInt(low, min, max), clampInt(high, min, max)}
	s := &IntRangeSlider{model: newModel("IntRangeSlider", st)}
	s.domWidget(true, "SliderStyleModel", map[string]any{"description_width": "", "handle_color": nil})
	s.state["description"] = description
	s.valueKeys["value"] = true
	s.validate = func(key string, raw json.RawMessage) (any, error) {
		if key != "value" {
			return nil, errGeneric
		}
		var pair []json.RawMessage
		if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("want [low, high], got %s", raw)
		}
		a, err := decodeInt(pair[0])
		if err != nil {
			return nil, fmt.Errorf("low: %w", err)
		}
		b, err := decodeInt(pair[1])
		if err != nil {
			return nil, fmt.Errorf("high: %w", err)
		}
		if a > b {
			return nil, fmt.Errorf("low %d is above high %d", a, b)
		}
		lo, hi := s.Range()
		return []any{clampInt(a, lo, hi), clampInt(b, lo, hi)}, nil
	}
	s.notify = func() error {
		a, b := s.Value()
		for _, h := range s.handlers() {
			h(a, b)
		}
		return nil
	}
	s.text = func() string {
		a, b := s.Value()
		return fmt.Sprintf("IntRangeSlider(%s = %d..%d)", quoted(s.Description()), a, b)
	}
	s.open()
	return s
}

// Value returns the low and high values.
func (s *IntRangeSlider) Value() (low, high int) {
	v, _ := s.get("value").([]any)
	if len(v) != 2 {
		return 0, 0
	}
	return asInt(v[0]), asInt(v[1])
}

// Range returns the slider's bounds.
func (s *IntRangeSlider) Range() (min, max int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return asInt(s.state["min"]), asInt(s.state["max"])
}

// SetValue moves the handles (kept within the bounds; low <= high).
func (s *IntRangeSlider) SetValue(low, high int) error {
	if high < low {
		return fmt.Errorf("IntRangeSlider.SetValue(%d, %d): low is above high", low, high)
	}
	lo, hi := s.Range()
	return s.set(map[string]any{"value": []any{clampInt(low, lo, hi), clampInt(high, lo, hi)}})
}

// OnChange calls f with the new low and high whenever they change.
func (s *IntRangeSlider) OnChange(f func(low, high int)) {
	s.mu.Lock()
	s.onChange = append(s.onChange, f)
	s.mu.Unlock()
}

func (s *IntRangeSlider) handlers() []func(int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]func(int, int){}, s.onChange...)
}
