package strategy_test

import (
	"fmt"

	"github.com/conclab/conclab/bench/strategy"
)

// MustPreset is Preset for names written in a cell; a changed copy is the
// typed family's value.
func ExampleMustPreset() {
	s := strategy.MustPreset("flask 1w x 5t")
	g := s.(strategy.Gunicorn)
	g.Name, g.Threads = "flask 1w x 20t", 20
	fmt.Println(s.Label(), "->", g.Label(), g.Validate() == nil)
	// Output:
	// flask 1w x 5t -> flask 1w x 20t true
}
