//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package calib

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A second holder of the calibration's lock waits for the first, and
// gives up with an error naming the file when its ctx ends.
func TestLockFileTakesTurns(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "calibration.json.lock")
	unlock, err := lockFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := lockFile(ctx, path); err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second lock while held: %v; want a deadline error naming %s", err, path)
	}
	got := make(chan error, 1)
	go func() {
		u, err := lockFile(context.Background(), path)
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Errorf("lock after unlock: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("lock after unlock still waiting after 10 s")
	}
}
