package cpython

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// CalibrationEnv names a file to keep this machine's calibration in,
// instead of CalibrationFile's default.
const CalibrationEnv = "CONCLAB_CALIBRATION"

// calibrationVersion changes when what a calibration file holds changes; a
// file of another version is measured again.
const calibrationVersion = 6

// calibrationFile is what a calibration file holds.
type calibrationFile struct {
	Version int    `json:"version"`
	Host    string `json:"host"`
	// Scripts is calibrationScripts' hash: costs measured by other
	// scripts are measured again.
	Scripts     string       `json:"scripts"`
	Measured    time.Time    `json:"measured"`
	Calibration *Calibration `json:"calibration"`
}

// calibrationScripts hashes the embedded Python files a calibration runs.
func calibrationScripts() string {
	h := sha256.New()
	for _, name := range []string{"calibrate.py", "calibrate_python.py", "calib_fastapi.py", "calib_flask.py", "gen_images.py", "_conclab.py"} {
		b, _ := pyFiles.ReadFile("py/" + name)
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// CalibrationFile is where this machine's calibration is kept:
// $CONCLAB_CALIBRATION, or conclab/calibration.json in the user's cache
// directory ($XDG_CACHE_HOME or ~/.cache), or in the temporary directory
// when there is none.
func CalibrationFile() string {
	if p := os.Getenv(CalibrationEnv); p != "" {
		return p
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "conclab", "calibration.json")
}

// SaveCalibration writes c to path (creating its directory), atomically.
func SaveCalibration(path string, c *Calibration) error {
	if c == nil {
		return errors.New("cpython: SaveCalibration: nil calibration")
	}
	host, _ := os.Hostname()
	b, err := json.MarshalIndent(calibrationFile{Version: calibrationVersion, Host: host, Scripts: calibrationScripts(),
		Measured: time.Now().UTC(), Calibration: c}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cpython: calibration file: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".calibration-*.json")
	if err != nil {
		return fmt.Errorf("cpython: calibration file: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cpython: calibration file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cpython: calibration file: %w", err)
	}
	return nil
}

// LoadCalibration reads a calibration file written by SaveCalibration. A
// missing file is an error satisfying errors.Is(err, fs.ErrNotExist); a
// file of another version or host, or one that does not parse, an error
// saying so.
func LoadCalibration(path string) (*Calibration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cpython: calibration file: %w", err)
	}
	var f calibrationFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("cpython: calibration file %s: %w", path, err)
	}
	if f.Version != calibrationVersion {
		return nil, fmt.Errorf("cpython: calibration file %s: version %d, want %d (run conclab calibrate)", path, f.Version, calibrationVersion)
	}
	if f.Scripts != calibrationScripts() {
		return nil, fmt.Errorf("cpython: calibration file %s: measured by other calibration scripts than this conclab's (run conclab calibrate)", path)
	}
	if host, _ := os.Hostname(); f.Host != host {
		return nil, fmt.Errorf("cpython: calibration file %s: measured on %q, this is %q (run conclab calibrate)", path, f.Host, host)
	}
	if err := f.Calibration.check(); err != nil {
		return nil, fmt.Errorf("cpython: calibration file %s: %w (run conclab calibrate)", path, err)
	}
	return f.Calibration, nil
}

// check reports a calibration the model cannot run: a missing part, a
// negative cost or a GIL share out of 0..1, naming it.
func (c *Calibration) check() error {
	switch {
	case c == nil:
		return errors.New("no calibration")
	case c.Image <= 0:
		return errors.New("incomplete: no image cost")
	case c.Framework == nil:
		return errors.New("incomplete: no framework costs")
	case !(c.ImageGILHeld >= 0 && c.ImageGILHeld <= 1):
		return fmt.Errorf("ImageGILHeld %v is not a share in 0..1", c.ImageGILHeld)
	}
	for _, s := range append(append([]StepCost(nil), c.ImageStepCosts...), c.Hash) {
		if s.CPU < 0 || !(s.GILHeld >= 0 && s.GILHeld <= 1) {
			return fmt.Errorf("step %q: cost %v, GIL share %v: want a cost >= 0 and a share in 0..1", s.Name, s.CPU, s.GILHeld)
		}
	}
	for i, p := range c.ImageCrowd {
		switch {
		case i == 0 && p.N != 1:
			return fmt.Errorf("image crowd: first point has %d at once, want 1 (alone)", p.N)
		case i > 0 && p.N <= c.ImageCrowd[i-1].N:
			return fmt.Errorf("image crowd: point %d has %d at once after %d, want n ascending", i+1, p.N, c.ImageCrowd[i-1].N)
		case p.CPU <= 0:
			return fmt.Errorf("image crowd: %d at once costs %v, want a positive cost", p.N, p.CPU)
		}
	}
	if err := c.Framework.Cost.Validate(); err != nil {
		return err
	}
	if c.SumSquares < 0 || c.SumSquaresBurst < 0 {
		return fmt.Errorf("sum of squares %v alone, %v in a burst: want costs >= 0", c.SumSquares, c.SumSquaresBurst)
	}
	for name, d := range map[string]time.Duration{"PrintLine": c.Framework.PrintLine, "PrintWrite": c.Framework.PrintWrite, "AsyncLine": c.Framework.AsyncLine} {
		if d < 0 {
			return fmt.Errorf("framework %s %v is negative", name, d)
		}
	}
	return nil
}

// MachineCalibration is this machine's calibration with python ("": the
// default interpreter): the one in CalibrationFile() when it was measured
// here by the same calibration scripts with the same interpreter and CPU
// count, or else a new one — Calibrate's step costs (the source's 8K
// image, the default options) and MeasureFramework's — which it writes
// there, replacing a stale file. A missing interpreter or package is a
// *MissingError (errors.Is ErrUnavailable). Kernels sharing the file take
// turns (a lock file beside it): the second waits for the first's
// measurement and reads it, rather than measuring under the first's load.
func MachineCalibration(ctx context.Context, python string) (*Calibration, error) {
	env, err := Detect(ctx, python)
	if err != nil {
		return nil, err
	}
	path := CalibrationFile()
	fresh := func() *Calibration {
		if c, err := LoadCalibration(path); err == nil && c.Python == env.Implementation+" "+env.Version && c.CPUs == env.CPUs {
			return c
		}
		return nil
	}
	if c := fresh(); c != nil { // no lock to read: SaveCalibration renames a whole file into place
		return c, nil
	}
	unlock, err := lockCalibration(ctx, path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if c := fresh(); c != nil { // measured while this one waited
		return c, nil
	}
	return recalibrate(ctx, python, path)
}

// Recalibrate measures this machine's calibration (as MachineCalibration
// does when the file is stale) and writes it to path, taking turns with
// other measurements of the same file as MachineCalibration does.
func Recalibrate(ctx context.Context, python, path string) (*Calibration, error) {
	unlock, err := lockCalibration(ctx, path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return recalibrate(ctx, python, path)
}

// lockCalibration takes the lock beside the calibration file at path
// (making its directory), so measurements of one file take turns.
func lockCalibration(ctx context.Context, path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("cpython: calibration file %s: %w", path, err)
	}
	return lockFile(ctx, path+".lock")
}

// recalibrate is Recalibrate with the lock held.
func recalibrate(ctx context.Context, python, path string) (*Calibration, error) {
	c, err := Calibrate(ctx, CalibrateOptions{Python: python})
	if err != nil {
		return nil, err
	}
	if c.Framework, err = MeasureFramework(ctx, FrameworkOptions{Python: python}); err != nil {
		return nil, err
	}
	if err := SaveCalibration(path, c); err != nil {
		return nil, err
	}
	return c, nil
}
