package requestlog

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/conclab/conclab/bench/load"
)

// sqliteCommitRows is how many rows an SQLite transaction holds.
const sqliteCommitRows = 8192

// SQLite inserts rows into the table "requests" (Columns; times as
// integers, latencies as reals, NULL without a response) of an SQLite
// database.
type SQLite struct {
	db      *sql.DB
	tx      *sql.Tx
	ins     *sql.Stmt
	rows    int
	segment string
	err     error
}

// CreateSQLite creates (or replaces) the database at path with an empty
// requests table.
func CreateSQLite(path string, o Options) (*SQLite, error) {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("requestlog: %w", err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, fmt.Errorf("requestlog: %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	for _, q := range []string{
		"PRAGMA journal_mode=WAL",
		"PRAGMA synchronous=NORMAL",
		`CREATE TABLE requests (intended_unix_ns INTEGER NOT NULL, start_unix_ns INTEGER NOT NULL, latency_ms REAL,
			uncorrected_ms REAL, status INTEGER NOT NULL, outcome TEXT NOT NULL, bytes_in INTEGER NOT NULL,
			bytes_out INTEGER NOT NULL, error TEXT, worker INTEGER NOT NULL, conn INTEGER NOT NULL, segment TEXT)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			db.Close()
			return nil, fmt.Errorf("requestlog: %s: %w", path, err)
		}
	}
	return &SQLite{db: db, segment: o.Segment}, nil
}

// Write implements Writer.
func (s *SQLite) Write(batch []load.Request) error {
	if s.err != nil {
		return s.err
	}
	for i := range batch {
		if s.tx == nil {
			if s.err = s.begin(); s.err != nil {
				return s.err
			}
		}
		r := &batch[i]
		var lat, unc, errText any
		if r.Outcome.HasLatency() {
			lat = float64(r.Latency) / float64(time.Millisecond)
			unc = float64(r.Uncorrected) / float64(time.Millisecond)
		}
		if r.Err != nil {
			errText = r.Err.Error()
		}
		var seg any
		if s.segment != "" {
			seg = s.segment
		}
		if _, err := s.ins.Exec(r.Intended.UnixNano(), r.Start.UnixNano(), lat, unc, r.Status, r.Outcome.String(),
			r.BytesIn, r.BytesOut, errText, r.Worker, r.Conn, seg); err != nil {
			s.err = fmt.Errorf("requestlog: insert: %w", err)
			return s.err
		}
		if s.rows++; s.rows >= sqliteCommitRows {
			if s.err = s.commit(); s.err != nil {
				return s.err
			}
		}
	}
	return nil
}

func (s *SQLite) begin() error {
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("requestlog: %w", err)
	}
	ins, err := tx.Prepare("INSERT INTO requests VALUES (?" + strings.Repeat(", ?", len(Columns)-1) + ")")
	if err != nil {
		tx.Rollback()
		return fmt.Errorf("requestlog: %w", err)
	}
	s.tx, s.ins, s.rows = tx, ins, 0
	return nil
}

func (s *SQLite) commit() error {
	s.ins.Close()
	err := s.tx.Commit()
	s.tx, s.ins = nil, nil
	if err != nil {
		return fmt.Errorf("requestlog: commit: %w", err)
	}
	return nil
}

// Close implements Writer: it commits the last rows and closes the
// database.
func (s *SQLite) Close() error {
	if s.tx != nil {
		if err := s.commit(); s.err == nil {
			s.err = err
		}
	}
	if err := s.db.Close(); err != nil && s.err == nil {
		s.err = fmt.Errorf("requestlog: %w", err)
	}
	return s.err
}
