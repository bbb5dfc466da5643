package lab

import (
	"reflect"
	"testing"
)

func TestFoldWarnings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		in   []string
		want []string
	}{
		{"none", nil, nil},
		{"others kept", []string{"a: trace: 3 events dropped"}, []string{"a: trace: 3 events dropped"}},
		{"folded per strategy, in order", []string{
			"asyncio: Executing <Task POST /upload> took 0.201 seconds",
			"sync: server CPU left out",
			"asyncio: Executing <Task POST /upload> took 0.250 seconds",
			"model x: Executing <Task GET /a b> took 1.5 seconds",
		}, []string{
			`asyncio: 2 slow callbacks held the event loop (the longest 0.250 s); asyncio's debug mode logs each as "Executing <Task …> took … seconds"`,
			"sync: server CPU left out",
			`model x: 1 slow callback held the event loop (the longest 1.500 s); asyncio's debug mode logs each as "Executing <Task …> took … seconds"`,
		}},
	} {
		if got := foldWarnings(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}
