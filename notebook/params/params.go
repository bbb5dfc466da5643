// Package params gives a notebook parameters: values set from outside for
// one run (papermill's -p NAME VALUE, `conclab run -p NAME VALUE`) without
// editing the notebook.
//
// A notebook declares its parameters, with their defaults, as plain
// variables in a code cell tagged "parameters":
//
//	vus := 20              // virtual users
//	think := time.Second   // think time between requests
//	image := "8k"
//	quick := false
//
// A run with parameters gets one more cell, tagged "injected-parameters",
// right after that one (or in place of an earlier injected cell), as
// papermill does for every language. Its source is the same whether
// papermill's Go translator (python/conclab-papermill) or `conclab run`
// (notebook.ParametersCell) wrote it:
//
//	// Parameters
//	import "github.com/conclab/conclab/notebook/params"
//
//	params.Set(
//		params.Value("vus", &vus, "40"),
//		params.Value("think", &think, "500ms"),
//	)
//
// Each value travels as text and Set converts it to the type of the
// variable it is given, so values land typed: "40" becomes the int 40,
// "500ms" the time.Duration 500ms, "false" the bool false, "8k" the string
// "8k"; slices, maps and structs take JSON ("[1, 10, 100]"), and a type
// with an UnmarshalText method (time.Time, netip.Addr) parses its own text.
// An error names the parameter, the type it needed and the text, and no
// variable is changed; the cell fails with it, as every cell whose final
// call returns a non-nil error does.
//
// Parameters must be variables (:= or var): constants cannot be set.
// `conclab run` refuses a name the parameters cell does not declare before
// anything runs; under papermill, whose translator sees only the values,
// such a name fails the injected cell with "undefined: name".
package params

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// A Param is one parameter to set: the variable's name (for messages), a
// pointer to the variable, and the value as text. Make it with Value.
type Param struct {
	Name string
	Ptr  any
	Text string
}

// Value returns the parameter name, held in the variable ptr points to, to
// be set from text by Set.
func Value(name string, ptr any, text string) Param {
	return Param{Name: name, Ptr: ptr, Text: text}
}

// Set converts each parameter's text to the type of its variable and then
// assigns them all; when one fails nothing is assigned, and the error names
// each bad parameter, the type it needed and its text.
func Set(ps ...Param) error {
	vals := make([]reflect.Value, len(ps))
	var errs []error
	for i, p := range ps {
		v, err := convert(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		vals[i] = v
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for i, p := range ps {
		reflect.ValueOf(p.Ptr).Elem().Set(vals[i])
	}
	return nil
}

var (
	durationType        = reflect.TypeOf(time.Duration(0))
	textUnmarshalerType = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
)

// convert parses p.Text as a value of the type p.Ptr points to.
func convert(p Param) (reflect.Value, error) {
	pv := reflect.ValueOf(p.Ptr)
	if !pv.IsValid() || pv.Kind() != reflect.Pointer || pv.IsNil() {
		return reflect.Value{}, fmt.Errorf("parameter %s: want a pointer to the variable (&%s), got %T", p.Name, p.Name, p.Ptr)
	}
	t := pv.Type().Elem()
	bad := func(hint string) error {
		want := typeName(t)
		if hint != "" {
			want += " (" + hint + ")"
		}
		return fmt.Errorf("parameter %s: want %s, got %q", p.Name, want, p.Text)
	}
	out := reflect.New(t)
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		if err := out.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(p.Text)); err != nil {
			return reflect.Value{}, fmt.Errorf("parameter %s: want %s, got %q: %v", p.Name, typeName(t), p.Text, err)
		}
		return out.Elem(), nil
	}
	text := strings.TrimSpace(p.Text)
	v := out.Elem()
	switch {
	case t == durationType:
		d, err := time.ParseDuration(text)
		if err != nil {
			return reflect.Value{}, bad("a number with a unit: 500ms, 2s, 1m30s")
		}
		v.SetInt(int64(d))
	case t.Kind() == reflect.String:
		v.SetString(p.Text) // as given: spaces may matter
	case t.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return reflect.Value{}, bad("true or false")
		}
		v.SetBool(b)
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		n, err := strconv.ParseInt(text, 0, t.Bits())
		if err != nil {
			return reflect.Value{}, bad(numHint(err))
		}
		v.SetInt(n)
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr:
		n, err := strconv.ParseUint(text, 0, t.Bits())
		if err != nil {
			return reflect.Value{}, bad(numHint(err))
		}
		v.SetUint(n)
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		f, err := strconv.ParseFloat(text, t.Bits())
		if err != nil {
			return reflect.Value{}, bad(numHint(err))
		}
		v.SetFloat(f)
	case t.Kind() == reflect.Interface && t.NumMethod() == 0:
		v.Set(reflect.ValueOf(p.Text))
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map ||
		t.Kind() == reflect.Struct || t.Kind() == reflect.Pointer:
		if err := json.Unmarshal([]byte(text), out.Interface()); err != nil {
			return reflect.Value{}, fmt.Errorf("parameter %s: want %s as JSON, got %q: %v", p.Name, typeName(t), p.Text, err)
		}
	default:
		return reflect.Value{}, fmt.Errorf("parameter %s: a %s cannot be set from text (parameters are numbers, strings, bools, durations, or JSON for slices, maps and structs)",
			p.Name, typeName(t))
	}
	return v, nil
}

func numHint(err error) string {
	if errors.Is(err, strconv.ErrRange) {
		return "out of range"
	}
	return ""
}

func typeName(t reflect.Type) string {
	if s := t.String(); s != "" {
		return s
	}
	return t.Kind().String()
}
