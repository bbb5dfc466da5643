package pymodel_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/workload"
)

// Every step kind is known to this package: the table holds the image kind
// with no registration, so a workload spec parses it and a process pool
// worker runs it.
func TestStepKindsAreATable(t *testing.T) {
	t.Parallel()
	if got, want := pymodel.Kinds(), []string{"sleep", "cpu", "burn", "custom", "image"}; !slices.Equal(got, want) {
		t.Errorf("Kinds() = %v; want %v", got, want)
	}
	for _, c := range []struct{ spec, want string }{
		{"image=png", "image=png:nogil"},
		{"image=jpeg8k:process_executor", "image=jpeg8k:nogil:process_executor"},
		{"sleep=10ms:await,cpu=1000", "sleep=10ms:await,cpu=1000"},
	} {
		w, err := pymodel.ParseWorkload(c.spec)
		if err != nil || w.Label() != c.want {
			t.Errorf("ParseWorkload(%q) = %q, %v; want %q", c.spec, w.Label(), err, c.want)
		}
	}
	for _, c := range []struct{ spec, want string }{
		{"image=gif", "unknown test image"},
		{"print=3", `unknown workload step kind "print"`},
	} {
		if _, err := pymodel.ParseWorkload(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseWorkload(%q) = %v; want %q", c.spec, err, c.want)
		}
	}
	img := pymodel.Image("png")
	if img.IsIO() || !img.ReleasesGIL || !img.Portable() {
		t.Errorf("Image step %+v: want portable CPU work releasing the GIL", img)
	}
}

// The image step runs in a process-pool worker: the image bytes go through
// the pipe and the converted image comes back.
func TestImageStepInProcessPool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pymodel.NewProcessPool(ctx, pymodel.PoolConfig{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	png, err := workload.LoadImage(ctx, workload.SmallPNG())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rctx := pymodel.WithOutputDir(pymodel.WithUpload(ctx, png), func() (string, error) { return dir, nil })
	if _, err := pool.Run(rctx, pymodel.Image("png")); err != nil {
		t.Fatal(err)
	}
	if got, _ := pymodel.OutputDir(rctx); got != dir {
		t.Errorf("OutputDir = %q; want %q", got, dir)
	}
	if d, err := pymodel.OutputDir(ctx); d != "" || err != nil {
		t.Errorf("OutputDir without one = %q, %v; want \"\", nil", d, err)
	}
}

// Steps are values: a cell builds them here and hands them to a strategy
// as a workload.
func ExampleImage() {
	w := pymodel.Workload{Steps: []pymodel.Step{
		pymodel.Image("png"),
		pymodel.Sleep(50 * time.Millisecond),
	}}
	fmt.Println(w.Label(), w.Validate())
	p, err := workload.NewPrinter(workload.PrintNone, nil, 0)
	if err != nil {
		panic(err)
	}
	defer p.Close()
	print := pymodel.Print(p, 100, "a line")
	fmt.Println(print.Label(), print.IsIO(), print.Portable())
	// Output:
	// image=png:nogil,sleep=50ms <nil>
	// print false false
}
