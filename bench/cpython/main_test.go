package cpython

import (
	"os"
	"testing"

	"github.com/conclab/conclab/bench/pymodel"
)

// TestMain lets the model's process pools re-execute the test binary as
// their workers.
func TestMain(m *testing.M) {
	if code, ok := pymodel.WorkerMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
