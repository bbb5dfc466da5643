package widgets

import (
	"strings"
)

// Box lays out child widgets: in a row (HBox) or a column (VBox).
type Box struct {
	*model
	children []Widget
}

// HBox is a row of widgets.
type HBox struct{ *Box }

// VBox is a column of widgets.
type VBox struct{ *Box }

// NewHBox returns a row of the children.
func NewHBox(children ...Widget) *HBox { return &HBox{newBox("HBox", children)} }

// NewVBox returns a column of the children.
func NewVBox(children ...Widget) *VBox { return &VBox{newBox("VBox", children)} }

func newBox(kind string, children []Widget) *Box {
	st := stateOf(controlsModule, moduleVersion, kind+"Model", controlsModule, moduleVersion, kind+"View")
	st["box_style"] = ""
	b := &Box{model: newModel(kind, st)}
	b.domWidget(false, "", nil)
	b.state["children"] = refs(children)
	b.children = append([]Widget(nil), children...)
	b.text = func() string {
		var parts []string
		for _, c := range b.Children() {
			parts = append(parts, c.base().String())
		}
		sep := "  "
		if kind == "VBox" {
			sep = "\n"
		}
		return strings.Join(parts, sep)
	}
	b.static = func() string { return boxHTML(kind, b.Children()) }
	b.open()
	return b
}

func refs(ws []Widget) []any {
	out := make([]any, 0, len(ws))
	for _, w := range ws {
		if w != nil {
			out = append(out, "IPY_MODEL_"+w.ModelID())
		}
	}
	return out
}

// Children returns the box's widgets.
func (b *Box) Children() []Widget {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Widget(nil), b.children...)
}

// SetChildren replaces the box's widgets.
func (b *Box) SetChildren(children ...Widget) error {
	b.mu.Lock()
	b.children = append([]Widget(nil), children...)
	b.mu.Unlock()
	return b.set(map[string]any{"children": refs(children)})
}
