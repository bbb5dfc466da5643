package s003_test

import (
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/sources/s003"
)

type frameT = frame.Frame

// newSplit is a Split frame of one burst of 10 split 7/3 on "flask 2w x 5t".
func newSplit() *frame.Frame {
	f := frame.Of("split", s003.SplitColumns...)
	f.MustAppend(frame.Row{"strategy": "flask 2w x 5t", "burst": 1, "worker": 1, "requests": 7})
	f.MustAppend(frame.Row{"strategy": "flask 2w x 5t", "burst": 1, "worker": 2, "requests": 3})
	return f
}
