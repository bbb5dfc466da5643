package display

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html"
	"sync"
)

// Publisher sends bundles to a front end. The kernel implements it with
// display_data, update_display_data and clear_output messages; the notebook
// runner records outputs. Implementations must be safe for concurrent use:
// goroutines started by a cell may display while the cell runs.
type Publisher interface {
	// Display shows d as a new output. When d has a display id
	// (Transient["display_id"]), the output can later be replaced by Update.
	Display(d Data) error
	// Update replaces every output shown with display id id by d.
	Update(id string, d Data) error
	// Clear clears the cell's outputs; with wait, the front end clears them
	// only when the next output arrives (no flicker).
	Clear(wait bool) error
}

var (
	pubMu sync.RWMutex
	pub   Publisher
)

// SetPublisher installs p as the publisher used by Display, Update and Clear
// and returns a function that restores the previous one. Safe for concurrent
// use; a nil p uninstalls.
func SetPublisher(p Publisher) (restore func()) {
	pubMu.Lock()
	prev := pub
	pub = p
	pubMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			pubMu.Lock()
			pub = prev
			pubMu.Unlock()
		})
	}
}

func current() Publisher {
	pubMu.RLock()
	defer pubMu.RUnlock()
	return pub
}

// Display shows d through the installed publisher (ErrNoPublisher without
// one), or in the capturer taking outputs (Capture).
func Display(d Data) error {
	if c := capturing(); c != nil {
		flush() // what was printed before shows before d
		return c.Display(d)
	}
	p := current()
	if p == nil {
		return ErrNoPublisher
	}
	return p.Display(d)
}

// Show renders v (see Render) and displays it; a plain value is shown as text.
func Show(v any) error {
	d, _ := Render(v)
	return Display(d)
}

// Update replaces the outputs shown with display id id by d: in the
// capturer that shows it (Capture), else through the installed publisher.
func Update(id string, d Data) error {
	if id == "" {
		return fmt.Errorf("display.Update: empty display id")
	}
	if c := owner(id); c != nil {
		return c.Update(id, d.WithID(id))
	}
	p := current()
	if p == nil {
		return ErrNoPublisher
	}
	return p.Update(id, d.WithID(id))
}

// Clear clears the current cell's outputs (see Publisher.Clear), or the
// capturer's taking outputs (Capture).
func Clear(wait bool) error {
	if c := capturing(); c != nil {
		flush()
		return c.Clear(wait)
	}
	p := current()
	if p == nil {
		return ErrNoPublisher
	}
	return p.Clear(wait)
}

// ClearOutput is Clear(wait) under gophernotes' and IPython's name.
func ClearOutput(wait bool) error { return Clear(wait) }

// NewID returns a fresh random display id.
func NewID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Handle is an updatable output, created by Open.
type Handle struct{ id string }

// Open displays d under a new display id and returns a handle to update it.
func Open(d Data) (*Handle, error) {
	h := &Handle{id: NewID()}
	return h, Display(d.WithID(h.id))
}

// ID returns the handle's display id.
func (h *Handle) ID() string { return h.id }

// Update replaces the handle's output with d.
func (h *Handle) Update(d Data) error { return Update(h.id, d) }

// Progress returns an HTML progress bar bundle for done of total with a label,
// meant for Open and Handle.Update (a live progress bar).
func Progress(label string, done, total int) Data {
	if total <= 0 {
		total = 1
	}
	if done < 0 {
		done = 0
	}
	if done > total {
		done = total
	}
	pct := 100 * float64(done) / float64(total)
	text := fmt.Sprintf("%s %d/%d (%.0f%%)", label, done, total, pct)
	h := fmt.Sprintf(`<div><progress value="%d" max="%d" style="width:20em"></progress> <span>%s</span></div>`,
		done, total, html.EscapeString(text))
	return MakeData3(MIMETypeHTML, text, h)
}
