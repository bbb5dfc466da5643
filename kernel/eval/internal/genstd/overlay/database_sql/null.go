// Package conclab_database_sql holds the generic members of database/sql,
// for the interpreter.
package conclab_database_sql

import (
	"database/sql/driver"

	"github.com/conclab/conclab/kernel/eval/internal/genstd/rt"
)

// Null represents a value that may be null. It implements the Scanner
// interface so it can be used as a scan destination.
type Null[T any] struct {
	V     T
	Valid bool
}

// Scan implements the Scanner interface.
func (n *Null[T]) Scan(value any) error {
	if value == nil {
		var zero T
		n.V, n.Valid = zero, false
		return nil
	}
	n.Valid = true
	return rt.ConvertAssign(&n.V, value)
}

// Value implements the driver Valuer interface.
func (n Null[T]) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	v := any(n.V)
	if valuer, ok := v.(driver.Valuer); ok {
		return valuer.Value()
	}
	return driver.DefaultParameterConverter.ConvertValue(v)
}
