package charts

import (
	"hash/fnv"
	"sync"
)

// Palette is the set of colours strategies are drawn in: colour-blind-aware
// hues, dark enough for text on white, distinct from each other.
var Palette = []string{
	"#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1",
	"#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#2f4b7c",
	"#a05195", "#665191", "#d45087", "#003f5c", "#7a9e3b",
	"#c2571a",
}

var colors struct {
	sync.Mutex
	byName map[string]string
	used   map[string]string // colour -> name
}

// ColorOf returns the colour of a strategy (or any series name). It is
// deterministic and shared process-wide, so a strategy has one colour in
// every chart of a notebook: the name's hash picks a slot in Palette, and a
// slot already taken by another name moves on to the next free one. Once
// every slot is taken, names share colours by hash. Safe for concurrent use.
func ColorOf(name string) string {
	colors.Lock()
	defer colors.Unlock()
	if c, ok := colors.byName[name]; ok {
		return c
	}
	if colors.byName == nil {
		colors.byName = map[string]string{}
		colors.used = map[string]string{}
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	start := int(h.Sum32() % uint32(len(Palette)))
	c := Palette[start]
	for i := 0; i < len(Palette); i++ {
		cand := Palette[(start+i)%len(Palette)]
		if _, taken := colors.used[cand]; !taken {
			c = cand
			break
		}
	}
	colors.byName[name] = c
	colors.used[c] = name
	return c
}

// SetColor fixes the colour of a name (a CSS colour such as "#336699"), for
// every chart drawn afterwards.
func SetColor(name, color string) {
	colors.Lock()
	defer colors.Unlock()
	if colors.byName == nil {
		colors.byName = map[string]string{}
		colors.used = map[string]string{}
	}
	colors.byName[name] = color
	colors.used[color] = name
}

// componentColors are the fixed colours of server-side time components, kept
// apart from the strategy palette's first hues.
var componentColors = map[string]string{
	"queue_wait_ms":   "#bab0ac",
	"gil_wait_ms":     "#e15759",
	"service_ms":      "#4e79a7",
	"gil_hold_ms":     "#f28e2b",
	"loop_blocked_ms": "#b07aa1",
}
