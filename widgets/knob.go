package widgets

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
)

// A Knob is a control whose value can be written as text — in a page's
// address, `?tokens=6&users=8` — and read back: IntSlider, FloatSlider,
// IntRangeSlider, Dropdown, ToggleButtons, Checkbox and Text are Knobs.
// Reading is strict: text that is not a value of the control (not a
// number, out of its range, not one of its options) is an error naming
// the control, what came and what it takes, and the value stays as it was
// — unlike a front end's update, which is clamped.
type Knob interface {
	Widget
	// FormValue is the value as text: "6", "0.25", "2..5" (a range),
	// "true", an option's label, the text itself.
	FormValue() string
	// SetFormValue sets the value from its text form (FormValue's), or
	// returns an error and leaves it.
	SetFormValue(s string) error
}

var (
	_ Knob = (*IntSlider)(nil)
	_ Knob = (*FloatSlider)(nil)
	_ Knob = (*IntRangeSlider)(nil)
	_ Knob = (*Dropdown)(nil)
	_ Knob = (*ToggleButtons)(nil)
	_ Knob = (*Checkbox)(nil)
	_ Knob = (*Text)(nil)
)

// ErrNotValue is what SetFormValue's errors wrap: the text is not a value
// the control takes.
var ErrNotValue = errors.New("not a value the control takes")

func notValue(m *model, s, want string) error {
	return fmt.Errorf("%s %q: %q: %w; want %s", m.kind, m.Description(), s, ErrNotValue, want)
}

// FormValue returns the value in decimal.
func (s *IntSlider) FormValue() string { return strconv.Itoa(s.Value()) }

// SetFormValue sets the value from an integer in decimal within the
// slider's bounds.
func (s *IntSlider) SetFormValue(text string) error {
	lo, hi := s.Range()
	want := fmt.Sprintf("an integer from %d to %d", lo, hi)
	v, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || v < lo || v > hi {
		return notValue(s.model, text, want)
	}
	return s.SetValue(v)
}

// FormValue returns the value in the shortest decimal that reads back
// as it.
func (s *FloatSlider) FormValue() string { return strconv.FormatFloat(s.Value(), 'g', -1, 64) }

// SetFormValue sets the value from a decimal number within the slider's
// bounds.
func (s *FloatSlider) SetFormValue(text string) error {
	lo, hi := s.Range()
	want := fmt.Sprintf("a number from %g to %g", lo, hi)
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsNaN(v) || v < lo || v > hi {
		return notValue(s.model, text, want)
	}
	return s.SetValue(v)
}

// FormValue returns "low..high".
func (s *IntRangeSlider) FormValue() string {
	a, b := s.Value()
	return fmt.Sprintf("%d..%d", a, b)
}

// SetFormValue sets the handles from "low..high" within the slider's
// bounds, low <= high.
func (s *IntRangeSlider) SetFormValue(text string) error {
	lo, hi := s.Range()
	want := fmt.Sprintf("low..high, integers from %d to %d, low <= high", lo, hi)
	as, bs, ok := strings.Cut(strings.TrimSpace(text), "..")
	if !ok {
		return notValue(s.model, text, want)
	}
	a, err1 := strconv.Atoi(as)
	b, err2 := strconv.Atoi(bs)
	if err1 != nil || err2 != nil || a > b || a < lo || b > hi {
		return notValue(s.model, text, want)
	}
	return s.SetValue(a, b)
}

// FormValue returns the selected option's label.
func (s *selection) FormValue() string { return s.Value() }

// SetFormValue selects the option labelled text.
func (s *selection) SetFormValue(text string) error {
	if !slices.Contains(s.Options(), text) {
		return notValue(s.model, text, fmt.Sprintf("one of %q", s.Options()))
	}
	return s.SetValue(text)
}

// FormValue returns "true" or "false".
func (c *Checkbox) FormValue() string { return strconv.FormatBool(c.Value()) }

// SetFormValue sets the value from "true" or "false".
func (c *Checkbox) SetFormValue(text string) error {
	switch strings.TrimSpace(text) {
	case "true":
		return c.SetValue(true)
	case "false":
		return c.SetValue(false)
	}
	return notValue(c.model, text, "true or false")
}

// FormValue returns the text.
func (t *Text) FormValue() string { return t.Value() }

// SetFormValue sets the text.
func (t *Text) SetFormValue(text string) error { return t.SetValue(text) }

// Watch calls f after every change of w's value — from a front end or a
// setter — on the goroutine that made it (a front end's: the kernel's comm
// goroutine); f should return quickly. Kinds with no value (Button, Label,
// Output, boxes) never call it.
func Watch(w Widget, f func()) {
	if w == nil || f == nil {
		return
	}
	w.base().watch(f)
}

// PageQuery returns the query of the page address that started this
// kernel, and whether there is such a page: Voilà starts a kernel for each
// page visit and gives it the request's query string (its QUERY_STRING
// environment variable, as CGI does), so `http://host/?token=T&tokens=6`
// gives {token: [T], tokens: [6]}. Outside Voilà, and for a kernel Voilà
// preheated before any visit, there is none. A query that does not parse
// is an error (with the values that did parse).
func PageQuery() (url.Values, bool, error) { return pageQuery(os.Getenv) }

func pageQuery(getenv func(string) string) (url.Values, bool, error) {
	if !startedByVoila(getenv) || getenv("VOILA_PREHEAT") == "True" {
		return nil, false, nil
	}
	q, err := url.ParseQuery(getenv("QUERY_STRING"))
	if err != nil {
		return q, true, fmt.Errorf("widgets: the page's address: %w", err)
	}
	return q, true, nil
}
