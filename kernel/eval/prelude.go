package eval

import (
	"fmt"
	"strings"

	"github.com/conclab/conclab/display"
)

const sinkPath = "github.com/conclab/conclab/kernel/eval/internal/sink"

const displayPath = "github.com/conclab/conclab/display"

// preludeDisplay is the part of the prelude for a session that links the
// display package: Display (gophernotes' name) and rendering by a Render()
// display.Data method. display is not imported here: ImportUsed makes it
// (like every linked package) available by name, and a cell may still
// import it explicitly.
const preludeDisplay = `func Display(d display.Data) error { return display.Display(d) }

type _conclabRenderer interface{ Render() display.Data }

func _conclabRender(v interface{}, m map[string]interface{}) (meta map[string]interface{}) {
	defer func() { recover() }()
	switch x := v.(type) {
	case _conclabRenderer:
		d := x.Render()
		for k, y := range d.Data {
			m[k] = y
		}
		meta = d.Metadata
	}
	return meta
}
`

// preludeNoDisplay stands for preludeDisplay without the display package.
const preludeNoDisplay = `func _conclabRender(v interface{}, m map[string]interface{}) map[string]interface{} { return nil }
`

// prelude is evaluated when a session starts, after preludeDisplay or
// preludeNoDisplay.
var prelude = `import _conclabsink "` + sinkPath + `"
import _conclabfmt "fmt"
import _conclabos "os"

func _conclabCell() uint64 { return _conclabsink.Cell() }

func _conclabCheck(v interface{}, line int) { _conclabsink.Check(v, line) }

func _conclabShowPair(v interface{}, err error) {
	_conclabCheck(err, 0)
	_conclabShow(v)
}

func _conclabShowErr(err error) { _conclabCheck(err, 0) }

func _conclabCheckPair(v interface{}, err error) { _conclabCheck(err, 0) }

func _conclabAsError(v interface{}) (error, bool) {
	if v == nil {
		return nil, false
	}
	if e, ok := v.(error); ok {
		return e, true
	}
	return _conclabsink.AsError(v)
}

func _conclabMustError(v interface{}) error {
	if e, ok := _conclabAsError(v); ok {
		return e
	}
	panic(_conclabsink.NotError(v))
}

func _conclabDefer(f func()) { _conclabsink.Defer(f) }

func _conclabGoEnter(cell uint64) { _conclabsink.GoEnter(cell) }

func _conclabGoLeave() { _conclabsink.GoLeave() }

func _conclabGoPanic(cell uint64, r interface{}) {
	_conclabfmt.Fprintf(_conclabos.Stderr, "panic in goroutine (recovered by conclab): %v\n", r)
	_conclabsink.GoPanic(cell, _conclabfmt.Sprint(r))
}

type _conclabSimple interface{ SimpleRender() map[string]interface{} }
type _conclabStringer interface{ String() string }

func _conclabTry(f func()) {
	defer func() { recover() }()
	f()
}
` + preludeFormats + `
func _conclabShow(v interface{}) {
	m := map[string]interface{}{}
	meta := _conclabRender(v, m)
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabSimple:
		for k, y := range x.SimpleRender() {
			m[k] = y
		}
	}
	})
	_conclabFormats(v, m)
	text := ""
	_conclabTry(func() {
	switch x := v.(type) {
	case _conclabStringer:
		text = x.String()
	}
	})
	_conclabsink.Set(v, m, meta, text)
}
`

// preludeFormats declares, for each single-format renderer of package
// display (display.Formats: HTML() string, PNG() []byte, PDF() []byte
// ...), an interface and a function _conclabFormats that puts the
// representation of each a value has into m. The session renders values of
// types declared in cells with it: their methods exist only in the
// interpreter, where display.Render, compiled, cannot call them.
var preludeFormats = func() string {
	var decls, calls strings.Builder
	for _, f := range display.Formats {
		m, ok := f.Interface.MethodByName(f.Method)
		if !ok || m.Type.NumOut() != 1 {
			continue
		}
		ret := strings.ReplaceAll(m.Type.Out(0).String(), "uint8", "byte")
		iface := "_conclabFormat" + f.Method
		fmt.Fprintf(&decls, "type %s interface{ %s() %s }\n", iface, f.Method, ret)
		fmt.Fprintf(&calls, "\t_conclabTry(func() {\n\tswitch x := v.(type) {\n\tcase %s:\n\t\tm[%q] = x.%s()\n\t}\n\t})\n", iface, f.MIME, f.Method)
	}
	return decls.String() + "\nfunc _conclabFormats(v interface{}, m map[string]interface{}) {\n" + calls.String() + "}\n"
}()
