package cpython

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/conclab/conclab/bench/pymodel"
)

// TestMain lets the model's process pools re-execute the test binary as
// their workers, and gives the tests a calibration file of their own (the
// comparisons that read MachineCalibration measure into it), so they never
// write the user's or CI's.
func TestMain(m *testing.M) {
	if code, ok := pymodel.WorkerMain(); ok {
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "conclab-cpython-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv(CalibrationEnv, filepath.Join(dir, "calibration.json"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
