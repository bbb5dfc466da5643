package cpython

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/go-sql-driver/mysql"
)

// DB is where an app inserts rows. The zero value is SQLite (Python's
// standard sqlite3) in the server's temporary directory; MySQLDSN set (in
// go-sql-driver form, user:pass@tcp(host:port)/dbname, as in
// $CONCLAB_MYSQL_DSN) uses MySQL/MariaDB through PyMySQL and aiomysql, as the
// sources do.
type DB struct {
	MySQLDSN string
	// Table names the table; "" picks a unique name per server so runs
	// never collide. The server drops a table it named itself at Close.
	Table string
}

// DBFromEnv returns a DB using $CONCLAB_MYSQL_DSN when set, else SQLite.
func DBFromEnv() *DB { return &DB{MySQLDSN: os.Getenv("CONCLAB_MYSQL_DSN")} }

// Kind is "mysql" or "sqlite".
func (d *DB) Kind() string {
	if d != nil && d.MySQLDSN != "" {
		return "mysql"
	}
	return "sqlite"
}

var tableRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

func uniqueTable(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

// env returns the CONCLAB_DB_* / CONCLAB_SQLITE / CONCLAB_TABLE variables
// for the Python side.
func (d *DB) env(dir, table string) (map[string]string, error) {
	if !tableRE.MatchString(table) {
		return nil, fmt.Errorf("cpython: table name %q must be letters, digits and _", table)
	}
	out := map[string]string{"CONCLAB_TABLE": table}
	if d.Kind() == "sqlite" {
		out["CONCLAB_SQLITE"] = filepath.Join(dir, "conclab.sqlite3")
		return out, nil
	}
	cfg, err := mysql.ParseDSN(d.MySQLDSN)
	if err != nil {
		return nil, fmt.Errorf("cpython: MySQL DSN: %w", err)
	}
	if cfg.Net != "tcp" {
		return nil, fmt.Errorf("cpython: MySQL DSN: only tcp(host:port) is supported, got %q", cfg.Net)
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		host, port = cfg.Addr, "3306"
	}
	if _, err := strconv.Atoi(port); err != nil {
		return nil, fmt.Errorf("cpython: MySQL DSN: bad port %q", port)
	}
	out["CONCLAB_DB_HOST"] = host
	out["CONCLAB_DB_PORT"] = port
	out["CONCLAB_DB_USER"] = cfg.User
	out["CONCLAB_DB_PASSWORD"] = cfg.Passwd
	out["CONCLAB_DB_NAME"] = cfg.DBName
	return out, nil
}

// drop removes the table (MySQL only; SQLite files go with the directory).
func (d *DB) drop(ctx context.Context, table string) error {
	if d.Kind() != "mysql" || !tableRE.MatchString(table) {
		return nil
	}
	db, err := sql.Open("mysql", d.MySQLDSN)
	if err != nil {
		return fmt.Errorf("cpython: drop table %s: %w", table, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
		return fmt.Errorf("cpython: drop table %s: %w", table, err)
	}
	return nil
}
