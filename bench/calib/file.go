package calib

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/conclab/conclab/bench/cpython"
)

// Env names a file to keep this machine's calibration in, instead of
// File's default.
const Env = "CONCLAB_CALIBRATION"

// version changes when what a calibration file holds changes; a file of
// another version is measured again.
const version = 7

// file is what a calibration file holds.
type file struct {
	Version int    `json:"version"`
	Host    string `json:"host"`
	Table   *Table `json:"table"`
}

// File is where this machine's calibration is kept: $CONCLAB_CALIBRATION,
// or conclab/calibration.json in the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache), or in the temporary directory when there
// is none.
func File() string {
	if p := os.Getenv(Env); p != "" {
		return p
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "conclab", "calibration.json")
}

// hash is a measurement's files' hash (the shared helpers included: they
// run too).
func hash(m Measurement) string {
	h := sha256.New()
	for _, files := range []fs.FS{cpython.Shared(), m.Files} {
		for _, name := range cpython.Names(files) {
			b, _ := fs.ReadFile(files, name)
			fmt.Fprintf(h, "%s %d\n", name, len(b))
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Save writes t to path (creating its directory), atomically.
func Save(path string, t *Table) error {
	if t == nil {
		return errors.New("calib: Save: nil table")
	}
	host, _ := os.Hostname()
	b, err := json.MarshalIndent(file{Version: version, Host: host, Table: t}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("calib: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".calibration-*.json")
	if err != nil {
		return fmt.Errorf("calib: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("calib: %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("calib: %w", err)
	}
	return nil
}

// Load reads a calibration file written by Save. A missing file is an
// error satisfying errors.Is(err, fs.ErrNotExist); a file of another
// version or host, or one that does not parse or holds a cost the model
// cannot run, an error saying so.
func Load(path string) (*Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("calib: %w", err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("calib: %s: %w", path, err)
	}
	if f.Version != version {
		return nil, fmt.Errorf("calib: %s: version %d, want %d (run conclab calibrate)", path, f.Version, version)
	}
	if host, _ := os.Hostname(); f.Host != host {
		return nil, fmt.Errorf("calib: %s: measured on %q, this is %q (run conclab calibrate)", path, f.Host, host)
	}
	if f.Table == nil {
		return nil, fmt.Errorf("calib: %s: no table (run conclab calibrate)", path)
	}
	for _, p := range f.Table.Parts {
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("calib: %s: %w (run conclab calibrate)", path, err)
		}
	}
	return f.Table, nil
}

// Measure measures the named parts (none: every registered one) on this
// machine, one after another, and returns them as a table. It neither
// reads nor writes the file (Machine does).
func Measure(ctx context.Context, o Options, names ...string) (*Table, error) {
	ms, err := wanted(names)
	if err != nil {
		return nil, err
	}
	env, err := cpython.Detect(ctx, o.Python)
	if err != nil {
		return nil, err
	}
	t := &Table{Machine: "this machine", Python: env.Implementation + " " + env.Version, CPUs: env.CPUs}
	for _, m := range ms {
		p, err := measure(ctx, m, o)
		if err != nil {
			return nil, err
		}
		t = t.With(p)
	}
	return t, nil
}

func measure(ctx context.Context, m Measurement, o Options) (Part, error) {
	costs, err := m.Measure(ctx, o)
	if err != nil {
		return Part{}, fmt.Errorf("calib: measuring %q: %w", m.Name, err)
	}
	p := Part{Name: m.Name, Scripts: hash(m), Measured: time.Now().UTC(), Costs: costs}
	if err := p.check(); err != nil {
		return Part{}, fmt.Errorf("calib: measuring %q: %w", m.Name, err)
	}
	return p, nil
}

// Machine is this machine's calibration with python ("": the pinned
// environment's) holding at least the named parts (none: every registered
// one): the file's (File) parts that were measured here by the same
// scripts with the same interpreter and CPU count, and the others measured
// now and written there. Kernels sharing the file take turns (a lock file
// beside it): the second waits for the first's measurement and reads it,
// rather than measuring under the first's load. A missing interpreter or
// package is a *cpython.MissingError (errors.Is cpython.ErrUnavailable).
func Machine(ctx context.Context, python string, names ...string) (*Table, error) {
	ms, err := wanted(names)
	if err != nil {
		return nil, err
	}
	env, err := cpython.Detect(ctx, python)
	if err != nil {
		return nil, err
	}
	path := File()
	stale := func() (*Table, []Measurement) {
		t, err := Load(path)
		if err != nil || t.Python != env.Implementation+" "+env.Version || t.CPUs != env.CPUs {
			t = &Table{Machine: "this machine", Python: env.Implementation + " " + env.Version, CPUs: env.CPUs}
		}
		var out []Measurement
		for _, m := range ms {
			if p, ok := t.Part(m.Name); !ok || p.Scripts != hash(m) {
				out = append(out, m)
			}
		}
		return t, out
	}
	if t, todo := stale(); len(todo) == 0 { // no lock to read: Save renames a whole file into place
		return t, nil
	}
	unlock, err := lockCalibration(ctx, path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, todo := stale() // some may have been measured while this one waited
	for _, m := range todo {
		p, err := measure(ctx, m, Options{Python: python})
		if err != nil {
			return nil, err
		}
		t = t.With(p)
	}
	if len(todo) > 0 {
		if err := Save(path, t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Recalibrate measures the named parts (none: every registered one) now,
// whatever the file holds, and writes them into the file at path beside
// its other parts, taking turns with other measurements of the file as
// Machine does.
func Recalibrate(ctx context.Context, python, path string, names ...string) (*Table, error) {
	ms, err := wanted(names)
	if err != nil {
		return nil, err
	}
	env, err := cpython.Detect(ctx, python)
	if err != nil {
		return nil, err
	}
	unlock, err := lockCalibration(ctx, path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, err := Load(path)
	if err != nil || t.Python != env.Implementation+" "+env.Version || t.CPUs != env.CPUs {
		t = &Table{Machine: "this machine", Python: env.Implementation + " " + env.Version, CPUs: env.CPUs}
	}
	for _, m := range ms {
		p, err := measure(ctx, m, Options{Python: python})
		if err != nil {
			return nil, err
		}
		t = t.With(p)
	}
	sort.SliceStable(t.Parts, func(i, j int) bool { return order(t.Parts[i].Name) < order(t.Parts[j].Name) })
	if err := Save(path, t); err != nil {
		return nil, err
	}
	return t, nil
}

// order is a part's place among the registered ones (unregistered last).
func order(name string) int {
	for i, n := range Measurements() {
		if n == name {
			return i
		}
	}
	return 1 << 30
}

// lockCalibration takes the lock beside the calibration file at path
// (making its directory), so measurements of one file take turns.
func lockCalibration(ctx context.Context, path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("calib: %s: %w", path, err)
	}
	return lockFile(ctx, path+".lock")
}
