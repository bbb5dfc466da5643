package cellout_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cellout"
	"github.com/conclab/conclab/kernel/eval"
)

func TestBundleOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mime string
		in   any
		want any
	}{
		{"text string", "text/plain", "hi", "hi"},
		{"text bytes", "text/html", []byte("<b>x</b>"), "<b>x</b>"},
		{"svg bytes are text", display.MIMETypeSVG, []byte("<svg/>"), "<svg/>"},
		{"javascript bytes are text", display.MIMETypeJavaScript, []byte("1+1"), "1+1"},
		{"png base64", display.MIMETypePNG, []byte{0x89, 'P', 'N', 'G'}, "iVBORw=="},
		{"pdf base64", display.MIMETypePDF, []byte("%PDF"), "JVBERg=="},
		{"json map decoded", display.MIMETypeJSON, map[string]int{"a": 1}, map[string]any{"a": json.Number("1")}},
		{"json bytes decoded", display.MIMETypeJSON, []byte(`{"a":[1,2]}`), map[string]any{"a": []any{json.Number("1"), json.Number("2")}}},
		{"json raw message decoded", "application/vnd.x+json", json.RawMessage(`[true]`), []any{true}},
		{"json bytes not json kept as text", display.MIMETypeJSON, []byte(`{oops`), "{oops"},
		{"json string kept", display.MIMETypeJSON, "plain", "plain"},
		{"big number exact", display.MIMETypeJSON, map[string]uint64{"n": 1<<63 + 1}, map[string]any{"n": json.Number("9223372036854775809")}},
		{"other value printed", "text/latex", 42, "42"},
		{"json of unencodable value printed", display.MIMETypeJSON, make(chan int), fmt.Sprint(make(chan int))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := cellout.BundleOf(display.Data{Data: display.MIMEMap{tt.mime: tt.in}})
			got := b.Data[tt.mime]
			if tt.name == "json of unencodable value printed" {
				if _, ok := got.(string); !ok {
					t.Errorf("got %#v; want text", got)
				}
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v; want %#v", got, tt.want)
			}
			if b.Metadata == nil {
				t.Error("nil metadata")
			}
		})
	}
}

func TestBundleMetadata(t *testing.T) {
	t.Parallel()
	b := cellout.BundleOf(display.Data{Data: display.MIMEMap{"text/plain": "x"},
		Metadata: display.MIMEMap{"image/png": map[string]int{"width": 3}}})
	if want := map[string]any{"width": json.Number("3")}; !reflect.DeepEqual(b.Metadata["image/png"], want) {
		t.Errorf("metadata = %#v; want %#v", b.Metadata["image/png"], want)
	}
}

type shown struct{}

func (shown) HTML() string { return "<i>shown</i>" }

func TestResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		res    eval.Result
		want   display.MIMEMap
		wantOK bool
	}{
		{"no value", eval.Result{}, nil, false},
		{"session's bundle", eval.Result{Value: 1, HasValue: true, Data: display.Data{Data: display.MIMEMap{"text/plain": "one"}}},
			display.MIMEMap{"text/plain": "one"}, true},
		{"empty bundle falls back to display.Render", eval.Result{Value: shown{}, HasValue: true},
			display.MIMEMap{"text/html": "<i>shown</i>", "text/plain": "{}"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := cellout.Result(tt.res)
			if ok != tt.wantOK || (ok && !reflect.DeepEqual(d.Data, tt.want)) {
				t.Errorf("Result = %#v, %v; want %#v, %v", d.Data, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestErrorOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want cellout.ErrorOutput
	}{
		{"session error with line", &eval.Error{Name: "panic", Value: "boom", Line: 3, Traceback: []string{"panic: boom", "  at cell line 3"}},
			cellout.ErrorOutput{EName: "panic", EValue: "cell line 3: boom", Traceback: []string{"panic: boom", "  at cell line 3"}}},
		{"session error without traceback", &eval.Error{Name: "CompileError", Value: "undefined: x", Line: 1},
			cellout.ErrorOutput{EName: "CompileError", EValue: "cell line 1: undefined: x", Traceback: []string{"CompileError: cell line 1: undefined: x"}}},
		{"wrapped session error", fmt.Errorf("running: %w", &eval.Error{Name: "ShellError", Value: "exit status 1"}),
			cellout.ErrorOutput{EName: "ShellError", EValue: "exit status 1", Traceback: []string{"ShellError: exit status 1"}}},
		{"other error", errors.New("closed"),
			cellout.ErrorOutput{EName: "Error", EValue: "closed", Traceback: []string{"Error: closed"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cellout.ErrorOf(tt.err); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ErrorOf = %#v; want %#v", got, tt.want)
			}
		})
	}
	if got := cellout.Interrupted("Timeout", "timed out after 1s"); got.Traceback[0] != "Timeout: timed out after 1s" {
		t.Errorf("Interrupted = %#v", got)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"ascii", []string{"ab", "c"}, []string{"ab", "c"}},
		{"split euro sign", []string{"x\xe2\x82", "\xacy"}, []string{"x", "€y"}},
		{"split four bytes", []string{"\xf0", "\x9f", "\x98", "\x80!"}, []string{"", "", "", "😀!"}},
		{"invalid bytes pass", []string{"\xff\xfe", "a"}, []string{"\xff\xfe", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tx cellout.Text
			for i, w := range tt.writes {
				if got := tx.Next([]byte(w)); got != tt.want[i] {
					t.Errorf("write %d: %q; want %q", i, got, tt.want[i])
				}
			}
		})
	}
}

func TestCollapseCR(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain\n", "plain\n"},
		{"a\rb\n", "b\n"},
		{"1\r2\r3", "3"},
		{"line\r\nnext\n", "line\nnext\n"},
		{"x\r", "x\r"},
	}
	for _, tt := range tests {
		if got := cellout.CollapseCR(tt.in); got != tt.want {
			t.Errorf("CollapseCR(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
