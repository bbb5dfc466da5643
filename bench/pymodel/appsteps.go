package pymodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/conclab/conclab/bench/workload"
)

// DBInsert is an I/O step inserting one row per request into db (opened by
// the caller with workload.OpenDB, and closed by it after the server). The
// row's value is prefix plus a per-step sequence number in arrival order at
// the step, so db.Rows shows whether requests overlapped (source 004). It
// runs in this process only.
func DBInsert(db *workload.DB, prefix string) Step {
	var seq atomic.Int64
	return Custom("db insert", true, func(ctx context.Context) error {
		if db == nil {
			return errors.New("pymodel: DBInsert: nil *workload.DB")
		}
		return db.Insert(ctx, prefix+strconv.FormatInt(seq.Add(1), 10))
	})
}

// DBInsertField is an I/O step inserting the request's own value into db:
// field of the JSON object the request posts (source 004's clients post
// {"email": "A@A", "password": ...}), or the whole body, trimmed, when
// field is "". The rows then land in the order the requests reached the
// insert, with the values the client sent, so comparing them with the
// order sent shows whether requests overlapped. A request without the
// value fails. It runs in this process only.
func DBInsertField(db *workload.DB, field string) Step {
	return Custom("db insert "+field, true, func(ctx context.Context) error {
		if db == nil {
			return errors.New("pymodel: DBInsertField: nil *workload.DB")
		}
		v, err := bodyValue(Upload(ctx), field)
		if err != nil {
			return fmt.Errorf("db insert: %w", err)
		}
		return db.Insert(ctx, v)
	})
}

// bodyValue is field of a JSON object body, or the trimmed body for "".
func bodyValue(body []byte, field string) (string, error) {
	if field == "" {
		v := strings.TrimSpace(string(body))
		if v == "" {
			return "", errors.New("the request has no body to insert")
		}
		return v, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return "", fmt.Errorf("want a JSON object body with field %q: %w", field, err)
	}
	raw, ok := obj[field]
	if !ok {
		return "", fmt.Errorf("the JSON body has no field %q", field)
	}
	switch v := raw.(type) {
	case string:
		return v, nil
	case float64, bool:
		return fmt.Sprint(v), nil
	}
	return "", fmt.Errorf("field %q is not a string, number or boolean", field)
}

// Print is a step printing lines lines through p (workload.NewPrinter:
// "sync" is a write(2) per line that blocks while the sink is full, "async"
// a queue put, "none" nothing). A sync printer is an I/O wait (the thread
// sits in write, GIL released). It runs in this process only.
func Print(p *workload.Printer, lines int, line string) Step {
	io := p == nil || p.Mode() == "sync"
	return Custom("print", io, func(ctx context.Context) error {
		if p == nil {
			return errors.New("pymodel: Print: nil *workload.Printer")
		}
		if lines <= 0 {
			return fmt.Errorf("pymodel: Print: lines must be positive, got %d", lines)
		}
		for i := 0; i < lines; i++ {
			if err := p.Println(ctx, line); err != nil {
				return err
			}
		}
		return nil
	})
}

// Downstream is an I/O step calling a downstream service: f.Calls calls to
// f.URL, sequentially, through a pool of f.Workers, or all at once (f.Mode),
// as source 002's client does. Failed calls fail the step. It runs in this
// process only.
func Downstream(f workload.FanOut) Step {
	return Custom("downstream", true, func(ctx context.Context) error {
		res, err := f.Run(ctx)
		if err != nil {
			return err
		}
		if res.Errors > 0 {
			return fmt.Errorf("downstream: %d of %d calls failed", res.Errors, f.Calls)
		}
		return nil
	})
}
