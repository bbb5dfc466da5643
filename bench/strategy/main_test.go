package strategy_test

import (
	"os"
	"testing"

	"github.com/conclab/conclab/bench/pymodel"
)

func TestMain(m *testing.M) {
	if code, ok := pymodel.WorkerMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
