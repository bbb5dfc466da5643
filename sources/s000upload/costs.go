package s000upload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/calib"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/sources/s000print"
)

// Part is the source's part of the calibration, measured on the 8K image
// (py/calibrate_image.py): the pipeline's steps — "decode", "convert RGB",
// "rotate 180 x4", "encode" — each its CPU time alone and the share of it
// that holds the GIL (the GIL probe, docs/calibration.md); the whole
// convert_image with 1, 6 and 20 at once in one fresh process ("convert_image
// 1 at once", ...: the process's CPU per image); "sha256" of the upload (a
// second C extension, not in the source's handlers); and "insert", one
// committed INSERT into SQLite (wall time).
const Part = "000 upload"

// stepNames are the pipeline's steps: calibrate_image.py's keys and the
// costs' names.
var stepNames = []struct{ key, name string }{
	{"decode", "decode"}, {"convert", "convert RGB"}, {"rotate", "rotate 180 x4"}, {"encode", "encode"},
}

// crowdNs are the counts at once the calibration measures: alone, a
// ThreadPoolExecutor's six threads (on two cores), twenty uploads on
// AnyIO's threads.
var crowdNs = []int{1, 6, 20}

func init() {
	calib.Register(calib.Measurement{Name: Part, Files: Files(), Measure: func(ctx context.Context, o calib.Options) ([]calib.Cost, error) {
		m := Measure{}
		if o.Quick {
			m = Measure{Size: ImageSize{640, 360}, Repeat: 1, Crowd: []int{1, 2}, ProbeSeconds: 0.1, Inserts: 5}
		}
		c, err := m.Run(ctx, cpython.Options{Python: o.Python})
		if err != nil {
			return nil, err
		}
		return c.Calib(), nil
	}})
}

// Step is one step of the pipeline: its CPU time and the share of it that
// holds the GIL.
type Step struct {
	Name    string
	CPU     time.Duration
	GILHeld float64
}

// model is the step as a model step: its held part, then its released part.
func (s Step) model() pymodel.Step {
	st := pymodel.BurnHeld(max(s.CPU, time.Microsecond), min(1, max(0, s.GILHeld)))
	st.Name = s.Name
	return st
}

// CrowdCost is the CPU per conversion with N at once in one process.
type CrowdCost struct {
	N   int
	CPU time.Duration
}

// Costs are what the model charges for the source's upload on one machine.
type Costs struct {
	// Machine describes it ("this machine", "the source's M1 laptop
	// (stated)"); CPUs sizes the pools (os.cpu_count()).
	Machine string
	CPUs    int
	// Steps are the pipeline's, in order: decode, convert RGB, rotate 180
	// x4, encode.
	Steps []Step
	// Crowd is the whole convert_image's CPU per image with N at once in
	// one process, N ascending from 1; nil charges the steps alone.
	Crowd []CrowdCost
	// Hash is sha256 of the upload (not in the source's handlers).
	Hash Step
	// Insert is one committed INSERT, waited as I/O.
	Insert time.Duration
	// Framework is the server stack's own cost per request.
	Framework pymodel.FrameworkCost
}

// Image is the pipeline's CPU, its steps' sum.
func (c *Costs) Image() time.Duration {
	var d time.Duration
	for _, s := range c.Steps {
		d += s.CPU
	}
	return d
}

// GILHeld is the share of the pipeline's CPU that holds the GIL: its
// steps' shares weighted by their costs.
func (c *Costs) GILHeld() float64 {
	img := c.Image()
	if img <= 0 {
		return 0
	}
	h := 0.0
	for _, s := range c.Steps {
		h += s.GILHeld * float64(s.CPU)
	}
	return h / float64(img)
}

// crowd is Crowd relative to the steps' sum, as the convert's crowd
// (pymodel.Crowd): its steps, scaled by the factor for N at once, cost
// what the whole pipeline did with N at once in one process.
func (c *Costs) crowd() *pymodel.Crowd {
	if len(c.Crowd) == 0 || c.Crowd[0].N != 1 || c.Image() <= 0 {
		return nil
	}
	cr := &pymodel.Crowd{Key: "convert_image"}
	for _, p := range c.Crowd {
		cr.Factors = append(cr.Factors, pymodel.CrowdFactor{N: p.N, Factor: float64(p.CPU) / float64(c.Image())})
	}
	return cr
}

// ConvertImage is the source's convert_image as one model call — a seq
// step (pymodel.Seq) of the pipeline's steps, charged by how many run at
// once in its process (the crowd) — called as the strategy says ("" call)
// and sending payload bytes each way when it goes to a process pool.
func (c *Costs) ConvertImage(payload int) pymodel.Step {
	var steps []pymodel.Step
	for _, s := range c.Steps {
		steps = append(steps, s.model())
	}
	st := pymodel.Seq("convert_image", steps...)
	st.Crowd = c.crowd()
	st.Payload = payload
	return st
}

// InsertStep is one insert, an I/O wait of Insert.
func (c *Costs) InsertStep() pymodel.Step {
	s := pymodel.Sleep(max(c.Insert, time.Microsecond))
	s.Name = "insert"
	return s
}

// HashStep is sha256 of the upload as a model step.
func (c *Costs) HashStep() pymodel.Step { return c.Hash.model() }

// Calib is c as the calibration's part.
func (c *Costs) Calib() []calib.Cost {
	var out []calib.Cost
	for _, s := range c.Steps {
		out = append(out, calib.Cost{Name: s.Name, Value: s.CPU, GILHeld: s.GILHeld, Detail: "image step, CPU time alone; GIL share by the probe"})
	}
	for _, p := range c.Crowd {
		out = append(out, calib.Cost{Name: fmt.Sprintf("convert_image %d at once", p.N), Value: p.CPU, GILHeld: c.GILHeld(),
			Detail: fmt.Sprintf("the whole convert_image, %d threads at once in a fresh process: its CPU per image", p.N)})
	}
	out = append(out,
		calib.Cost{Name: "sha256", Value: c.Hash.CPU, GILHeld: c.Hash.GILHeld, Detail: "hashlib.sha256 of the upload (not in the source's handlers)"},
		calib.Cost{Name: "insert", Value: c.Insert, Detail: "one committed INSERT, wall time"})
	return out
}

// CostsFrom reads this machine's Costs from a calibration table holding the
// framework's part and this source's (calib.Machine(ctx, "",
// calib.FrameworkPart, s000upload.Part)).
func CostsFrom(t *calib.Table) (*Costs, error) {
	fw, err := calib.Framework(t)
	if err != nil {
		return nil, err
	}
	c := &Costs{Machine: t.Machine, CPUs: t.CPUs, Framework: fw}
	for _, n := range stepNames {
		v, err := t.Cost(Part, n.name)
		if err != nil {
			return nil, err
		}
		c.Steps = append(c.Steps, Step{Name: v.Name, CPU: v.Value, GILHeld: v.GILHeld})
	}
	p, _ := t.Part(Part)
	for _, cost := range p.Costs {
		var n int
		if _, err := fmt.Sscanf(cost.Name, "convert_image %d at once", &n); err == nil {
			c.Crowd = append(c.Crowd, CrowdCost{N: n, CPU: cost.Value})
		}
	}
	h, err := t.Cost(Part, "sha256")
	if err != nil {
		return nil, err
	}
	c.Hash = Step{Name: "sha256 (hashlib)", CPU: h.Value, GILHeld: h.GILHeld}
	ins, err := t.Cost(Part, "insert")
	if err != nil {
		return nil, err
	}
	c.Insert = ins.Value
	return c, nil
}

// SourceMachine is the source's M1 laptop as the model should run it: 8
// CPUs, about 100 ms per 8K image (the source: "about 100 ms of work per
// image"), a 5 ms MySQL insert (an assumption: the source does not measure
// it) and the framework cost its print figures imply
// (s000print.SourceFramework). The image is cut into steps as from's is
// (this machine's measured Pillow: each step the same share of the
// pipeline, with its GIL share), or, from nil, in two: held for 0.2, then
// released. It has no crowd: how a conversion's cost grows with others at
// once is a machine's memory, not Pillow's.
func SourceMachine(from *Costs) *Costs {
	const image = 100 * time.Millisecond
	c := &Costs{Machine: "the source's M1 laptop (stated)", CPUs: 8, Insert: 5 * time.Millisecond, Framework: s000print.SourceFramework()}
	if from == nil || from.Image() <= 0 {
		c.Steps = []Step{{Name: "image (GIL held)", CPU: image / 5, GILHeld: 1}, {Name: "image (GIL released)", CPU: image * 4 / 5}}
		return c
	}
	scale := float64(image) / float64(from.Image())
	for _, s := range from.Steps {
		s.CPU = time.Duration(float64(s.CPU) * scale)
		c.Steps = append(c.Steps, s)
	}
	c.Hash = from.Hash
	return c
}

// Measure is a measurement of the upload's costs on this machine's
// CPython (py/calibrate_image.py); the zero value is the registered one:
// the 8K image, medians of 3, the crowd at 1, 6 and 20, 50 inserts.
type Measure struct {
	// Size is the generated large image's (zero: 8K); Path, when set, is
	// an image file of one's own (the source's 7 KB PNG: Image(ctx, o,
	// size, true)).
	Size ImageSize
	Path string
	// Repeat is how many runs each median is over (0: 3); Crowd the counts
	// at once (nil: 1, 6, 20; must start at 1), two images each;
	// ProbeSeconds how long each GIL probe round runs (0: 0.5 s); Inserts
	// the inserts timed (0: 50).
	Repeat       int
	Crowd        []int
	ProbeSeconds float64
	Inserts      int
	// DB is where the insert goes (nil: SQLite).
	DB *cpython.DB
}

// Run measures, about a minute for the 8K image on a 2-core machine, most
// of it the crowd (twenty 8K conversions, several GB, alive in one process
// at its peak). A missing interpreter or Pillow is a *cpython.MissingError.
func (m Measure) Run(ctx context.Context, o cpython.Options) (*Costs, error) {
	if m.Repeat == 0 {
		m.Repeat = 3
	}
	if m.Crowd == nil {
		m.Crowd = crowdNs
	}
	if m.ProbeSeconds == 0 {
		m.ProbeSeconds = 0.5
	}
	if m.Inserts == 0 {
		m.Inserts = 50
	}
	if m.Repeat < 0 || m.Inserts < 0 || m.ProbeSeconds < 0 {
		return nil, errors.New("s000upload: Measure: Repeat, Inserts and ProbeSeconds must not be negative")
	}
	env, err := cpython.Detect(ctx, o.Python)
	if err != nil {
		return nil, err
	}
	img := m.Path
	if img == "" {
		if img, err = Image(ctx, o, m.Size, false); err != nil {
			return nil, err
		}
	}
	var crowd []string
	for _, n := range m.Crowd {
		crowd = append(crowd, strconv.Itoa(n))
	}
	dir, err := os.MkdirTemp("", "conclab-calibrate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var r struct {
		Image struct {
			Steps map[string]struct {
				Seconds float64 `json:"seconds"`
				GILHeld float64 `json:"gil_held"`
			} `json:"steps"`
			Crowd []struct {
				N          int     `json:"n"`
				CPUSeconds float64 `json:"cpu_seconds"`
			} `json:"crowd"`
		} `json:"image"`
		Insert struct {
			Seconds float64 `json:"seconds"`
		} `json:"insert"`
	}
	err = cpython.Script{Files: Files(), Name: "calibrate_image.py", Dir: dir, DB: m.DB, Requires: []string{"PIL"},
		Args: []string{"--image", img, "--repeat", strconv.Itoa(m.Repeat), "--inserts", strconv.Itoa(m.Inserts), "--out-dir", dir,
			"--crowd", strings.Join(crowd, ","), "--probe-seconds", strconv.FormatFloat(m.ProbeSeconds, 'f', -1, 64)}}.Run(ctx, o, &r)
	if err != nil {
		return nil, err
	}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	c := &Costs{Machine: "this machine", CPUs: env.CPUs}
	for _, n := range stepNames {
		s, ok := r.Image.Steps[n.key]
		if !ok || s.Seconds <= 0 {
			return nil, fmt.Errorf("s000upload: calibrate_image.py gave no cost for step %q", n.key)
		}
		c.Steps = append(c.Steps, Step{Name: n.name, CPU: sec(s.Seconds), GILHeld: min(1, max(0, s.GILHeld))})
	}
	h := r.Image.Steps["sha256"]
	c.Hash = Step{Name: "sha256 (hashlib)", CPU: sec(h.Seconds), GILHeld: min(1, max(0, h.GILHeld))}
	for i, p := range r.Image.Crowd {
		if p.N < 1 || p.CPUSeconds <= 0 || (i == 0) != (p.N == 1) {
			return nil, fmt.Errorf("s000upload: calibrate_image.py's crowd point %d (n %d, %v s): want n ascending from 1 and a positive cost", i+1, p.N, p.CPUSeconds)
		}
		c.Crowd = append(c.Crowd, CrowdCost{N: p.N, CPU: sec(p.CPUSeconds)})
	}
	if r.Insert.Seconds <= 0 {
		return nil, errors.New("s000upload: calibrate_image.py timed no insert")
	}
	c.Insert = sec(r.Insert.Seconds)
	return c, nil
}

// ImageSize is the generated large image's size; zero is the source's 8K
// (7680 x 4320).
type ImageSize struct{ Width, Height int }

// Image returns the path of the source's test image, drawn by Pillow
// (gen_images.py) once per machine and size into the user's cache
// directory: the large JPEG at size (zero: 8K, about 1.4 MB), or with
// small the 7 KB PNG. Model and real uploads send the same file.
func Image(ctx context.Context, o cpython.Options, size ImageSize, small bool) (string, error) {
	w, h := size.Width, size.Height
	if w == 0 && h == 0 {
		w, h = 7680, 4320
	}
	if w <= 0 || h <= 0 || w > 20000 || h > 20000 {
		return "", fmt.Errorf("s000upload: image size %dx%d out of range (1..20000)", w, h)
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	parent := filepath.Join(dir, "conclab", "s000upload-images")
	final := filepath.Join(parent, fmt.Sprintf("%dx%d", w, h))
	name := "test_image_2.jpg"
	if small {
		name = "test_image_1.png"
	}
	if _, err := os.Stat(filepath.Join(final, name)); err == nil {
		return filepath.Join(final, name), nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("s000upload: image: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "gen-")
	if err != nil {
		return "", fmt.Errorf("s000upload: image: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "images")
	var r struct{ Large, Small string }
	err = cpython.Script{Files: Files(), Name: "gen_images.py", Requires: []string{"PIL"},
		Args: []string{out, "--width", strconv.Itoa(w), "--height", strconv.Itoa(h)}}.Run(ctx, o, &r)
	if err != nil {
		return "", err
	}
	// Another run may have won the race: its files are the same.
	if err := os.Rename(out, final); err != nil {
		if _, serr := os.Stat(filepath.Join(final, name)); serr != nil {
			return "", fmt.Errorf("s000upload: image: %w", err)
		}
	}
	return filepath.Join(final, name), nil
}
