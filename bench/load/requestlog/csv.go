package requestlog

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/load"
)

// CSV writes rows as CSV (RFC 4180) with a header line of Columns.
type CSV struct {
	w       *bufio.Writer
	segment string
	line    []byte
	header  bool
	err     error
}

// NewCSV returns a CSV writer to w; Close flushes it (w itself is the
// caller's to close).
func NewCSV(w io.Writer, o Options) *CSV {
	return &CSV{w: bufio.NewWriterSize(w, 64<<10), segment: csvField(o.Segment)}
}

// Write implements Writer.
func (c *CSV) Write(batch []load.Request) error {
	if c.err != nil {
		return c.err
	}
	if !c.header {
		c.header = true
		if _, err := c.w.WriteString(strings.Join(Columns, ",") + "\n"); err != nil {
			c.err = fmt.Errorf("requestlog: %w", err)
			return c.err
		}
	}
	for i := range batch {
		r := &batch[i]
		b := c.line[:0]
		b = strconv.AppendInt(b, r.Intended.UnixNano(), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.Start.UnixNano(), 10)
		b = append(b, ',')
		if r.Outcome.HasLatency() {
			b = appendMS(b, r.Latency)
			b = append(b, ',')
			b = appendMS(b, r.Uncorrected)
		} else {
			b = append(b, ',')
		}
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Status), 10)
		b = append(b, ',')
		b = append(b, r.Outcome.String()...)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.BytesIn, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.BytesOut, 10)
		b = append(b, ',')
		if r.Err != nil {
			b = append(b, csvField(r.Err.Error())...)
		}
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Worker), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, r.Conn, 10)
		b = append(b, ',')
		b = append(b, c.segment...)
		b = append(b, '\n')
		c.line = b
		if _, err := c.w.Write(b); err != nil {
			c.err = fmt.Errorf("requestlog: %w", err)
			return c.err
		}
	}
	return nil
}

// Close implements Writer: it writes the header if no row came, and
// flushes.
func (c *CSV) Close() error {
	if c.err == nil && !c.header {
		_ = c.Write(nil)
	}
	if c.err != nil {
		return c.err
	}
	if err := c.w.Flush(); err != nil {
		c.err = fmt.Errorf("requestlog: %w", err)
	}
	return c.err
}

// appendMS appends d in milliseconds with nanosecond precision.
func appendMS(b []byte, d time.Duration) []byte {
	return strconv.AppendFloat(b, float64(d)/float64(time.Millisecond), 'f', -1, 64)
}

// csvField quotes s when it holds a comma, a quote or a line break.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
