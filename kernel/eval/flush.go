package eval

// Flush waits until what cells and their goroutines wrote to stdout and
// stderr so far has been passed to Options.Stdout and Options.Stderr (at
// most 3 s for each). Safe for concurrent use, also while a cell runs; the
// kernel calls it when outputs change destination (display.Capture).
func (s *Session) Flush() { s.flush() }
