package widgets

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// Button is a push button; OnClick handlers run when it is clicked.
type Button struct {
	*model
	clickMu sync.Mutex
	onClick map[int]func()
	nextID  int
	clicks  int
}

// NewButton returns a button labelled description.
func NewButton(description string) *Button {
	st := stateOf(controlsModule, moduleVersion, "ButtonModel", controlsModule, moduleVersion, "ButtonView")
	st["button_style"], st["description"], st["disabled"], st["icon"] = "", description, false, ""
	b := &Button{model: newModel("Button", st), onClick: map[int]func(){}}
	b.domWidget(false, "ButtonStyleModel", map[string]any{"button_color": nil, "font_family": nil, "font_size": nil,
		"font_style": nil, "font_variant": nil, "font_weight": nil, "text_color": nil, "text_decoration": nil})
	b.state["description"] = description
	b.custom = func(content json.RawMessage) error {
		var c struct {
			Event string `json:"event"`
		}
		if err := json.Unmarshal(content, &c); err != nil {
			return fmt.Errorf("Button %s: custom content: %w", b.id, err)
		}
		if c.Event != "click" {
			return fmt.Errorf("Button %s: unknown event %q (want click)", b.id, c.Event)
		}
		return b.Click()
	}
	b.text = func() string { return fmt.Sprintf("Button(%s)", quoted(b.Description())) }
	b.open()
	return b
}

// OnClick calls f at every click.
func (b *Button) OnClick(f func()) { b.addClick(f) }

func (b *Button) addClick(f func()) int {
	b.clickMu.Lock()
	defer b.clickMu.Unlock()
	b.nextID++
	b.onClick[b.nextID] = f
	return b.nextID
}

func (b *Button) removeClick(id int) {
	b.clickMu.Lock()
	delete(b.onClick, id)
	b.clickMu.Unlock()
}

// Click clicks the button from the kernel side: the OnClick handlers run,
// in the order they were added. A handler's panic is recovered and
// returned as an error.
func (b *Button) Click() (err error) {
	b.clickMu.Lock()
	b.clicks++
	ids := make([]int, 0, len(b.onClick))
	for id := range b.onClick {
		ids = append(ids, id)
	}
	hs := make([]func(), 0, len(ids))
	slices.Sort(ids)
	for _, id := range ids {
		hs = append(hs, b.onClick[id])
	}
	b.clickMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("Button %q: a click handler panicked: %v", b.Description(), r)
		}
	}()
	for _, h := range hs {
		h()
	}
	return nil
}

// Clicks returns how many times the button was clicked.
func (b *Button) Clicks() int {
	b.clickMu.Lock()
	defer b.clickMu.Unlock()
	return b.clicks
}

// Context returns a context derived from parent that a click of the button
// cancels: a Stop button for the work that takes it. Call cancel when the
// work is over (it also forgets the click handler).
func (b *Button) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	id := b.addClick(func() { cancel(fmt.Errorf("stopped: %s clicked", quoted(b.Description()))) })
	stop := context.AfterFunc(ctx, func() { b.removeClick(id) })
	return ctx, func() {
		stop()
		b.removeClick(id)
		cancel(context.Canceled)
	}
}

// SetStyle sets the button's predefined style: "primary", "success",
// "info", "warning", "danger", or "" for the plain one.
func (b *Button) SetStyle(style string) error {
	switch style {
	case "", "primary", "success", "info", "warning", "danger":
		return b.set(map[string]any{"button_style": style})
	}
	return fmt.Errorf("Button.SetStyle(%q): want primary, success, info, warning, danger or \"\"", style)
}
