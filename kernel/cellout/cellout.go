// Package cellout is the one model of what a Go cell shows: how a cell's
// results, displays, errors and streams become Jupyter outputs. The kernel
// (kernel.Kernel, publishing iopub messages) and the notebook runner
// (notebook.Execute, `conclab run`, writing nbformat outputs) both build
// their outputs here, so a notebook run either way shows the same thing
// (kernel/testdata/compare_outputs.py checks it on a notebook).
//
// The four kinds of output are Jupyter's: a stream (stdout, stderr), a
// display_data, the cell's execute_result, and an error.
package cellout

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/eval"
)

// The output kinds: nbformat's output_type and the iopub message type of
// each (the same names).
const (
	Stream        = "stream"
	DisplayData   = "display_data"
	ExecuteResult = "execute_result"
	Error         = "error"
)

// A Bundle is a MIME bundle in Jupyter's JSON form: each value is what
// goes into a message or a notebook file as is.
type Bundle struct {
	Data     map[string]any
	Metadata map[string]any
}

// BundleOf converts a display bundle to Jupyter's form:
//
//   - text MIME types (text/*, SVG, JavaScript) are strings: []byte
//     becomes its text;
//   - JSON MIME types (application/json, application/*+json) are decoded
//     JSON: a []byte or json.RawMessage holding JSON is decoded, any other
//     value is marshalled and decoded (numbers stay exact: json.Number);
//   - other binary types (PNG, JPEG, PDF) are base64 of their bytes;
//   - a string is kept; any other value becomes its fmt.Sprint text.
//
// Metadata values become decoded JSON. Neither map is nil.
func BundleOf(d display.Data) Bundle {
	b := Bundle{Data: make(map[string]any, len(d.Data)), Metadata: make(map[string]any, len(d.Metadata))}
	for k, v := range d.Data {
		b.Data[k] = mimeValue(k, v)
	}
	for k, v := range d.Metadata {
		b.Metadata[k] = jsonValue(v)
	}
	return b
}

// IsText reports whether the MIME type's content is text (a string in
// Jupyter's JSON), as opposed to base64 of binary content or decoded JSON.
func IsText(mime string) bool {
	return strings.HasPrefix(mime, "text/") || mime == display.MIMETypeSVG || mime == display.MIMETypeJavaScript
}

// IsJSON reports whether the MIME type's content is JSON, which Jupyter
// keeps decoded: application/json and application/*+json.
func IsJSON(mime string) bool {
	return mime == display.MIMETypeJSON || (strings.HasPrefix(mime, "application/") && strings.HasSuffix(mime, "+json"))
}

func mimeValue(mime string, v any) any {
	if IsJSON(mime) {
		switch x := v.(type) {
		case []byte:
			return decodedOr(x, string(x))
		case json.RawMessage:
			return decodedOr(x, string(x))
		case string:
			return x
		}
		return jsonValue(v)
	}
	switch x := v.(type) {
	case []byte:
		if IsText(mime) {
			return string(x)
		}
		return base64.StdEncoding.EncodeToString(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// jsonValue converts v to plain decoded JSON (maps, slices, json.Number,
// strings, booleans, nil); a value JSON cannot encode becomes its
// fmt.Sprint text.
func jsonValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return decodedOr(b, fmt.Sprint(v))
}

func decodedOr(b []byte, or any) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil || dec.More() {
		return or
	}
	return out
}

// Result is what a cell's value shows as its execute_result, and whether it
// shows one: the bundle the session rendered (by the value's methods,
// including those of types declared in cells), or, when that is empty,
// display.Render of the value.
func Result(res eval.Result) (display.Data, bool) {
	if !res.HasValue {
		return display.Data{}, false
	}
	d := res.Data
	if len(d.Data) == 0 {
		d, _ = display.Render(res.Value)
	}
	return d, len(d.Data) > 0
}

// An ErrorOutput is an error output: Jupyter's ename, evalue and traceback.
type ErrorOutput struct {
	EName     string
	EValue    string
	Traceback []string
}

// ErrorOf is the error output of a cell that failed with err. For the
// session's errors (*eval.Error) the name is the error's class ("panic",
// "CompileError", the type of a checked error such as "*os.PathError") and
// the value starts with the cell line it points at ("cell line 3: ...");
// the traceback is never empty (its first line names the error).
func ErrorOf(err error) ErrorOutput {
	var ee *eval.Error
	if errors.As(err, &ee) {
		o := ErrorOutput{EName: ee.Name, EValue: ee.Value, Traceback: ee.Traceback}
		if ee.Line > 0 {
			o.EValue = fmt.Sprintf("cell line %d: %s", ee.Line, ee.Value)
		}
		if len(o.Traceback) == 0 {
			o.Traceback = []string{o.EName + ": " + o.EValue}
		}
		return o
	}
	return ErrorOutput{EName: "Error", EValue: err.Error(), Traceback: []string{"Error: " + err.Error()}}
}

// Interrupted is the error output of a cell stopped from outside: name is
// "Interrupted" (the user, or the run, interrupted it) or "Timeout" (it ran
// past its time limit); why says what happened.
func Interrupted(name, why string) ErrorOutput {
	return ErrorOutput{EName: name, EValue: why, Traceback: []string{name + ": " + why}}
}

// Text is a stream's text as it arrives in writes: Next returns the text
// of the complete UTF-8 sequences written so far and keeps an incomplete
// one for the next write, so no output splits a character. Not safe for
// concurrent use.
type Text struct{ tail []byte }

// Next returns the text p completes.
func (t *Text) Next(p []byte) string {
	data := append(t.tail, p...)
	cut := len(data)
	for i := 1; i <= utf8.UTFMax && i <= len(data); i++ {
		if utf8.RuneStart(data[len(data)-i]) {
			if !utf8.FullRune(data[len(data)-i:]) {
				cut = len(data) - i
			}
			break
		}
	}
	t.tail = append(t.tail[:0:0], data[cut:]...)
	return string(data[:cut])
}

// CollapseCR applies carriage returns the way a terminal (and Jupyter's
// front ends) show them: within a line, text before the last "\r" is
// overwritten; "\r\n" is a newline. A recorded stream keeps only what it
// shows: a progress line rewritten a thousand times is one line.
func CollapseCR(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		if j := strings.LastIndexByte(strings.TrimRight(body, "\r"), '\r'); j >= 0 {
			lines[i] = body[j+1:] + l[len(body):]
		}
	}
	return strings.Join(lines, "")
}
