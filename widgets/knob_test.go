package widgets_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/conclab/conclab/widgets"
)

func TestKnobFormValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		make func() widgets.Knob
		text string
		want string // FormValue after SetFormValue; "" with err
		err  bool
	}{
		{"int", func() widgets.Knob { return widgets.NewIntSlider("n", 2, 1, 8) }, "6", "6", false},
		{"int spaces", func() widgets.Knob { return widgets.NewIntSlider("n", 2, 1, 8) }, " 8 ", "8", false},
		{"int above", func() widgets.Knob { return widgets.NewIntSlider("n", 2, 1, 8) }, "9", "2", true},
		{"int below", func() widgets.Knob { return widgets.NewIntSlider("n", 2, 1, 8) }, "0", "2", true},
		{"int not a number", func() widgets.Knob { return widgets.NewIntSlider("n", 2, 1, 8) }, "abc", "2", true},
		{"int fraction", func() widgets.Knob { return widgets.NewIntSlider("n", 2, 1, 8) }, "2.5", "2", true},
		{"int empty", func() widgets.Knob { return widgets.NewIntSlider("n", 2, 1, 8) }, "", "2", true},
		{"float", func() widgets.Knob { return widgets.NewFloatSlider("r", 1, 0, 10) }, "2.5", "2.5", false},
		{"float NaN", func() widgets.Knob { return widgets.NewFloatSlider("r", 1, 0, 10) }, "NaN", "1", true},
		{"float above", func() widgets.Knob { return widgets.NewFloatSlider("r", 1, 0, 10) }, "10.5", "1", true},
		{"range", func() widgets.Knob { return widgets.NewIntRangeSlider("p", 2, 4, 0, 10) }, "3..7", "3..7", false},
		{"range reversed", func() widgets.Knob { return widgets.NewIntRangeSlider("p", 2, 4, 0, 10) }, "7..3", "2..4", true},
		{"range out", func() widgets.Knob { return widgets.NewIntRangeSlider("p", 2, 4, 0, 10) }, "3..11", "2..4", true},
		{"range one", func() widgets.Knob { return widgets.NewIntRangeSlider("p", 2, 4, 0, 10) }, "3", "2..4", true},
		{"dropdown", func() widgets.Knob { return must(widgets.NewDropdown("d", []string{"a", "b"}, "a")) }, "b", "b", false},
		{"dropdown unknown", func() widgets.Knob { return must(widgets.NewDropdown("d", []string{"a", "b"}, "a")) }, "c", "a", true},
		{"toggle", func() widgets.Knob { return must(widgets.NewToggleButtons("t", []string{"2s", "30s"}, "2s")) }, "30s", "30s", false},
		{"checkbox", func() widgets.Knob { return widgets.NewCheckbox("c", false) }, "true", "true", false},
		{"checkbox other", func() widgets.Knob { return widgets.NewCheckbox("c", false) }, "1", "false", true},
		{"text", func() widgets.Knob { return widgets.NewText("s", "x") }, "a b&c", "a b&c", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			k := c.make()
			defer k.Close()
			err := k.SetFormValue(c.text)
			if (err != nil) != c.err {
				t.Fatalf("SetFormValue(%q) = %v; want error %v", c.text, err, c.err)
			}
			if err != nil && !errors.Is(err, widgets.ErrNotValue) {
				t.Errorf("error %v does not wrap ErrNotValue", err)
			}
			if got := k.FormValue(); got != c.want {
				t.Errorf("FormValue() = %q after SetFormValue(%q); want %q", got, c.text, c.want)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestWatch(t *testing.T) {
	t.Parallel()
	s := widgets.NewIntSlider("n", 2, 1, 8)
	defer s.Close()
	n := 0
	widgets.Watch(s, func() { n++ })
	_ = s.SetValue(3)
	_ = s.SetValue(3) // no change
	_ = s.SetFormValue("4")
	_ = s.SetFormValue("40") // refused
	if n != 2 {
		t.Errorf("the watcher ran %d times; want 2 (two changes)", n)
	}
}

func TestPageQuery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env    map[string]string
		ok     bool
		tokens string
		err    bool
	}{
		{map[string]string{"SERVER_SOFTWARE": "voila/0.5.13", "QUERY_STRING": "token=x&tokens=6"}, true, "6", false},
		{map[string]string{"SERVER_SOFTWARE": "voila/0.5.13", "QUERY_STRING": ""}, true, "", false},
		{map[string]string{"SERVER_SOFTWARE": "voila/0.5.13", "QUERY_STRING": "tokens=6&x=%zz"}, true, "6", true},
		{map[string]string{"SERVER_SOFTWARE": "voila/0.5.13", "VOILA_PREHEAT": "True", "QUERY_STRING": "tokens=6"}, false, "", false},
		{map[string]string{"QUERY_STRING": "tokens=6"}, false, "", false}, // a CGI, not Voilà
	} {
		q, ok, err := widgets.PageQueryOf(func(k string) string { return c.env[k] })
		if ok != c.ok || (err != nil) != c.err || q.Get("tokens") != c.tokens {
			t.Errorf("PageQuery with %v = %v, %v, %v; want tokens %q, %v, error %v", c.env, q, ok, err, c.tokens, c.ok, c.err)
		}
	}
}

// A page's address carries a control's value as text, read back strictly.
func ExampleKnob() {
	tokens := widgets.NewIntSlider("tokens", 2, 1, 8)
	fmt.Println(tokens.FormValue())
	fmt.Println(tokens.SetFormValue("6"), tokens.Value())
	err := tokens.SetFormValue("99")
	fmt.Println(errors.Is(err, widgets.ErrNotValue), tokens.Value())
	fmt.Println(err)
	// Output:
	// 2
	// <nil> 6
	// true 6
	// IntSlider "tokens": "99": not a value the control takes; want an integer from 1 to 8
}
