package workload

import "github.com/conclab/conclab/bench/frame"

// newFrame returns an empty frame whose columns are declared in order, so
// rows appended from maps keep a readable column order. Names ending in a
// unit (or listed as numbers by the caller) are Number columns; labels are
// passed in labels.
func newFrame(name string, labels map[string]bool, cols ...string) *frame.Frame {
	f := frame.New(name)
	for _, c := range cols {
		kind := frame.Number
		if labels[c] {
			kind = frame.Label
		}
		_ = f.AddColumn(c, kind) // names are distinct constants: cannot fail
	}
	return f
}

// imageCols is the column order of ImageFrame.
var imageCols = []string{"filename", "format", "bytes_in", "bytes_out", "parse_ms", "decode_ms",
	"convert_ms", "rotate_ms", "encode_ms", "save_ms", "total_ms"}

// ImageFrame returns results as a frame, one row per result, with the
// columns of ImageResult.Row in pipeline order.
func ImageFrame(name string, results []ImageResult) *frame.Frame {
	f := newFrame(name, map[string]bool{"filename": true, "format": true}, imageCols...)
	for _, r := range results {
		f.MustAppend(r.Row())
	}
	return f
}
