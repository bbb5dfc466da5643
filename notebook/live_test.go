package notebook

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A cell that opens a display and updates it while it runs: the notebook
// and its HTML keep the final state only; the progress shows live lines,
// the final one before the cell's own line.
func TestLiveUpdatesFinalStateOnly(t *testing.T) {
	const cell = `h, err := display.Open(display.Text("step 0 of 5"))
for i := 1; i <= 5; i++ {
	time.Sleep(40 * time.Millisecond)
	if err := h.Update(display.Text(fmt.Sprintf("step %d of 5", i))); err != nil {
		panic(err)
	}
}
fmt.Println("done")`
	for _, isolated := range []bool{false, true} {
		nb := goNotebook(t, cell)
		var progress bytes.Buffer
		opts := lab(Options{Name: "live", Progress: &progress})
		var err error
		if isolated {
			err = ExecuteIsolated(context.Background(), nb, opts, childCmd())
		} else {
			err = Execute(context.Background(), nb, opts)
		}
		if err != nil {
			t.Fatalf("isolated %v: %v", isolated, err)
		}
		c := nb.Cells[0]
		if got := outputTypes(c); got != "display_data,stream" {
			t.Fatalf("isolated %v: outputs %s; want display_data,stream", isolated, got)
		}
		if got := c.Outputs[0].Data["text/plain"]; got != "step 5 of 5" {
			t.Errorf("isolated %v: display holds %v; want the final state", isolated, got)
		}
		// The written notebook, read back, and the HTML report (outputs).
		var js, page bytes.Buffer
		if err := nb.Write(&js); err != nil {
			t.Fatal(err)
		}
		back, err := Read(&js)
		if err != nil {
			t.Fatal(err)
		}
		if outs := back.Cells[0].Outputs; len(outs) != 2 || outs[0].Data["text/plain"] != "step 5 of 5" {
			t.Errorf("isolated %v: the written notebook's outputs are %+v; want the final state only", isolated, outs)
		}
		if err := nb.WriteHTML(&page, HTMLOptions{HideCode: true}); err != nil {
			t.Fatal(err)
		}
		if h := page.String(); !strings.Contains(h, "step 5 of 5") || strings.Contains(h, "step 4 of 5") || strings.Contains(h, "step 0 of 5") {
			t.Errorf("isolated %v: the HTML does not hold the final state only", isolated)
		}
		p := progress.String()
		first := strings.Index(p, "live cell 1: step 1 of 5\n")
		final := strings.Index(p, "live cell 1: step 5 of 5\n")
		done := strings.Index(p, "live [1/1] cell 1")
		if first < 0 || final < first || done < final {
			t.Errorf("isolated %v: progress lacks the live lines in order:\n%s", isolated, p)
		}
		if n := strings.Count(p, "live cell 1: "); n > 6 {
			t.Errorf("isolated %v: %d live lines for 5 updates", isolated, n)
		}
	}
}

func TestLivePrinterTerminal(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := newLivePrinter(&b, "nb", true)
	p.update(2, "one")
	p.update(2, "two") // within liveTTYEvery: pending
	p.end()
	p.end() // nothing more
	want := "\rnb cell 2: one\x1b[K\rnb cell 2: two\x1b[K\n"
	if b.String() != want {
		t.Errorf("terminal output %q; want %q", b.String(), want)
	}
	var nilP *livePrinter
	nilP.update(1, "x") // a nil printer does nothing
	nilP.end()
}

func TestLiveLine(t *testing.T) {
	t.Parallel()
	tests := []struct{ prev, text, want string }{
		{"", "step 1", "step 1"},
		{"[1/2] a  1 s\n[2/2] b  waiting", "[1/2] a  2 s\n[2/2] b  waiting", "[1/2] a 2 s"},
		{"[1/2] a  done\n[2/2] b  1 s", "[1/2] a  done\n[2/2] b  2 s", "[2/2] b 2 s"},
		{"same\n", "same\n", "same"},
		{"", "\n\n", ""},
		{"", strings.Repeat("x", 200), strings.Repeat("x", liveMaxRunes-1) + "…"},
	}
	for _, tt := range tests {
		if got := liveLine(tt.prev, tt.text); got != tt.want {
			t.Errorf("liveLine(%q, %q) = %q; want %q", tt.prev, tt.text, got, tt.want)
		}
	}
}
