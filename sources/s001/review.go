package s001

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/conclab/conclab/bench/frame"
)

// Finding is one line the review checklist flags: where (File, Line, the
// enclosing Function) and why (Reason).
type Finding struct {
	File     string
	Line     int
	Function string
	Reason   string
}

// The review's reasons.
const (
	NoAwait  = "async def without await: it runs on the event loop from start to end (make it def)"
	Blocking = "blocking call inside async def, not awaited nor offloaded: "
)

var (
	defLine = regexp.MustCompile(`^(\s*)(async\s+)?def\s+(\w+)\s*\(`)
	// blockingCalls are the calls the checklist's step 4 names (time.sleep,
	// requests.get, ...) and their kin: plain file I/O, Pillow, a function
	// named *_sync.
	blockingCalls = regexp.MustCompile(`\btime\.sleep\(|\brequests\.\w+\(|(^|[^.\w])open\(|\bImage\.\w+\(|\b\w+_sync\(|\bsubprocess\.\w+\(`)
	// offloaded marks a line that hands its call to a thread or awaits it.
	offloaded = regexp.MustCompile(`\bawait\b|to_thread\(|run_in_executor\(|run_in_threadpool\(|run_sync\(`)
	awaits    = regexp.MustCompile(`\bawait\b|\basync\s+(with|for)\b`)
	yields    = regexp.MustCompile(`\byield\b`)
)

// Scan applies the book's review checklist (§7, steps 1, 2 and 4) to one
// Python file's text, line by line: every async def whose own body has no
// await (nor async with / async for) is flagged at its def line — unless
// it yields (an async generator, e.g. a lifespan) — and every line of an
// async def's own body calling time.sleep, requests.*, open(, Image.*,
// subprocess.* or a *_sync( function without await, to_thread,
// run_in_executor or run_in_threadpool on that line is flagged with the
// call. Nested def bodies belong to the nested function; comments and
// triple-quoted strings are skipped. It is a line scan, not a parser: a
// call split over lines or hidden behind a helper goes unseen.
func Scan(file, text string) []Finding {
	type fn struct {
		name              string
		indent, line      int
		async, awaits, yi bool
		flagged           []Finding
	}
	var stack []*fn
	var out []Finding
	closeFn := func(f *fn) {
		if f.async && !f.awaits && !f.yi {
			out = append(out, Finding{File: file, Line: f.line, Function: f.name, Reason: NoAwait})
		}
		out = append(out, f.flagged...)
	}
	inString := ""
	for i, raw := range strings.Split(text, "\n") {
		line := raw
		if inString != "" {
			if j := strings.Index(line, inString); j >= 0 {
				line, inString = line[j+3:], ""
			} else {
				continue
			}
		}
		line = stripStrings(line, &inString)
		if h := strings.Index(line, "#"); h >= 0 {
			line = line[:h]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
		for len(stack) > 0 && indent <= stack[len(stack)-1].indent {
			closeFn(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
		if m := defLine.FindStringSubmatch(line); m != nil {
			stack = append(stack, &fn{name: m[3], indent: len(m[1]), line: i + 1, async: m[2] != ""})
			continue
		}
		if len(stack) == 0 {
			continue
		}
		f := stack[len(stack)-1]
		if !f.async {
			continue
		}
		if awaits.MatchString(line) {
			f.awaits = true
		}
		if yields.MatchString(line) {
			f.yi = true
		}
		if c := blockingCalls.FindString(line); c != "" && !offloaded.MatchString(line) {
			c = strings.TrimLeft(c, " \t=(,[:")
			f.flagged = append(f.flagged, Finding{File: file, Line: i + 1, Function: f.name, Reason: Blocking + c + ")"})
		}
	}
	for len(stack) > 0 {
		closeFn(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// stripStrings blanks the quoted strings of one line, so a call named in
// a string is not a call; a triple quote left open sets *open to it.
func stripStrings(line string, open *string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if strings.HasPrefix(line[i:], `"""`) || strings.HasPrefix(line[i:], `'''`) {
			q := line[i : i+3]
			j := strings.Index(line[i+3:], q)
			if j < 0 {
				*open = q
				return b.String()
			}
			i += 3 + j + 2
			b.WriteString(`""`)
			continue
		}
		if c := line[i]; c == '"' || c == '\'' {
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return b.String()
			}
			i += 1 + j
			b.WriteString(`""`)
			continue
		}
		b.WriteByte(line[i])
	}
	return b.String()
}

// Review is the checklist (Scan) over Python files of fsys: the names
// given, or every .py file when none are. Its frame has one row per
// finding: file, line, function, reason. A name fsys lacks is an error
// naming it.
func Review(fsys fs.FS, names ...string) (*frame.Frame, error) {
	if len(names) == 0 {
		all, err := fs.Glob(fsys, "*.py")
		if err != nil {
			return nil, fmt.Errorf("s001: Review: %w", err)
		}
		for _, n := range all {
			if !strings.HasPrefix(path.Base(n), "_") {
				names = append(names, n)
			}
		}
	}
	f := frame.Of("the review checklist (§7): lines to look at", "file", "line", "function", "reason")
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("s001: Review: %w", err)
		}
		for _, x := range Scan(n, string(b)) {
			f.MustAppend(frame.Row{"file": x.File, "line": x.Line, "function": x.Function, "reason": x.Reason})
		}
	}
	return f, nil
}
