package kernel_test

import (
	"testing"
	"time"
)

// BenchmarkExecuteRoundTrip measures execute_request -> execute_reply and
// idle status through real sockets, for a trivial cell.
func BenchmarkExecuteRoundTrip(b *testing.B) {
	_, _, c := startKernel(b)
	for i := 0; i < 20; i++ {
		c.execute("1", 10*time.Second)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.execute("1", 10*time.Second)
	}
}
