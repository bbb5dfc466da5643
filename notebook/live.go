package notebook

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Live progress: while a cell runs, each update of a display (display.Open
// then Handle.Update, e.g. bench.Run's live lines) that carries text/plain
// is reported to Options.Progress as one line: the line of the text that
// changed since the display's previous state (the strategy that moved), or
// its last line. On a terminal (Options.Terminal) the line rewrites itself
// in place (\r) at most every liveTTYEvery; otherwise one line is written at
// most every liveEvery. The latest state not yet written is written when
// the cell ends. The notebook keeps only each display's final state.

const (
	liveEvery    = time.Second
	liveTTYEvery = 100 * time.Millisecond
	liveMaxRunes = 160
)

// livePrinter writes live progress lines; safe for concurrent use.
type livePrinter struct {
	mu      sync.Mutex
	w       io.Writer
	name    string
	tty     bool
	last    time.Time // when a line was last written
	pending string    // the latest line not yet written
	open    bool      // a \r line is on the terminal without its newline
}

func newLivePrinter(w io.Writer, name string, tty bool) *livePrinter {
	return &livePrinter{w: w, name: name, tty: tty}
}

// update reports the line of cell number cell (1-based).
func (p *livePrinter) update(cell int, line string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	text := fmt.Sprintf("%s cell %d: %s", p.name, cell, line)
	every := liveEvery
	if p.tty {
		every = liveTTYEvery
	}
	if time.Since(p.last) < every {
		p.pending = text
		return
	}
	p.writeLocked(text)
}

func (p *livePrinter) writeLocked(text string) {
	p.pending = ""
	p.last = time.Now()
	if p.tty {
		// \x1b[K clears what a longer previous line left.
		fmt.Fprintf(p.w, "\r%s\x1b[K", text)
		p.open = true
		return
	}
	fmt.Fprintln(p.w, text)
}

// end writes the pending line and ends the terminal's live line: the cell
// ended, or another progress line follows.
func (p *livePrinter) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending != "" {
		p.writeLocked(p.pending)
	}
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
	p.last = time.Time{}
}

// liveLine is the line to report for a display's new text given its
// previous one: the last line that changed, else the last non-empty line;
// trimmed and cut to liveMaxRunes.
func liveLine(prev, text string) string {
	old := strings.Split(prev, "\n")
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	pick := ""
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if i >= len(old) || old[i] != l {
			pick = l
		}
	}
	if pick == "" {
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.TrimSpace(lines[i]) != "" {
				pick = lines[i]
				break
			}
		}
	}
	pick = strings.Join(strings.Fields(pick), " ")
	if r := []rune(pick); len(r) > liveMaxRunes {
		pick = string(r[:liveMaxRunes-1]) + "…"
	}
	return pick
}
