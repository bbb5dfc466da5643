package load

import (
	"sync"
	"time"
)

// runArrivals is the open models' loop (Open, RampingRate): arrivals are
// sent at the times p gives, each handed to an idle sender or to a new
// one while fewer than maxInFlight (0: DefaultMaxInFlight) exist.
//
// Arrivals are sent at their due times until the planned end (the soft
// stop); a send that waits for a free sender is late, and the corrected
// latency includes the wait. At the planned end no new request starts:
// the arrivals that were due but could not be sent (every sender busy:
// the target, or the generator, could not keep the rate) are counted as
// dropped, never sent after the end.
func (e *engine) runArrivals(p Pacer, maxInFlight int, dropWhenBusy bool) {
	if maxInFlight == 0 {
		maxInFlight = DefaultMaxInFlight
	}
	jobs := make(chan time.Time)
	var wg sync.WaitGroup
	workers := 0
	startWorker := func(first time.Time) {
		id := workers
		workers++
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := e.newWorker(id)
			defer w.release()
			e.send(w, first)
			for intended := range jobs {
				e.send(w, intended)
			}
		}()
	}
	var hits int64
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
loop:
	for !e.stopped() {
		elapsed := time.Since(e.start)
		wait, stop := p.Pace(elapsed, hits)
		if stop || elapsed+wait >= e.softAt {
			break
		}
		e.setLevel(p.Rate(elapsed))
		if wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-e.stopNew:
				break loop
			}
			continue
		}
		intended := e.start.Add(elapsed + wait)
		if !e.reserve() {
			break
		}
		hits++
		select {
		case jobs <- intended:
			continue
		default:
		}
		switch {
		case workers < maxInFlight:
			startWorker(intended)
		case dropWhenBusy:
			e.issued.Add(-1)
			e.dropped.Add(1)
		default: // queue: the send waits for a free worker and is late
			select {
			case jobs <- intended:
			case <-e.stopNew:
				e.issued.Add(-1)
				hits--
				break loop
			}
		}
	}
	if e.hard.Err() == nil && e.reason.Load() == nil {
		// Arrivals due before the planned end that were not sent.
		e.dropped.Add(unsent(p, hits, e.softAt, e.maxReq-e.issued.Load()))
	}
	// The run lasts until the planned end, so that rps is over the planned
	// duration.
	if e.planDur > 0 {
		select {
		case <-e.stopNew:
		case <-e.hard.Done():
		}
	}
	e.stop("")
	close(jobs)
	wg.Wait()
}

// unsent counts the arrivals from number hits on that p schedules before
// end, at most limit.
func unsent(p Pacer, hits int64, end time.Duration, limit int64) int64 {
	var n int64
	for n < limit {
		wait, stop := p.Pace(end, hits+n)
		if stop || wait >= 0 {
			break
		}
		n++
	}
	return n
}
