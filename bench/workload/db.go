package workload

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Database defaults.
const (
	DefaultTable          = "conclab_inserts"
	DefaultConnectTimeout = 5 * time.Second
	DefaultBusyTimeout    = 5 * time.Second // SQLite: wait this long for the write lock
	MaxValueLen           = 255             // longest value Insert accepts
)

// Backend names as DB.Backend reports them.
const (
	BackendSQLite   = "sqlite"
	BackendMySQL    = "mysql"
	BackendPostgres = "postgres"
)

// DBConfig says which database to open and where the rows go.
type DBConfig struct {
	// DSN selects the backend:
	//   ""  or "sqlite"                 embedded SQLite in a new temp file (removed by Close)
	//   "sqlite:PATH" or "file:PATH"    SQLite at PATH (kept)
	//   "user:pass@tcp(host:port)/db"   MariaDB/MySQL (go-sql-driver syntax; "mysql://" prefix allowed)
	//   "postgres://user:pass@host/db"  PostgreSQL through pgx ("postgresql://" or "host=... dbname=..." too)
	// SQLite runs in WAL mode with synchronous=NORMAL (as the Python
	// references do; a journal_mode or synchronous pragma in the DSN wins)
	// and a busy timeout of DefaultBusyTimeout.
	DSN string
	// Table to insert into, created if missing (default DefaultTable).
	// Many runs share one table: each row carries its run id.
	Table string
	// Run is this handle's run id (default: random). Rows and Count see only it.
	Run string
	// Keep leaves the run's rows in a server database after Close; by
	// default Close deletes them.
	Keep bool
	// ConnectTimeout bounds the first connection (default DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// MaxOpenConns caps the connection pool (0: database/sql's default, unlimited).
	MaxOpenConns int
}

// DB is an insert target: one run's rows in a shared table, each recording
// its arrival order, so a notebook can show whether requests overlapped
// (source 004: rows A..Z in order, or shuffled). Safe for concurrent use;
// the caller must call Close.
type DB struct {
	db      *sql.DB
	backend string
	driver  string // database/sql driver: sqlite (modernc), mysql, pgx
	host    string
	table   string
	run     string
	keep    bool
	tempDir string // SQLite temp dir owned by this handle
	wal     bool   // SQLite: switch the file to WAL (no journal_mode in the DSN)
	start   time.Time
	insert  string
	// writeSlot serialises SQLite inserts, one writer at a time as SQLite
	// allows anyway, so concurrent inserts queue here instead of sleeping
	// in the busy handler's back-off (the Python references hold a lock
	// the same way). A channel of one, so a queued insert leaves when its
	// ctx ends.
	writeSlot chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// OpenDB opens the database named by dsn (see DBConfig.DSN), checks that it
// answers, and creates the table if missing.
func OpenDB(ctx context.Context, dsn string) (*DB, error) {
	return OpenDBConfig(ctx, DBConfig{DSN: dsn})
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// OpenDBConfig is OpenDB with every setting. A DSN that cannot connect is an
// error naming the backend and host, never the password.
func OpenDBConfig(ctx context.Context, cfg DBConfig) (*DB, error) {
	if cfg.Table == "" {
		cfg.Table = DefaultTable
	}
	if !identRE.MatchString(cfg.Table) {
		return nil, fmt.Errorf("workload: table name %q: want letters, digits and _ (at most 63)", cfg.Table)
	}
	if cfg.Run == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		cfg.Run = "run-" + hex.EncodeToString(b[:])
	}
	if len(cfg.Run) > 64 {
		return nil, fmt.Errorf("workload: run id %q is longer than 64 bytes", cfg.Run)
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.MaxOpenConns < 0 {
		return nil, fmt.Errorf("workload: MaxOpenConns = %d, want >= 0", cfg.MaxOpenConns)
	}
	d := &DB{table: cfg.Table, run: cfg.Run, keep: cfg.Keep, start: time.Now(), writeSlot: make(chan struct{}, 1)}
	password, err := d.open(cfg)
	if err != nil {
		return nil, redact(err, password)
	}
	d.db.SetMaxOpenConns(cfg.MaxOpenConns)
	pctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	if err := d.db.PingContext(pctx); err != nil {
		d.closeHandle()
		return nil, redact(fmt.Errorf("workload: connect to %s (driver %s) at %s: %w", d.backend, d.driver, d.host, err), password)
	}
	if err := d.setWAL(pctx); err != nil {
		d.closeHandle()
		return nil, fmt.Errorf("workload: set WAL mode on sqlite at %s: %w", d.host, err)
	}
	if err := d.createSchema(pctx); err != nil {
		d.closeHandle()
		return nil, redact(fmt.Errorf("workload: create table %s in %s at %s: %w", d.table, d.backend, d.host, err), password)
	}
	ph := "?, ?, ?"
	if d.backend == BackendPostgres {
		ph = "$1, $2, $3"
	}
	d.insert = "INSERT INTO " + d.table + " (run_id, value, t_ms) VALUES (" + ph + ")"
	return d, nil
}

// open picks the driver from cfg.DSN and opens the pool (no connection
// yet). It returns the password so errors can be scrubbed of it.
func (d *DB) open(cfg DBConfig) (password string, err error) {
	dsn := strings.TrimSpace(cfg.DSN)
	switch {
	case dsn == "" || dsn == "sqlite" || dsn == "sqlite:":
		dir, err := os.MkdirTemp("", "conclab-sqlite-*")
		if err != nil {
			return "", fmt.Errorf("workload: sqlite temp dir: %w", err)
		}
		d.tempDir = dir
		return "", d.openSQLite(filepath.Join(dir, "conclab.db"))
	case strings.HasPrefix(dsn, "sqlite:"):
		return "", d.openSQLite(strings.TrimPrefix(dsn, "sqlite:"))
	case strings.HasPrefix(dsn, "file:"):
		return "", d.openSQLite(dsn)
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"),
		strings.Contains(dsn, "host=") || strings.Contains(dsn, "dbname="):
		d.backend, d.driver = BackendPostgres, "pgx"
		pc, err := pgx.ParseConfig(dsn)
		if err != nil {
			return "", fmt.Errorf("workload: postgres DSN does not parse: %w", scrubDSNError(err, dsn))
		}
		if pc.ConnectTimeout == 0 || pc.ConnectTimeout > cfg.ConnectTimeout {
			pc.ConnectTimeout = cfg.ConnectTimeout
		}
		d.host = net.JoinHostPort(pc.Host, strconv.Itoa(int(pc.Port)))
		if pc.Database != "" {
			d.host += "/" + pc.Database
		}
		if pc.User != "" {
			d.host = pc.User + "@" + d.host
		}
		d.db = stdlib.OpenDB(*pc)
		return pc.Password, nil
	case strings.HasPrefix(dsn, "mysql://"), strings.Contains(dsn, "@tcp("), strings.Contains(dsn, "@unix("), strings.Contains(dsn, "@/"):
		d.backend, d.driver = BackendMySQL, "mysql"
		mc, err := mysql.ParseDSN(strings.TrimPrefix(dsn, "mysql://"))
		if err != nil {
			return "", fmt.Errorf("workload: mysql DSN does not parse (want user:pass@tcp(host:port)/db): %w", scrubDSNError(err, dsn))
		}
		if mc.Timeout == 0 || mc.Timeout > cfg.ConnectTimeout {
			mc.Timeout = cfg.ConnectTimeout
		}
		d.host = mc.Net + "(" + mc.Addr + ")"
		if mc.DBName != "" {
			d.host += "/" + mc.DBName
		}
		if mc.User != "" {
			d.host = mc.User + "@" + d.host
		}
		conn, err := mysql.NewConnector(mc)
		if err != nil {
			return mc.Passwd, fmt.Errorf("workload: mysql at %s: %w", d.host, err)
		}
		d.db = sql.OpenDB(conn)
		return mc.Passwd, nil
	default:
		return "", fmt.Errorf("workload: DSN not recognised: want \"\" (embedded SQLite), sqlite:PATH, user:pass@tcp(host:port)/db (MySQL) or postgres://user:pass@host:port/db")
	}
}

func (d *DB) openSQLite(path string) error {
	d.backend, d.driver = BackendSQLite, "sqlite"
	if path == "" || path == "file:" {
		return errors.New("workload: sqlite DSN names no file")
	}
	dsn := path
	if !strings.HasPrefix(dsn, "file:") {
		dsn = "file:" + path
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	// journal_mode is not a per-connection pragma here: WAL is a property
	// of the file, set once after the first connection (setWAL), because
	// several connections switching a fresh file at once deadlock in
	// SQLite's lock upgrade and the loser gets SQLITE_BUSY without waiting.
	dsn += sep + fmt.Sprintf("_pragma=busy_timeout(%d)", DefaultBusyTimeout.Milliseconds())
	lower := strings.ToLower(dsn)
	if !strings.Contains(lower, "synchronous") { // a DSN's own setting wins
		dsn += "&_pragma=synchronous(NORMAL)"
	}
	d.wal = !strings.Contains(lower, "journal_mode")
	d.host = strings.TrimPrefix(path, "file:")
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fmt.Errorf("workload: sqlite %s: %w", d.host, err)
	}
	d.db = db
	return nil
}

// setWAL switches a SQLite file to WAL mode, which then holds for every
// connection to it. Handles opened at once on a fresh file (in this process
// or another) all try the switch; SQLite refuses all but one with an
// immediate SQLITE_BUSY rather than let their lock upgrades deadlock, and
// the busy timeout does not apply. Those wait and try again, until ctx (the
// connect timeout) ends: the next try finds the file in WAL mode already.
func (d *DB) setWAL(ctx context.Context) error {
	if !d.wal {
		return nil
	}
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		var mode string
		err := d.db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		switch {
		case err == nil && (mode == "wal" || mode == "memory"): // an in-memory database has no WAL
			return nil
		case err == nil:
			return fmt.Errorf("journal_mode is %q after asking for wal", mode)
		case !sqliteBusy(err):
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("still locked by another connection when the connect timeout ended (%w): %w", ctx.Err(), err)
		case <-time.After(wait):
		}
	}
}

// sqliteBusy reports whether err is SQLite's SQLITE_BUSY (any extended code).
func sqliteBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == 5
}

func (d *DB) createSchema(ctx context.Context) error {
	var stmts []string
	t := d.table
	switch d.backend {
	case BackendSQLite:
		stmts = []string{
			"CREATE TABLE IF NOT EXISTS " + t + " (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, value TEXT NOT NULL, t_ms REAL NOT NULL)",
			"CREATE INDEX IF NOT EXISTS " + t + "_run ON " + t + " (run_id, id)",
		}
	case BackendMySQL:
		stmts = []string{
			"CREATE TABLE IF NOT EXISTS " + t + " (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, run_id VARCHAR(64) NOT NULL, value VARCHAR(255) NOT NULL, t_ms DOUBLE NOT NULL, INDEX " + t + "_run (run_id, id)) ENGINE=InnoDB",
		}
	case BackendPostgres:
		stmts = []string{
			"CREATE TABLE IF NOT EXISTS " + t + " (id BIGSERIAL PRIMARY KEY, run_id VARCHAR(64) NOT NULL, value VARCHAR(255) NOT NULL, t_ms DOUBLE PRECISION NOT NULL)",
			"CREATE INDEX IF NOT EXISTS " + t + "_run ON " + t + " (run_id, id)",
		}
	}
	for _, s := range stmts {
		var err error
		// Concurrent CREATE ... IF NOT EXISTS can still collide in
		// PostgreSQL's catalog (a unique violation); the loser retries and
		// then finds the table there.
		for attempt := 0; attempt < 3; attempt++ {
			if _, err = d.db.ExecContext(ctx, s); err == nil {
				break
			}
			select {
			case <-ctx.Done():
				return err
			case <-time.After(time.Duration(20*(attempt+1)) * time.Millisecond):
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Backend is "sqlite", "mysql" or "postgres".
func (d *DB) Backend() string { return d.backend }

// Driver is the database/sql driver name: "sqlite" (modernc.org/sqlite),
// "mysql" (go-sql-driver) or "pgx" (jackc/pgx stdlib).
func (d *DB) Driver() string { return d.driver }

// Host names where the database is (user@host:port/db or the SQLite file),
// never the password.
func (d *DB) Host() string { return d.host }

// Table is the table rows go to.
func (d *DB) Table() string { return d.table }

// Run is this handle's run id.
func (d *DB) Run() string { return d.run }

// SQL is the underlying pool, for custom queries.
func (d *DB) SQL() *sql.DB { return d.db }

// Insert adds one row holding value (at most MaxValueLen bytes) to this
// run; its auto-increment id records its arrival order at the database.
// It is one autocommit INSERT statement, a full round trip to the server
// (or an fsync'd SQLite commit).
func (d *DB) Insert(ctx context.Context, value string) error {
	if len(value) > MaxValueLen {
		return fmt.Errorf("workload: insert: value is %d bytes, want at most %d", len(value), MaxValueLen)
	}
	if d.backend == BackendSQLite {
		select {
		case d.writeSlot <- struct{}{}:
			defer func() { <-d.writeSlot }()
		case <-ctx.Done():
			return fmt.Errorf("workload: insert into %s (%s): waiting for the write lock: %w", d.table, d.backend, context.Cause(ctx))
		}
	}
	t := float64(time.Since(d.start)) / float64(time.Millisecond)
	if _, err := d.db.ExecContext(ctx, d.insert, d.run, value, t); err != nil {
		return fmt.Errorf("workload: insert into %s (%s at %s): %w", d.table, d.backend, d.host, err)
	}
	return nil
}

// Count returns the number of rows this run has inserted.
func (d *DB) Count(ctx context.Context) (int, error) {
	q := "SELECT COUNT(*) FROM " + d.table + " WHERE run_id = " + d.ph(1)
	var n int
	if err := d.db.QueryRowContext(ctx, q, d.run).Scan(&n); err != nil {
		return 0, fmt.Errorf("workload: count rows (%s): %w", d.backend, err)
	}
	return n, nil
}

// Rows returns this run's rows in arrival order as a frame with columns
// seq (1, 2, ... in arrival order), value, t_ms (when Insert was called,
// milliseconds since the handle was opened) and id (the database's id).
func (d *DB) Rows(ctx context.Context) (*frame.Frame, error) {
	q := "SELECT id, value, t_ms FROM " + d.table + " WHERE run_id = " + d.ph(1) + " ORDER BY id"
	rows, err := d.db.QueryContext(ctx, q, d.run)
	if err != nil {
		return nil, fmt.Errorf("workload: read rows (%s): %w", d.backend, err)
	}
	defer rows.Close()
	f := newFrame("inserts ("+d.backend+")", map[string]bool{"value": true}, "seq", "value", "t_ms", "id")
	for seq := 1; rows.Next(); seq++ {
		var id int64
		var value string
		var t float64
		if err := rows.Scan(&id, &value, &t); err != nil {
			return nil, fmt.Errorf("workload: read rows (%s): %w", d.backend, err)
		}
		if err := f.Append(frame.Row{"seq": seq, "value": value, "t_ms": t, "id": id}); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("workload: read rows (%s): %w", d.backend, err)
	}
	return f, nil
}

func (d *DB) ph(i int) string {
	if d.backend == BackendPostgres {
		return "$" + strconv.Itoa(i)
	}
	return "?"
}

// Close deletes this run's rows from a server database (unless Keep was
// set), closes the pool and removes a temporary SQLite file. Safe to call
// twice.
func (d *DB) Close() error {
	d.closeOnce.Do(func() {
		if !d.keep && d.tempDir == "" {
			ctx, cancel := context.WithTimeout(context.Background(), DefaultConnectTimeout)
			_, err := d.db.ExecContext(ctx, "DELETE FROM "+d.table+" WHERE run_id = "+d.ph(1), d.run)
			cancel()
			if err != nil {
				d.closeErr = fmt.Errorf("workload: delete run %s (%s): %w", d.run, d.backend, err)
			}
		}
		if err := d.closeHandle(); err != nil && d.closeErr == nil {
			d.closeErr = err
		}
	})
	return d.closeErr
}

func (d *DB) closeHandle() error {
	var err error
	if d.db != nil {
		err = d.db.Close()
	}
	if d.tempDir != "" {
		if rerr := os.RemoveAll(d.tempDir); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err != nil {
		return fmt.Errorf("workload: close %s: %w", d.backend, err)
	}
	return nil
}

// Emails returns the source 004's values: "A@A", "B@B", ... for the first
// n letters (n is clamped to 0..26).
func Emails(n int) []string {
	n = max(0, min(n, 26))
	out := make([]string, n)
	for i := range out {
		c := string(rune('A' + i))
		out[i] = c + "@" + c
	}
	return out
}

// redactedError replaces every occurrence of a password in its message.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func redact(err error, password string) error {
	if err == nil || password == "" {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), password, "***"), err: err}
}

var (
	urlPasswordRE = regexp.MustCompile(`(://[^:/@\s]*:)[^@\s]*@`)
	kvPasswordRE  = regexp.MustCompile(`(?i)(password=)\S+`)
	tcpPasswordRE = regexp.MustCompile(`^([^:@/\s]*:)[^@\s]*(@(tcp|unix)?\(?)`)
)

// scrubDSNError returns a parse error's message with any password a quoted
// DSN may carry replaced by ***; the original error is not wrapped.
func scrubDSNError(err error, dsn string) error {
	msg := err.Error()
	if dsn != "" {
		msg = strings.ReplaceAll(msg, dsn, tcpPasswordRE.ReplaceAllString(dsn, "${1}***${2}"))
	}
	msg = urlPasswordRE.ReplaceAllString(msg, "${1}***@")
	msg = kvPasswordRE.ReplaceAllString(msg, "${1}***")
	return errors.New(msg)
}
