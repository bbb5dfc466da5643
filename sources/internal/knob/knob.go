// Package knob names a lesson's knobs in a source package's errors. A
// lesson sets a source's Knobs from its parameters cell, whose variables
// are spelled as the learner types them (vus, threadWorkers), not as the
// Go fields they fill (VUs, ThreadWorkers): a knob out of range is
// reported by the notebook's name, so the learner sees which line of the
// parameters cell to change.
//
// A source package's Validate lists one Want per knob and returns First:
//
//	return knob.First(
//		knob.Want("s000print", "vus", k.VUs >= 1 && k.VUs <= 10000, "in 1..10000", k.VUs),
//		knob.Want("s000print", "think", k.Think >= 0, "0 or more", k.Think),
//	)
package knob

import "fmt"

// Error is a knob out of range.
type Error struct {
	// Source is the package reporting it ("s000print").
	Source string
	// Knob is the notebook's variable ("vus").
	Knob string
	// Want says what it must be ("in 1..10000"); Got is its value.
	Want string
	Got  any
}

func (e *Error) Error() string {
	got := e.Got
	if s, ok := got.(string); ok {
		got = fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%s: knob %s must be %s, got %v", e.Source, e.Knob, e.Want, got)
}

// Want is nil when ok holds, else an *Error naming the knob.
func Want(source, knob string, ok bool, want string, got any) error {
	if ok {
		return nil
	}
	return &Error{Source: source, Knob: knob, Want: want, Got: got}
}

// First is the first non-nil error of errs (the first knob out of range,
// in the parameters cell's order), or nil.
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
