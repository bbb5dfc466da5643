//go:build go1.27

// Package conclab_encoding_json_v2 holds the generic members of
// encoding/json/v2, for the interpreter: the compiled functions for
// interface values, a function for T declining (errors.ErrUnsupported) values of other
// types.
package conclab_encoding_json_v2

import (
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"errors"

	"github.com/conclab/conclab/kernel/eval/internal/genstd/rt"
)

// GetOption returns the value stored in opts with the provided setter.
func GetOption[T any](opts jsonv2.Options, setter func(T) jsonv2.Options) (T, bool) {
	v, ok := rt.JSONGetOption(opts, setter)
	t, _ := v.(T)
	return t, ok
}

// MarshalFunc constructs a type-specific marshaler that specifies how to
// marshal values of type T.
func MarshalFunc[T any](fn func(T) ([]byte, error)) *jsonv2.Marshalers {
	return rt.JSONMarshalFunc(func(v any) ([]byte, error) {
		t, ok := v.(T)
		if !ok {
			return nil, errors.ErrUnsupported
		}
		return fn(t)
	})
}

// MarshalToFunc constructs a type-specific marshaler that specifies how to
// marshal values of type T, writing to an encoder.
func MarshalToFunc[T any](fn func(*jsontext.Encoder, T) error) *jsonv2.Marshalers {
	return rt.JSONMarshalToFunc(func(e *jsontext.Encoder, v any) error {
		t, ok := v.(T)
		if !ok {
			return errors.ErrUnsupported
		}
		return fn(e, t)
	})
}

// UnmarshalFunc constructs a type-specific unmarshaler that specifies how
// to unmarshal values of type T.
func UnmarshalFunc[T any](fn func([]byte, T) error) *jsonv2.Unmarshalers {
	return rt.JSONUnmarshalFunc(func(b []byte, v any) error {
		t, ok := v.(T)
		if !ok {
			return errors.ErrUnsupported
		}
		return fn(b, t)
	})
}

// UnmarshalFromFunc constructs a type-specific unmarshaler that specifies
// how to unmarshal values of type T, reading from a decoder.
func UnmarshalFromFunc[T any](fn func(*jsontext.Decoder, T) error) *jsonv2.Unmarshalers {
	return rt.JSONUnmarshalFromFunc(func(d *jsontext.Decoder, v any) error {
		t, ok := v.(T)
		if !ok {
			return errors.ErrUnsupported
		}
		return fn(d, t)
	})
}
