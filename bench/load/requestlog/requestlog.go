// Package requestlog writes a load run's raw results — one row per
// request — as CSV or into an SQLite database, as the run goes (feed a
// Writer's Write to load.Options.Requests; conclab load --out FILE).
//
// Every row has the same columns:
//
//	intended_unix_ns  when the request was due (open models: its time in the schedule), unix ns
//	start_unix_ns     when its first byte went out, unix ns
//	latency_ms        from intended to the last response byte (empty without a response)
//	uncorrected_ms    from start to the last response byte (empty without a response)
//	status            the status code (0 without a response)
//	outcome           ok, 4xx, 5xx, timeout, conn, other, interrupted
//	bytes_in          bytes received
//	bytes_out         bytes sent
//	error             why it failed (empty when it got a response)
//	worker            the VU or sender that sent it, from 0
//	conn              the connection that carried it, from 1 (0: none)
//	segment           the agent's segment (bench/load/split), empty for a whole run
//
// Memory is bounded: rows are formatted into a fixed buffer (CSV) or
// inserted in transactions of a few thousand (SQLite), never held.
package requestlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/conclab/conclab/bench/load"
)

// Columns are the columns of every row, in order.
var Columns = []string{"intended_unix_ns", "start_unix_ns", "latency_ms", "uncorrected_ms", "status", "outcome",
	"bytes_in", "bytes_out", "error", "worker", "conn", "segment"}

// A Writer writes the raw results. Write has the signature of
// load.Options.Requests; Close flushes and closes what the Writer opened.
// Neither may be called concurrently with the other.
type Writer interface {
	Write(batch []load.Request) error
	Close() error
}

// Options are a Writer's: Segment fills the segment column.
type Options struct {
	Segment string
}

// Create creates path and returns the Writer its extension asks for:
// .csv for CSV, .db, .sqlite or .sqlite3 for SQLite (an existing file is
// replaced). Any other extension is an error naming the ones accepted.
func Create(path string, o Options) (Writer, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".csv":
		f, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("requestlog: %w", err)
		}
		return &fileCSV{CSV: NewCSV(f, o), f: f}, nil
	case ".db", ".sqlite", ".sqlite3":
		return CreateSQLite(path, o)
	default:
		return nil, fmt.Errorf("requestlog: %s: want a .csv file, or .db, .sqlite or .sqlite3 for SQLite", path)
	}
}

type fileCSV struct {
	*CSV
	f *os.File
}

func (w *fileCSV) Close() error {
	err := w.CSV.Close()
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("requestlog: %w", cerr)
	}
	return err
}
