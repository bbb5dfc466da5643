package display_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
)

// area is a Capturer keeping what it is given, as text.
type area struct {
	mu  sync.Mutex
	log []string
	ids map[string]bool
}

func (a *area) add(s string) {
	a.mu.Lock()
	a.log = append(a.log, s)
	a.mu.Unlock()
}
func (a *area) Display(d display.Data) error {
	if id, ok := d.Transient["display_id"].(string); ok {
		a.mu.Lock()
		if a.ids == nil {
			a.ids = map[string]bool{}
		}
		a.ids[id] = true
		a.mu.Unlock()
	}
	a.add("display " + fmt.Sprint(d.Data[display.MIMETypeText]))
	return nil
}
func (a *area) Update(id string, d display.Data) error {
	a.add("update " + fmt.Sprint(d.Data[display.MIMETypeText]))
	return nil
}
func (a *area) Clear(wait bool) error { a.add(fmt.Sprintf("clear %v", wait)); return nil }
func (a *area) Stream(name, text string) error {
	a.add(name + " " + text)
	return nil
}
func (a *area) Owns(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ids[id]
}
func (a *area) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.Join(a.log, "; ")
}

// The capture routes are per process, like the publisher: not parallel.

func TestCaptureRouting(t *testing.T) {
	cellPub := &area{}
	defer display.SetPublisher(cellPub)()
	flushes := 0
	defer display.SetFlusher(func() { flushes++ })()

	outer, inner := &area{}, &area{}
	endOuter := display.Capture(outer)
	display.Display(display.Text("a"))
	h, _ := display.Open(display.Text("live"))
	endInner := display.Capture(inner)
	display.Display(display.Text("b"))
	display.CaptureStream("stdout", "printed\n")
	display.Clear(true)
	endInner()
	endInner() // twice is harmless
	display.Display(display.Text("c"))
	endOuter()
	display.Display(display.Text("d"))
	h.Update(display.Text("live 2")) // still goes to the capturer that shows it
	if display.CaptureStream("stdout", "x") {
		t.Error("CaptureStream took text with no capture active")
	}
	if got, want := outer.String(), "display a; display live; display c; update live 2"; got != want {
		t.Errorf("outer got %q; want %q", got, want)
	}
	if got, want := inner.String(), "display b; stdout printed\n; clear true"; got != want {
		t.Errorf("inner got %q; want %q", got, want)
	}
	if got, want := cellPub.String(), "display d"; got != want {
		t.Errorf("the publisher got %q; want %q", got, want)
	}
	if flushes < 4 {
		t.Errorf("flushed %d times; want at both ends of both captures", flushes)
	}
	display.Release(outer)
	h.Update(display.Text("live 3"))
	if got := cellPub.String(); got != "display d; update live 3" {
		t.Errorf("after Release the update goes to the publisher: %q", got)
	}
}

// A cell that begins after a capture keeps its outputs; when it ends, the
// capture takes them again. A capture begun in the running cell takes them.
func TestCaptureLeavesLaterCellsAlone(t *testing.T) {
	cellPub := &area{}
	defer display.SetPublisher(cellPub)()
	bg := &area{}
	end := display.Capture(bg) // an Interact run, no cell running
	defer end()
	restore := cell.Set(context.Background()) // a cell begins
	display.Display(display.Text("cell's"))
	if display.CaptureStream("stdout", "cell printed") {
		t.Error("a capture older than the running cell took its printed text")
	}
	inCell := &area{}
	endIn := display.Capture(inCell) // an Output's Capture in that cell
	display.Display(display.Text("captured in the cell"))
	endIn()
	restore() // the cell ends
	display.Display(display.Text("background's"))
	if got := cellPub.String(); got != "display cell's" {
		t.Errorf("the cell's publisher got %q", got)
	}
	if got := bg.String(); got != "display background's" {
		t.Errorf("the earlier capture got %q; want only what came after the cell", got)
	}
	if got := inCell.String(); got != "display captured in the cell" {
		t.Errorf("the capture begun in the cell got %q", got)
	}
	display.Release(bg)
	display.Release(inCell)
}
