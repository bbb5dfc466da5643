package knob_test

import (
	"errors"
	"testing"
	"time"

	"github.com/conclab/conclab/sources/internal/knob"
)

func TestWant(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"ok", knob.Want("s", "vus", true, "in 1..10", 3), ""},
		{"int", knob.Want("s000print", "vus", false, "in 1..10000", -1), "s000print: knob vus must be in 1..10000, got -1"},
		{"duration", knob.Want("s003", "wait", false, "in (0, 10m]", -time.Second), "s003: knob wait must be in (0, 10m], got -1s"},
		{"string", knob.Want("s000upload", "image", false, `"8K JPEG" or "7 KB PNG"`, "gif"), `s000upload: knob image must be "8K JPEG" or "7 KB PNG", got "gif"`},
		{"first", knob.First(nil, knob.Want("s", "a", false, "1", 0), knob.Want("s", "b", false, "2", 0)), "s: knob a must be 1, got 0"},
		{"none", knob.First(nil, nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.want == "" {
				if tc.err != nil {
					t.Fatalf("got %v, want nil", tc.err)
				}
				return
			}
			if tc.err == nil || tc.err.Error() != tc.want {
				t.Fatalf("got %v, want %q", tc.err, tc.want)
			}
			var ke *knob.Error
			if !errors.As(tc.err, &ke) || ke.Knob == "" {
				t.Fatalf("%v is not a *knob.Error naming its knob", tc.err)
			}
		})
	}
}
