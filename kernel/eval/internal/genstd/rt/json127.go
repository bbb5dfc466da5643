//go:build go1.27

package rt

import (
	"encoding/json/jsontext"
	json "encoding/json/v2"
	"reflect"
)

func init() {
	extra["JSONGetOption"] = reflect.ValueOf(JSONGetOption)
	extra["JSONMarshalFunc"] = reflect.ValueOf(JSONMarshalFunc)
	extra["JSONMarshalToFunc"] = reflect.ValueOf(JSONMarshalToFunc)
	extra["JSONUnmarshalFunc"] = reflect.ValueOf(JSONUnmarshalFunc)
	extra["JSONUnmarshalFromFunc"] = reflect.ValueOf(JSONUnmarshalFromFunc)
	extra["JSONAppendFormat"] = reflect.ValueOf(JSONAppendFormat)
	extra["JSONAppendQuote"] = reflect.ValueOf(JSONAppendQuote)
	extra["JSONAppendUnquote"] = reflect.ValueOf(JSONAppendUnquote)
}

// JSONGetOption is json.GetOption for the option setters of the
// standard library (their values are booleans, strings, Marshalers and
// Unmarshalers).
func JSONGetOption(opts json.Options, setter any) (any, bool) {
	switch s := setter.(type) {
	case func(bool) json.Options:
		return json.GetOption(opts, s)
	case func(string) json.Options:
		return json.GetOption(opts, s)
	case func(*json.Marshalers) json.Options:
		return json.GetOption(opts, s)
	case func(*json.Unmarshalers) json.Options:
		return json.GetOption(opts, s)
	}
	return nil, false
}

// JSONMarshalFunc is json.MarshalFunc for interface values.
func JSONMarshalFunc(fn func(any) ([]byte, error)) *json.Marshalers { return json.MarshalFunc(fn) }

// JSONMarshalToFunc is json.MarshalToFunc for interface values.
func JSONMarshalToFunc(fn func(*jsontext.Encoder, any) error) *json.Marshalers {
	return json.MarshalToFunc(fn)
}

// JSONUnmarshalFunc is json.UnmarshalFunc for interface values.
func JSONUnmarshalFunc(fn func([]byte, any) error) *json.Unmarshalers { return json.UnmarshalFunc(fn) }

// JSONUnmarshalFromFunc is json.UnmarshalFromFunc for interface values.
func JSONUnmarshalFromFunc(fn func(*jsontext.Decoder, any) error) *json.Unmarshalers {
	return json.UnmarshalFromFunc(fn)
}

// JSONAppendFormat is jsontext.AppendFormat for bytes.
func JSONAppendFormat(dst, src []byte, opts ...jsontext.Options) ([]byte, error) {
	return jsontext.AppendFormat(dst, src, opts...)
}

// JSONAppendQuote is jsontext.AppendQuote for bytes.
func JSONAppendQuote(dst, src []byte) ([]byte, error) { return jsontext.AppendQuote(dst, src) }

// JSONAppendUnquote is jsontext.AppendUnquote for bytes.
func JSONAppendUnquote(dst, src []byte) ([]byte, error) { return jsontext.AppendUnquote(dst, src) }
