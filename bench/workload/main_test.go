package workload_test

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives the tests a cache dir of their own, so an image left in the
// user's cache by another build (another branch, an older generator with
// the same format number) cannot stand in for what Generate makes now.
// Helper processes (WORKLOAD_HELPER set) keep the dir their parent gave.
func TestMain(m *testing.M) {
	if os.Getenv("WORKLOAD_HELPER") != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "conclab-workload-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("CONCLAB_CACHE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
