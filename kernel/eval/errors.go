package eval

import (
	"errors"
	"fmt"
	"go/scanner"
	"log"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// Error is a cell failure: a compile error, a panic or a failed shell line.
// Retrieve it with errors.As.
type Error struct {
	// Name is the error class: "CompileError", "panic", "ShellError",
	// "Interrupted".
	Name string
	// Value is the message.
	Value string
	// Line is the 1-based cell line the error points at (0 when unknown).
	Line int
	// Traceback is a human-readable trace, one entry per line.
	Traceback []string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: cell line %d: %s", e.Name, e.Line, e.Value)
	}
	return e.Name + ": " + e.Value
}

// fatalLog is the panic of log.Fatal* in a cell: the message is logged, and
// the cell fails with error name "log.Fatal" instead of ending the process.
type fatalLog struct{ msg string }

func (f fatalLog) Error() string { return f.msg }

func logFatal(l *log.Logger, msg string) {
	_ = l.Output(3, msg)
	panic(fatalLog{strings.TrimSuffix(msg, "\n")})
}

var posRE = regexp.MustCompile(`^(?:[^\s:]*\.go:)?(\d+):(\d+): `)

// compilePanic is a panic of yaegi's compiler.
type compilePanic struct{ v any }

func (c *compilePanic) Error() string {
	if e, ok := c.v.(error); ok {
		return e.Error()
	}
	return fmt.Sprint(c.v)
}

func (s *Session) mapError(err error, src string, line int) error {
	var p interp.Panic
	if errors.As(err, &p) {
		if f, ok := asCellFailure(p.Value); ok {
			// A failed error check (see errcheck.go).
			s.diag.take()
			at := f.line
			if at == 0 {
				at = line
			}
			return failureError(f.err, at, s.code)
		}
		p.Value = unbox(p.Value)
		e := &Error{Name: "panic", Value: fmt.Sprint(p.Value)}
		var errValue error
		if rv, ok := p.Value.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
			if pe, ok := rv.Interface().(error); ok {
				errValue = pe
			}
		}
		if pe, ok := p.Value.(error); ok {
			e.Value = pe.Error()
			errValue = pe
		}
		if fl, ok := p.Value.(fatalLog); ok {
			e.Name = "log.Fatal"
			e.Value = fl.msg
		}
		if h := limitHint(e.Value); h != "" {
			// yaegi's compiler on a construct it lacks.
			e.Name = "CompileError"
			e.Value += h
		}
		// yaegi reports the position of each frame the panic unwinds on
		// its stderr, innermost first (see panicLine).
		var inner int
		e.Line, inner = panicLine(s.diag.take(), src, line)
		e.Traceback = append(e.Traceback, "panic: "+e.Value)
		if n := panicErrorName(errValue); n != "" && e.Name == "panic" {
			// panic(err): named by the error's type, as a failed check is.
			e.Name = n
			e.Traceback[0] = "panic: " + e.Name + ": " + e.Value
		}
		if e.Line > 0 {
			e.Traceback = append(e.Traceback, fmt.Sprintf("  at cell line %d: %s", e.Line, srcLine(src, e.Line-line)))
			if inner > 0 {
				e.Traceback = append(e.Traceback, fmt.Sprintf("  raised in a function called there (line %d of the cell that declared it)", inner))
			}
		}
		return e
	}
	var list scanner.ErrorList
	msgs := []string{err.Error()}
	if errors.As(err, &list) && len(list) > 0 {
		msgs = msgs[:0]
		for _, x := range list {
			msgs = append(msgs, x.Error())
		}
	}
	e := &Error{Name: "CompileError"}
	for i, m := range msgs {
		text := m
		ln := 0
		if sm := posRE.FindStringSubmatch(m); sm != nil {
			ln, _ = strconv.Atoi(sm[1])
			ln-- // the leading newline added by run
			text = m[len(sm[0]):]
			col, _ := strconv.Atoi(sm[2])
			_ = col
		}
		if text == "constant definition loop" {
			// yaegi's report for a name used before it is defined.
			text += " (is a name undefined or misspelled?)"
		}
		text += limitHint(text)
		if i == 0 {
			e.Value, e.Line = text, ln
		}
		if ln > 0 {
			e.Traceback = append(e.Traceback, fmt.Sprintf("cell line %d: %s", ln, text))
			if l := srcLine(src, ln-line); l != "" {
				e.Traceback = append(e.Traceback, "    "+l)
			}
		} else {
			e.Traceback = append(e.Traceback, text)
		}
	}
	return e
}

// limitHint names the interpreter limit behind one of yaegi's internal
// compiler failures and the way around it ("" for other messages). The
// limits are listed in docs/kernel.md, "Known limits".
func limitHint(msg string) string {
	msg = strings.TrimPrefix(msg, "CFG post-order panic: ")
	switch {
	case strings.HasSuffix(msg, "nil type"), strings.HasSuffix(msg, "nil reflect type"):
		return " (a limit of the interpreter, yaegi: its compiler cannot type this construct. " +
			"Known causes: range over an integer whose type it cannot see (write for i := 0; i < n; i++); " +
			"a generic function's multi-value result, or a comma-ok receive from a channel of a cell-declared type, " +
			"assigned with := at the top level of a cell (declare the variables first: var v T; var ok bool; v, ok = ..., " +
			"or do it inside a func). See Known limits in docs/kernel.md)"
	}
	return ""
}

// srcLine returns line i (0-based) of src, trimmed.
func srcLine(src string, i int) string {
	lines := strings.Split(src, "\n")
	if i < 0 || i >= len(lines) {
		return ""
	}
	l := strings.TrimSpace(checkRE.ReplaceAllString(lines[i], ""))
	if strings.HasPrefix(l, "_conclabShow(") && strings.HasSuffix(l, ")") {
		l = l[len("_conclabShow(") : len(l)-1]
	}
	return l
}
