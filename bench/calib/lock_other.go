//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package calib

import "context"

// lockFile does not lock where flock is missing: two processes measuring
// at once each write a whole file (Save renames into place).
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	return func() {}, ctx.Err()
}
