package cpython_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
)

// A calibration is kept in a file: SaveCalibration writes it,
// LoadCalibration reads it back (refusing another host's or another
// version's).
func ExampleSaveCalibration() {
	dir, _ := os.MkdirTemp("", "cal")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "calibration.json")
	c := cpython.SourceMachine(0.2)
	c.Framework = &cpython.Framework{Cost: pymodel.FrameworkCost{Loop: 300 * time.Microsecond},
		PrintLine: 4 * time.Microsecond, PrintWrite: time.Microsecond}
	if err := cpython.SaveCalibration(path, c); err != nil {
		panic(err)
	}
	back, err := cpython.LoadCalibration(path)
	if err != nil {
		panic(err)
	}
	fmt.Println(back.Machine)
	fmt.Println(back.Costs().Cost.Loop, back.Costs().PrintExtra())
	// Output:
	// source's M1 laptop (stated)
	// 300µs 3µs
}

// In a notebook: this machine's costs, measured once and read from the file
// after that; the model of source 000's print endpoints pays them.
func ExampleMachineCalibration() {
	cal, err := cpython.MachineCalibration(context.Background(), "")
	if errors.Is(err, cpython.ErrUnavailable) {
		return // no real CPython here: the model runs without these costs
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	e := cpython.Experiment000Print(1000, 20, 2*time.Second, cal.Costs(), cpython.Options{})
	fmt.Println(len(e.Strategies), cal.Costs().Cost.Loop > 0)
}
