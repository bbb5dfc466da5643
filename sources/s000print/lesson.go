package s000print

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/calib"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
)

// MachineCosts is this machine's Costs: the calibration's framework part
// and this source's, read back from the calibration file when fresh,
// measured (a few seconds) when not (calib.Machine). A missing
// interpreter or package is a *cpython.MissingError naming it.
func MachineCosts(ctx context.Context) (*Costs, error) {
	t, err := calib.Machine(ctx, "", calib.FrameworkPart, Part)
	if err != nil {
		return nil, err
	}
	return CostsFrom(t)
}

// Listing is Python code as a fenced Markdown block; a cell whose value it
// is shows it as Markdown.
type Listing string

// Markdown is the listing.
func (l Listing) Markdown() string { return string(l) }

// Handlers is the real app's three handlers as a listing, each print()
// line marked: what the lesson judges.
func Handlers() (Listing, error) {
	code, err := Code("app000_print.py")
	if err != nil {
		return "", err
	}
	return Excerpt(code, `@app.get("/doPrint")`, "# Per-request traces", map[string]string{
		`print(f"doPrint line {i}")`: "◀ two write()s, on the event loop",
		`self.buf.append(line)`:      "◀ an append: the loop does not wait for the write",
		`os.write, fd, data`:         "◀ one write per batch, on a worker thread",
	}), nil
}

// Excerpt is the lines of code from the first that contains from up to
// (not including) the first after it that contains to ("" the end), as a
// fenced Python block with the file's line numbers, each line containing
// a key of marks ending with "  # " and its value.
func Excerpt(code, from, to string, marks map[string]string) Listing {
	lines := strings.Split(strings.TrimRight(code, "\n"), "\n")
	start, end := 0, len(lines)
	for i, l := range lines {
		if strings.Contains(l, from) {
			start = i
			break
		}
	}
	for i := start + 1; to != "" && i < len(lines); i++ {
		if strings.Contains(lines[i], to) {
			end = i
			break
		}
	}
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	var b strings.Builder
	b.WriteString("```python\n")
	for i := start; i < end; i++ {
		l := lines[i]
		for k, m := range marks {
			if strings.Contains(l, k) {
				l += "  # " + m
			}
		}
		fmt.Fprintf(&b, "%3d  %s\n", i+1, l)
	}
	b.WriteString("```\n")
	return Listing(b.String())
}

// Summary is a run's summary with rps_vs_none: each row's throughput over
// /dontPrint's on the same side (model over model, real over real; NaN
// when that side has no /dontPrint row), so it compares with Table's.
func Summary(res *bench.Result) (*frame.Frame, error) {
	rows := map[string]bool{}
	for _, s := range res.Summary.Texts("strategy") {
		rows[s] = true
	}
	return res.Summary.Compute("rps_vs_none", func(r frame.Row) any {
		none := DontPrint
		if strings.HasPrefix(r.Text("strategy"), cpython.RealPrefix) {
			none = cpython.RealPrefix + DontPrint
		}
		if !rows[none] {
			return math.NaN()
		}
		return r.Float("rps") / res.Value(none, "rps")
	})
}

// Frame is the count as a table: the setting, write(2)s per print().
func (w Writes) Frame() *frame.Frame {
	f := frame.Of("write(2) calls per print(\"...\") into a file, counted by the kernel", "stdout", "writes_per_print")
	f.MustAppend(frame.Row{"stdout": "PYTHONUNBUFFERED=1 (as the source ran)", "writes_per_print": w.Unbuffered})
	f.MustAppend(frame.Row{"stdout": "buffered (Python's default into a file)", "writes_per_print": w.Buffered})
	return f
}

// Threshold is where the loop's time per request stands against the
// closed loop's saturation point with these knobs and costs: the
// framework's loop time (f), one print() line (p), the loop time a
// request with one line (f + p) and with Lines lines, and Z / (N − 1),
// the S above which N VUs thinking Z saturate one loop.
func (k Knobs) Threshold(c *Costs) *frame.Frame {
	if c == nil {
		c = &Costs{}
	}
	f := frame.Of(fmt.Sprintf("loop time a request vs the saturation point (%d VUs, think %v)", k.VUs, k.Think), "what", "ms")
	add := func(what string, ms float64) { f.MustAppend(frame.Row{"what": what, "ms": ms}) }
	ms := func(d time.Duration) float64 { return d.Seconds() * 1000 }
	add("framework, a request (f)", ms(c.Framework.Loop))
	add("one print() line into a file (p)", ms(c.PrintLine))
	add("f + p: one line a request", ms(c.Framework.Loop+c.PrintLine))
	add(fmt.Sprintf("f + %d p: this lesson's lines", k.Lines), ms(c.Framework.Loop+c.PrintLine*time.Duration(k.Lines)))
	if k.VUs > 1 {
		add("saturation point Z / (N − 1)", k.Think.Seconds()*1000/float64(k.VUs-1))
	}
	return f
}
