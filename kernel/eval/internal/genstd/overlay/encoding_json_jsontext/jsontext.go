//go:build go1.27

// Package conclab_encoding_json_jsontext holds the generic members of
// encoding/json/jsontext, for the interpreter.
package conclab_encoding_json_jsontext

import (
	"encoding/json/jsontext"

	"github.com/conclab/conclab/kernel/eval/internal/genstd/rt"
)

// AppendFormat formats the JSON value in src and appends it to dst.
func AppendFormat[Bytes ~[]byte | ~string](dst []byte, src Bytes, opts ...jsontext.Options) ([]byte, error) {
	return rt.JSONAppendFormat(dst, []byte(src), opts...)
}

// AppendQuote appends a double-quoted JSON string literal of src to dst.
func AppendQuote[Bytes ~[]byte | ~string](dst []byte, src Bytes) ([]byte, error) {
	return rt.JSONAppendQuote(dst, []byte(src))
}

// AppendUnquote appends the decoded interpretation of src as a
// double-quoted JSON string literal to dst.
func AppendUnquote[Bytes ~[]byte | ~string](dst []byte, src Bytes) ([]byte, error) {
	return rt.JSONAppendUnquote(dst, []byte(src))
}
