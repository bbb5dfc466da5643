package strategy

import (
	"math"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/pymodel"
)

// totals are additive server-side counters; prefork children send theirs to
// the parent as JSON.
type totals struct {
	Requests    int64    `json:"requests"`
	Errors      int64    `json:"errors"`
	CPUNs       int64    `json:"cpu_ns"`
	PoolCPUNs   int64    `json:"pool_cpu_ns"` // the part of CPUNs spent in pool workers
	RSSMB       float64  `json:"rss_mb"`
	GILWaitNs   int64    `json:"gil_wait_ns"`
	GILHoldNs   int64    `json:"gil_hold_ns"`
	Handoffs    int64    `json:"handoffs"`
	LoopBusyNs  int64    `json:"loop_busy_ns"`
	LoopMaxNs   int64    `json:"loop_max_ns"`
	Slow        int64    `json:"slow"`
	Warnings    []string `json:"warnings,omitempty"`
	QueueNs     int64    `json:"queue_ns"`
	QueueMaxNs  int64    `json:"queue_max_ns"`
	ServiceNs   int64    `json:"service_ns"`
	Processes   int      `json:"processes"`
	PoolTasks   int64    `json:"pool_tasks"`
	PoolIPC     int64    `json:"pool_ipc"`
	PoolReplace int64    `json:"pool_replaced"`
}

func (t *totals) add(o totals) {
	t.Requests += o.Requests
	t.Errors += o.Errors
	t.CPUNs += o.CPUNs
	t.PoolCPUNs += o.PoolCPUNs
	t.RSSMB += o.RSSMB
	t.GILWaitNs += o.GILWaitNs
	t.GILHoldNs += o.GILHoldNs
	t.Handoffs += o.Handoffs
	t.LoopBusyNs += o.LoopBusyNs
	t.LoopMaxNs = max(t.LoopMaxNs, o.LoopMaxNs)
	t.Slow += o.Slow
	if room := 100 - len(t.Warnings); room > 0 {
		t.Warnings = append(t.Warnings, o.Warnings[:min(room, len(o.Warnings))]...)
	}
	t.QueueNs += o.QueueNs
	t.QueueMaxNs = max(t.QueueMaxNs, o.QueueMaxNs)
	t.ServiceNs += o.ServiceNs
	t.Processes += o.Processes
	t.PoolTasks += o.PoolTasks
	t.PoolIPC += o.PoolIPC
	t.PoolReplace += o.PoolReplace
}

func runtimeTotals(st pymodel.Stats) totals {
	return totals{
		Requests: st.Requests, Errors: st.Errors, CPUNs: int64(st.CPU), RSSMB: st.PeakRSSMB,
		PoolCPUNs: int64(st.Pool.CPU * float64(time.Second)),
		GILWaitNs: int64(st.GIL.Wait), GILHoldNs: int64(st.GIL.Hold), Handoffs: st.GIL.Handoffs,
		LoopBusyNs: int64(st.Loop.Busy), LoopMaxNs: int64(st.Loop.MaxCallback), Slow: st.Loop.SlowCallbacks,
		Warnings: st.Loop.Warnings, QueueNs: int64(st.QueueWait), QueueMaxNs: int64(st.QueueMax),
		ServiceNs: int64(st.Service), Processes: st.Pool.Workers,
		PoolTasks: st.Pool.Tasks, PoolIPC: st.Pool.IPCBytes, PoolReplace: st.Pool.Replaced,
	}
}

// Stats are a server's measures, cumulative since Start.
type Stats struct {
	Requests int64 // workload and health requests handled
	Errors   int64 // failed requests
	// CPUSeconds is CPU time spent on the work: measured on CPU steps in
	// this process, plus the whole CPU time of every worker process.
	CPUSeconds float64
	// PeakRSSMB is the hosting process's peak RSS plus each worker
	// process's (children included).
	PeakRSSMB float64
	// GIL: total time threads waited for it, total time it was held, and
	// forced switches. Zero for Go-native and free-threaded servers.
	GILWait, GILHold time.Duration
	Handoffs         int64
	// LoopBlocked is the total time event-loop callbacks ran (nothing else
	// could run on the loop); LoopBlockedMax the longest one.
	LoopBlocked, LoopBlockedMax time.Duration
	// SlowCallbacks counts callbacks over the slow-callback duration;
	// Warnings holds the first 100 asyncio-style warning lines.
	SlowCallbacks int64
	Warnings      []string
	// QueueWait and Service are means over successful requests: time
	// waiting for the loop, a token or a thread, then time being served.
	QueueWait, QueueWaitMax, Service time.Duration
	// Processes is the number of worker processes (prefork and pools).
	Processes int
	// PoolTasks and IPCBytes count process-pool work and the bytes piped.
	PoolTasks, IPCBytes int64
	// Unmeasured names the ServerColumns this server cannot measure: Row
	// gives NaN for them (a server the user runs measures none, a real
	// CPython app only cpu_s and rss_mb). See MeasuredOnly.
	Unmeasured []string
}

// MeasuredOnly returns st with every server column not in cols marked
// unmeasured (NaN in Row): Stats{}.MeasuredOnly() measures nothing,
// Stats{CPUSeconds: c, PeakRSSMB: r}.MeasuredOnly("cpu_s", "rss_mb") only
// those two.
func (st Stats) MeasuredOnly(cols ...string) Stats {
	keep := map[string]bool{}
	for _, c := range cols {
		keep[c] = true
	}
	st.Unmeasured = nil
	for _, c := range ServerColumns {
		if !keep[c] {
			st.Unmeasured = append(st.Unmeasured, c)
		}
	}
	return st
}

func (t totals) stats() Stats {
	st := Stats{
		Requests: t.Requests, Errors: t.Errors,
		CPUSeconds: time.Duration(t.CPUNs).Seconds(), PeakRSSMB: t.RSSMB,
		GILWait: time.Duration(t.GILWaitNs), GILHold: time.Duration(t.GILHoldNs), Handoffs: t.Handoffs,
		LoopBlocked: time.Duration(t.LoopBusyNs), LoopBlockedMax: time.Duration(t.LoopMaxNs),
		SlowCallbacks: t.Slow, Warnings: t.Warnings, QueueWaitMax: time.Duration(t.QueueMaxNs),
		Processes: t.Processes, PoolTasks: t.PoolTasks, IPCBytes: t.PoolIPC,
	}
	if ok := t.Requests - t.Errors; ok > 0 {
		st.QueueWait = time.Duration(t.QueueNs / ok)
		st.Service = time.Duration(t.ServiceNs / ok)
	}
	return st
}

// totals gathers this server's counters (and its children's).
func (s *server) totals(withSelfRSS bool) totals {
	s.mu.Lock()
	rt, pool, children := s.rt, s.pool, s.children
	s.mu.Unlock()
	var t totals
	switch {
	case rt != nil:
		t = runtimeTotals(rt.Stats())
	case len(children) > 0:
		for _, c := range children {
			t.add(c.totals())
		}
	default:
		ps := pool.Stats()
		t = totals{
			Requests: s.requests.Load(), Errors: s.errors.Load(),
			CPUNs:   s.cpuNs.Load() + int64(ps.CPU*float64(time.Second)),
			RSSMB:   ps.PeakRSS,
			QueueNs: s.queueNs.Load(), QueueMaxNs: s.queueMax.Load(), ServiceNs: s.serviceNs.Load(),
			Processes: ps.Workers, PoolTasks: ps.Tasks, PoolIPC: ps.IPCBytes, PoolReplace: ps.Replaced,
		}
	}
	if withSelfRSS {
		t.RSSMB += pymodel.SelfPeakRSS()
	}
	return t
}

// Stats returns the server's measures so far. Read them before Close: the
// worker processes' figures are read from them while they live.
func (s *server) Stats() Stats { return s.totals(true).stats() }

// InProcessCPU is the CPU time this server's work has used in this process
// so far: its steps, without process-pool workers or prefork children (other
// processes). A load generator in the same process subtracts it from the
// process's CPU to judge its own share.
func (s *server) InProcessCPU() time.Duration {
	s.mu.Lock()
	rt, children := s.rt, s.children
	s.mu.Unlock()
	switch {
	case rt != nil:
		st := rt.Stats()
		return st.CPU - time.Duration(st.Pool.CPU*float64(time.Second))
	case len(children) > 0:
		return 0
	}
	return time.Duration(s.cpuNs.Load())
}

// Row returns the server-side columns of a result frame: cpu_s, rss_mb,
// gil_wait_ms, gil_hold_ms, loop_blocked_ms, loop_blocked_max_ms,
// slow_callbacks, queue_wait_ms, service_ms (means per request) and
// processes.
func (st Stats) Row() frame.Row {
	r := frame.Row{
		"cpu_s":               st.CPUSeconds,
		"rss_mb":              st.PeakRSSMB,
		"gil_wait_ms":         ms(st.GILWait),
		"gil_hold_ms":         ms(st.GILHold),
		"loop_blocked_ms":     ms(st.LoopBlocked),
		"loop_blocked_max_ms": ms(st.LoopBlockedMax),
		"slow_callbacks":      st.SlowCallbacks,
		"queue_wait_ms":       ms(st.QueueWait),
		"service_ms":          ms(st.Service),
		"processes":           st.Processes,
	}
	for _, c := range st.Unmeasured {
		if _, ok := r[c]; ok {
			r[c] = math.NaN()
		}
	}
	return r
}

// ServerColumns is the order of the columns Stats.Row produces.
var ServerColumns = []string{"cpu_s", "rss_mb", "gil_wait_ms", "gil_hold_ms", "loop_blocked_ms", "loop_blocked_max_ms", "slow_callbacks", "queue_wait_ms", "service_ms", "processes"}
