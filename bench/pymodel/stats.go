package pymodel

import "time"

// Stats are a runtime's server-side measures, cumulative since Start.
type Stats struct {
	Requests int64 // requests handled, including failed ones
	Errors   int64 // requests that failed

	// CPU is the CPU time measured on CPU steps in this runtime plus the
	// CPU time of its process-pool workers.
	CPU time.Duration
	// PeakRSSMB is the peak RSS of the process-pool workers (MB); the
	// hosting process is added by the server that owns the runtime.
	PeakRSSMB float64

	GIL  GILStats
	Loop LoopStats
	Pool PoolStats

	// QueueWait and Service are totals over successful requests; divide by
	// Requests-Errors for a mean. QueueMax is the longest queue wait.
	QueueWait time.Duration
	QueueMax  time.Duration
	Service   time.Duration
}

// Stats returns the runtime's measures so far.
func (r *Runtime) Stats() Stats {
	pool := r.ProcessPool()
	ps := pool.Stats()
	return Stats{
		Requests:  r.requests.Load(),
		Errors:    r.errors.Load(),
		CPU:       time.Duration(r.cpuNs.Load()) + time.Duration(ps.CPU*float64(time.Second)),
		PeakRSSMB: ps.PeakRSS,
		GIL:       r.gil.Stats(),
		Loop:      r.loop.stats(),
		Pool:      ps,
		QueueWait: time.Duration(r.queueNs.Load()),
		QueueMax:  time.Duration(r.queueMaxNs.Load()),
		Service:   time.Duration(r.serviceNs.Load()),
	}
}
