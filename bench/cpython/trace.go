package cpython

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/conclab/conclab/bench/trace"
)

// Trace reads what the app has recorded so far (Options.Trace): every
// worker process's requests — worker numbered 1, 2, ... by first request
// when there are several, 0 for one —, requests numbered by arrival, and
// the threads named as the model names them ("loop" for the event loop,
// "anyio-k" for AnyIO's worker threads, "gthread-k" for gunicorn's, k in
// order of first use). Read it before Close, which removes the directory.
func (s *Server) Trace() (trace.Snapshot, error) {
	s.mu.Lock()
	dir := s.dir
	s.mu.Unlock()
	if !s.opts.Trace {
		return trace.Snapshot{}, errors.New("cpython: Trace: the server was not started with Options.Trace")
	}
	if dir == "" {
		return trace.Snapshot{}, errors.New("cpython: Trace: the server was not started")
	}
	files, err := filepath.Glob(filepath.Join(dir, "trace", "trace-*.tsv"))
	if err != nil {
		return trace.Snapshot{}, err
	}
	type proc struct {
		events []trace.Event
		first  int64
	}
	var procs []*proc
	for _, path := range files {
		evs, err := readTraceFile(path)
		if err != nil {
			return trace.Snapshot{}, err
		}
		if len(evs) == 0 {
			continue
		}
		p := &proc{events: evs, first: evs[0].Start}
		for _, e := range evs {
			p.first = min(p.first, e.Start)
		}
		procs = append(procs, p)
	}
	sort.Slice(procs, func(i, j int) bool { return procs[i].first < procs[j].first })
	var out trace.Snapshot
	for i, p := range procs {
		for _, e := range p.events {
			if len(procs) > 1 {
				e.Worker = i + 1
			}
			out.Events = append(out.Events, e)
		}
	}
	trace.Sort(out.Events)
	trace.Renumber(out.Events)
	out.Cap = len(out.Events)
	return out, nil
}

// maxTraceLines bounds what is read of one process's trace file.
const maxTraceLines = 1_000_000

// readTraceFile parses one process's lines: request, phase, thread,
// start_ns, end_ns, tab-separated.
func readTraceFile(path string) ([]trace.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names := map[string]string{}
	counts := map[string]int{}
	lane := func(thread string) string {
		if n, ok := names[thread]; ok {
			return n
		}
		base, _, _ := strings.Cut(thread, "#")
		var n string
		switch {
		case base == "loop queue", base == "responses", base == "loop":
			n = base
		case base == "MainThread":
			n = "loop"
		case strings.HasPrefix(base, "AnyIO worker"):
			counts["anyio"]++
			n = fmt.Sprintf("anyio-%d", counts["anyio"])
		case strings.HasPrefix(base, "ThreadPoolExecutor"):
			counts["gthread"]++
			n = fmt.Sprintf("gthread-%d", counts["gthread"])
		default:
			counts[base]++
			n = fmt.Sprintf("%s-%d", base, counts[base])
		}
		names[thread] = n
		return n
	}
	var evs []trace.Event
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if line > maxTraceLines {
			break
		}
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 5 {
			continue // a line cut short by a killed process
		}
		req, err1 := strconv.ParseInt(parts[0], 10, 64)
		start, err2 := strconv.ParseInt(parts[3], 10, 64)
		end, err3 := strconv.ParseInt(parts[4], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("cpython: trace %s line %d: %q", filepath.Base(path), line, sc.Text())
		}
		if end < start {
			end = start // as trace.Recorder.Add does
		}
		evs = append(evs, trace.Event{Request: req, Phase: parts[1], Thread: lane(parts[2]), Start: start, End: end})
	}
	return evs, sc.Err()
}

// countRequests counts the requests with an interval of phase p.
func countRequests(s trace.Snapshot, p trace.Phase) int {
	seen := map[int64]bool{}
	for _, e := range s.Events {
		if e.Phase == p {
			seen[e.Request] = true
		}
	}
	return len(seen)
}
