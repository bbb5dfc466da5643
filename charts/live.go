package charts

import (
	"fmt"
	"sync"

	"github.com/conclab/conclab/display"
)

// Live is one output that is redrawn in place (a Jupyter display_id), so a
// running benchmark can draw as it goes:
//
//	live := charts.NewLive()
//	for ... { live.Show(charts.OverTime(partial, "rps")) }
//
// Every version of the output carries the ECharts library when the first
// one did, so the saved notebook keeps it whatever the last version was.
// Safe for concurrent use.
type Live struct {
	mu      sync.Mutex
	id      string
	shown   bool
	withLib bool
}

// NewLive returns a Live output with a fresh display id; nothing is shown
// until Show.
func NewLive() *Live { return &Live{id: display.NewID()} }

// ID returns the display id.
func (l *Live) ID() string { return l.id }

// Bundle returns what Show would publish for v (a *Chart, a *Group, or any
// value display.Render accepts), with the display id set.
func (l *Live) Bundle(v any) display.Data {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bundle(v)
}

func (l *Live) bundle(v any) display.Data {
	var d display.Data
	switch x := v.(type) {
	case *Chart:
		if !l.withLib {
			l.withLib = x.claim()
		}
		d = display.HTML(x.fragment(l.withLib && x.Err() == nil))
		d.Data[display.MIMETypeSVG] = x.SVG()
		d.Data[display.MIMETypeText] = x.String()
		withMIME(d.Data, x.mimeEntry())
	case *Group:
		if !l.withLib {
			l.withLib = x.claim()
		}
		d = display.HTML(x.fragment(l.withLib))
		d.Data[display.MIMETypeText] = x.text()
		withMIME(d.Data, x.mimeEntries()...)
	default:
		d, _ = display.Render(v)
	}
	return d.WithID(l.id)
}

// Show displays v the first time and replaces the output in place after.
func (l *Live) Show(v any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.bundle(v)
	if !l.shown {
		if err := display.Display(d); err != nil {
			return fmt.Errorf("charts: live display: %w", err)
		}
		l.shown = true
		return nil
	}
	if err := display.Update(l.id, d); err != nil {
		return fmt.Errorf("charts: live update: %w", err)
	}
	return nil
}
