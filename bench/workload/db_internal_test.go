package workload

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// An SQLite insert queued behind another writer leaves when its context
// ends, with an error saying what it waited for; once the writer is done,
// inserts go through again.
func TestSQLiteQueuedInsertHonoursContext(t *testing.T) {
	d, err := OpenDB(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	d.writeSlot <- struct{}{} // another writer holds the lock
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- d.Insert(ctx, "queued") }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a queued insert did not leave when its context ended")
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "write lock") {
		t.Errorf("queued insert err = %v; want the deadline, naming the write lock", err)
	}
	<-d.writeSlot // the other writer is done

	if err := d.Insert(context.Background(), "after"); err != nil {
		t.Fatalf("insert after the lock was freed: %v", err)
	}
	if n, err := d.Count(context.Background()); err != nil || n != 1 {
		t.Errorf("Count = %d, %v; want 1 (the queued insert wrote nothing)", n, err)
	}
}
