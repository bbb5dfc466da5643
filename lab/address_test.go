package lab

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/widgets"
)

// The knob keys are the kernel's (one notebook per kernel), so these tests
// reset them and do not run in parallel with each other.
func resetKeys() {
	keysMu.Lock()
	keys = map[string]bool{}
	keysMu.Unlock()
}

func TestTakeKey(t *testing.T) {
	resetKeys()
	defer resetKeys()
	for _, c := range []struct{ label, want string }{
		{"tokens", "tokens"},
		{"think (ms)", "think-ms"},
		{"processes (0: default)", "processes-0-default"},
		{"GOMAXPROCS", "gomaxprocs"},
		{"rate (/s)", "rate-s"},
		{"tokens", "tokens-2"}, // a second try-it's
		{"Tokens!", "tokens-3"},
		{"token", "token-2"}, // Voilà's
		{"theme", "theme-2"},
		{"", "knob"},
		{"  ", "knob-2"},
		{"délai", "délai"},
	} {
		if got := takeKey(c.label); got != c.want {
			t.Errorf("takeKey(%q) = %q; want %q", c.label, got, c.want)
		}
	}
}

func TestPageAddress(t *testing.T) {
	resetKeys()
	defer resetKeys()
	tokens := widgets.NewIntSlider("tokens", 2, 1, 8)
	users := widgets.NewIntSlider("users", 8, 1, 16)
	runFor, err := widgets.NewToggleButtons("run for", []string{"2s", "30s"}, "2s")
	if err != nil {
		t.Fatal(err)
	}
	free := widgets.NewCheckbox("free-threaded", false)
	stop := widgets.NewButton("Stop") // no value: no key
	q, err := url.ParseQuery("token=T&tokens=6&users=99&run+for=30s&run-for=30s&free-threaded=maybe&free-threaded=true&bogus=1")
	if err != nil {
		t.Fatal(err)
	}
	a := newPageAddress([]widgets.Widget{tokens, users, runFor, free, stop}, q, nil)
	defer func() {
		for _, w := range []widgets.Widget{tokens, users, runFor, free, stop, a.out} {
			w.Close()
		}
	}()
	if tokens.Value() != 6 || users.Value() != 8 || runFor.Value() != "30s" || !free.Value() {
		t.Errorf("after the address: tokens %d, users %d, run for %s, free %v; want 6, 8 (99 ignored), 30s, true (the last of two)",
			tokens.Value(), users.Value(), runFor.Value(), free.Value())
	}
	st := a.state()
	var ks []string
	for _, k := range st.Knobs {
		ks = append(ks, k.Key+"="+k.Value+"/"+k.Default)
	}
	if got := strings.Join(ks, " "); got != "tokens=6/2 users=8/8 run-for=30s/2s free-threaded=true/false" {
		t.Errorf("knobs (key=value/lesson's) %q", got)
	}
	notes := strings.Join(st.Notes, "\n")
	for _, want := range []string{
		`ignored users=99 from the page's address (kept 8): IntSlider "users": "99": not a value the control takes; want an integer from 1 to 16`,
		`free-threaded is 2 times in the page's address; the last, "true", is taken`,
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	if len(st.Notes) != 2 {
		t.Errorf("%d notes; want 2: %q", len(st.Notes), st.Notes)
	}
	// The state follows the controls.
	if err := tokens.SetValue(3); err != nil {
		t.Fatal(err)
	}
	if text := a.out.Text(); !strings.Contains(text, "tokens=3") || strings.Count(text, "values in the page's address") != 1 {
		t.Errorf("after tokens → 3 the state output says %q; want one state with tokens=3", text)
	}
}

func TestPageAddressBadQuery(t *testing.T) {
	resetKeys()
	defer resetKeys()
	n := widgets.NewIntSlider("n", 2, 1, 8)
	q, qerr := url.ParseQuery("n=5&x=%zz")
	a := newPageAddress([]widgets.Widget{n}, q, qerr)
	defer a.out.Close()
	defer n.Close()
	if n.Value() != 5 || len(a.notes) != 1 || !strings.Contains(a.notes[0], "ignored the page's address") {
		t.Errorf("n = %d, notes %q; want 5 (what parsed) and a note on the rest", n.Value(), a.notes)
	}
}

// A Try in a Voilà page: the first run is made with the address's values.
func TestTryReadsPageAddress(t *testing.T) {
	resetKeys()
	defer resetKeys()
	prev := pageQuery
	pageQuery = func() (url.Values, bool, error) {
		return url.Values{"token": {"T"}, "tokens": {"6"}, "users": {"0"}}, true, nil
	}
	defer func() { pageQuery = prev }()
	tokens := widgets.NewIntSlider("tokens", 2, 1, 8)
	users := widgets.NewIntSlider("users", 8, 1, 16)
	defer tokens.Close()
	defer users.Close()
	var got string
	stop := errors.New("recorded")
	err := Try{Controls: []widgets.Widget{tokens, users}, Experiment: func() (bench.Experiment, error) {
		got = fmt.Sprintf("tokens %d users %d", tokens.Value(), users.Value())
		return bench.Experiment{}, stop
	}}.Show()
	if !errors.Is(err, stop) {
		t.Fatalf("Show = %v; want the experiment's error", err)
	}
	if got != "tokens 6 users 8" {
		t.Errorf("the first run saw %s; want tokens 6 users 8 (users=0 is out of range: ignored)", got)
	}
}
