// Package split runs a load over several machines: each agent runs a
// segment of the whole model from a shared start, writes an HdrHistogram
// interval log, and the logs merge into the result of the whole run.
// bench/load runs a single machine and knows nothing of this package.
//
// Segments (Segment, ParseSegment, NewSegment) are k6's execution
// segments: N agents with segments 0/N ... (N-1)/N of the same model
// together run exactly the whole — its requests, VUs at every instant,
// arrivals, ramps (Segment.Apply turns a model into its share). Run is
// load.Run for one agent: its share, its labels, its log (Agent).
// HlogWriter writes the standard HdrHistogram log format with conclab's
// exact counts in comment lines; Merge and MergeFiles combine logs (also
// other writers') into one metrics.Result; Complete says whether an
// agent's log is finished.
//
//	seg, _ := split.NewSegment(i, 3)              // or split.ParseSegment("1/3")
//	f, _ := os.Create(fmt.Sprintf("seg%d.hlog", i))
//	res, err := split.Run(ctx, target, load.Closed{VUs: 7, Iterations: 143},
//	    load.Options{StartAt: start}, split.Agent{Segment: seg, Log: f})
//	...
//	all, err := split.MergeFiles("seg0.hlog", "seg1.hlog", "seg2.hlog")
package split
