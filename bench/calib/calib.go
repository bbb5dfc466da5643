// Package calib is this machine's costs for the model: a table of named
// step costs, measured on the real CPython of conclab's pinned environment
// by the measurements the sources register, kept in a file the notebooks
// read instead of measuring again.
//
// A measurement is a source's part of the calibration: a name ("000
// upload"), the Python files it runs (hashed: when they change, the part is
// measured again) and a function returning its costs. Each source package
// registers its own in init (sources/s000upload registers the 8K image's
// steps, sources/s003 the sum of squares, ...), and this package registers
// the server stacks' own cost per request (FrameworkPart). So a new source
// adds its measurement in its own folder and touches no shared struct; its
// package reads its costs back by name (Table.Cost) and builds its model
// steps from them.
//
//	t, err := calib.Machine(ctx, "", calib.FrameworkPart, "000 upload") // the file's, or measured now
//	fw, err := calib.Framework(t)                                        // pymodel.FrameworkCost
//	c, err := t.Cost("000 upload", "decode")                             // one step: its CPU, its GIL share
//
// `conclab calibrate` measures every registered part and writes the file.
// CPU costs are CPU time (user + system), not wall time, so other load on a
// shared machine stretches them little (docs/calibration.md).
package calib

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/frame"
)

// Cost is one named cost measured on this machine (or stated for another,
// as the sources' laptop).
type Cost struct {
	// Name is the step's name within its part ("decode", "uvicorn loop").
	Name string `json:"name"`
	// Value is the step's cost: CPU time for CPU work, wall time for an
	// I/O wait (an insert).
	Value time.Duration `json:"value"`
	// GILHeld is the share of Value during which the step holds the GIL:
	// 1 for Python bytecode, 0 for an I/O wait or C code that releases it
	// throughout, between for a C extension (the GIL probe).
	GILHeld float64 `json:"gil_held"`
	// Detail says how it was measured.
	Detail string `json:"detail,omitempty"`
}

// Part is one measurement's costs.
type Part struct {
	Name string `json:"name"`
	// Scripts is the hash of the files that measured it (empty for stated
	// costs): a part measured by other files is measured again.
	Scripts  string    `json:"scripts,omitempty"`
	Measured time.Time `json:"measured"`
	Costs    []Cost    `json:"costs"`
}

// Table is a machine's calibration: its parts, each a list of costs.
type Table struct {
	// Machine is "this machine" or a description ("the source's M1
	// laptop (stated)").
	Machine string `json:"machine"`
	Python  string `json:"python"` // e.g. "CPython 3.11.2"
	CPUs    int    `json:"cpus"`
	Parts   []Part `json:"parts"`
}

// Part returns the named part.
func (t *Table) Part(name string) (Part, bool) {
	if t == nil {
		return Part{}, false
	}
	for _, p := range t.Parts {
		if p.Name == name {
			return p, true
		}
	}
	return Part{}, false
}

// Cost returns one cost by its part and name, or an error naming what the
// table has.
func (t *Table) Cost(part, name string) (Cost, error) {
	p, ok := t.Part(part)
	if !ok {
		return Cost{}, fmt.Errorf("calib: the calibration has no part %q (parts: %s)", part, strings.Join(t.partNames(), ", "))
	}
	var names []string
	for _, c := range p.Costs {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return Cost{}, fmt.Errorf("calib: part %q has no cost %q (costs: %s)", part, name, strings.Join(names, ", "))
}

func (t *Table) partNames() []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, p := range t.Parts {
		out = append(out, p.Name)
	}
	return out
}

// With returns a copy of t with p in place of its part of the same name
// (or added at the end).
func (t *Table) With(p Part) *Table {
	out := &Table{}
	if t != nil {
		*out = *t
	}
	out.Parts = nil
	replaced := false
	if t != nil {
		for _, q := range t.Parts {
			if q.Name == p.Name {
				q, replaced = p, true
			}
			out.Parts = append(out.Parts, q)
		}
	}
	if !replaced {
		out.Parts = append(out.Parts, p)
	}
	return out
}

// Frame is the table as a frame, one row per cost: part, step, cost_ms,
// gil_held (0..1), detail, then machine, python and cpus.
func (t *Table) Frame() *frame.Frame {
	title := "calibration"
	if t != nil {
		title += ": " + t.Machine
	}
	f := frame.New(title)
	for _, col := range []string{"part", "step", "cost_ms", "gil_held", "detail", "machine", "python", "cpus"} {
		k := frame.Label
		if col == "cost_ms" || col == "gil_held" || col == "cpus" {
			k = frame.Number
		}
		_ = f.AddColumn(col, k)
	}
	if t == nil {
		return f
	}
	for _, p := range t.Parts {
		for _, c := range p.Costs {
			f.MustAppend(frame.Row{"part": p.Name, "step": c.Name, "cost_ms": float64(c.Value) / float64(time.Millisecond),
				"gil_held": c.GILHeld, "detail": c.Detail, "machine": t.Machine, "python": t.Python, "cpus": t.CPUs})
		}
	}
	return f
}

// HTML renders the table's frame, so a cell's last value shows as a table.
func (t *Table) HTML() string { return t.Frame().HTML() }

// String renders the table's frame as text.
func (t *Table) String() string { return t.Frame().String() }

// check reports a cost the model cannot run: negative, or a GIL share
// outside 0..1, naming it.
func (p Part) check() error {
	if p.Name == "" {
		return errors.New("a part without a name")
	}
	for _, c := range p.Costs {
		if c.Name == "" || c.Value < 0 || !(c.GILHeld >= 0 && c.GILHeld <= 1) {
			return fmt.Errorf("part %q, cost %q: %v holding the GIL for %v; want a name, a cost >= 0 and a share in 0..1", p.Name, c.Name, c.Value, c.GILHeld)
		}
	}
	return nil
}

// Options tune a measurement.
type Options struct {
	// Python is the interpreter ("": the pinned environment's).
	Python string
	// Quick measures less (fewer repeats, smaller inputs), for tests:
	// figures to check the plumbing with, not to run a comparison on.
	Quick bool
}

// Measurement is a source's part of the calibration.
type Measurement struct {
	// Name names the part ("000 upload").
	Name string
	// Files are the Python files it runs (a source package's embedded py
	// directory); their hash is kept with the part, and a part measured
	// by other files is measured again.
	Files fs.FS
	// Measure returns the part's costs on this machine. A missing
	// interpreter or module is a *cpython.MissingError.
	Measure func(ctx context.Context, o Options) ([]Cost, error)
}

var (
	regMu sync.Mutex
	reg   []Measurement
)

// Register adds a measurement; a source package calls it in init. A
// second measurement of the same name, or one without a name or a
// function, panics (a programming error).
func Register(m Measurement) {
	regMu.Lock()
	defer regMu.Unlock()
	if m.Name == "" || m.Measure == nil {
		panic("calib: Register: a measurement needs a Name and a Measure function")
	}
	for _, r := range reg {
		if r.Name == m.Name {
			panic(fmt.Sprintf("calib: Register: %q registered twice", m.Name))
		}
	}
	reg = append(reg, m)
}

// Measurements lists the registered parts' names, in registration order.
func Measurements() []string {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]string, len(reg))
	for i, r := range reg {
		out[i] = r.Name
	}
	return out
}

// measurement returns the registered measurement named name.
func measurement(name string) (Measurement, error) {
	regMu.Lock()
	defer regMu.Unlock()
	var names []string
	for _, r := range reg {
		if r.Name == name {
			return r, nil
		}
		names = append(names, r.Name)
	}
	sort.Strings(names)
	return Measurement{}, fmt.Errorf("calib: no measurement %q is registered (registered: %s; a source's package registers its own when it is linked)", name, strings.Join(names, ", "))
}

// wanted is names, or every registered part when names is empty.
func wanted(names []string) ([]Measurement, error) {
	if len(names) == 0 {
		names = Measurements()
	}
	var out []Measurement
	for _, n := range names {
		m, err := measurement(n)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
