//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package calib

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

// lockFile takes an exclusive advisory lock (flock) on path, creating it
// if missing, waiting for another holder — another notebook's kernel
// measuring the same calibration — until ctx ends. unlock releases it;
// calling it again does nothing.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("calib: lock %s: %w", path, err)
	}
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 250*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			var once sync.Once
			return func() {
				once.Do(func() {
					_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
					f.Close()
				})
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("calib: lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("calib: waiting for %s (another process is measuring the calibration): %w", path, ctx.Err())
		case <-time.After(wait):
		}
	}
}
