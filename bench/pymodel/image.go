package pymodel

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/conclab/conclab/bench/workload"
)

// KindImage is the image upload step: decode, convert to RGB, rotate 180°
// four times, encode (bench/workload's ConvertImage, with imaging), and
// save the result to the server's output directory (see WithOutputDir;
// file names are reused after 32 per process, so disk use stays bounded).
// It processes the request's uploaded file, or the generated test image its
// Arg names ("jpeg8k", the source's 1.4 MB 8K JPEG, or "png", the 7 KB PNG)
// when the request has none. It is CPU work that releases the GIL, as
// Pillow's C code does; clear ReleasesGIL to hold it. It can go to a
// process pool: the image bytes go through the pipe, the worker saves the
// result in the same directory, and the result comes back.
const KindImage = "image"

// Image is an image-processing step on the named test image ("jpeg8k" or
// "png"; "" means "jpeg8k") unless the request uploads one.
func Image(name string) Step {
	if name == "" {
		name = "jpeg8k"
	}
	return Step{Kind: KindImage, Arg: name, ReleasesGIL: true}
}

func parseImage(v string) (Step, error) {
	if _, err := imageSpec(v); err != nil {
		return Step{}, err
	}
	return Image(v), nil
}

func imageSpec(name string) (workload.ImageSpec, error) {
	switch strings.ToLower(name) {
	case "", "jpeg8k", "jpeg", "8k":
		return workload.JPEG8K(), nil
	case "png", "small":
		return workload.SmallPNG(), nil
	}
	return workload.ImageSpec{}, fmt.Errorf("unknown test image %q (want jpeg8k or png)", name)
}

// imageInput is the upload, or the step's generated test image.
func imageInput(ctx context.Context, s Step) ([]byte, error) {
	if b := Upload(ctx); len(b) > 0 {
		return b, nil
	}
	spec, err := imageSpec(s.Arg)
	if err != nil {
		return nil, err
	}
	return workload.LoadImage(ctx, spec)
}

// imagePoolPayload is what a process-pool worker is sent: the output dir
// and the image.
func imagePoolPayload(ctx context.Context, s Step) ([]byte, error) {
	img, err := imageInput(ctx, s)
	if err != nil {
		return nil, err
	}
	dir, err := OutputDir(ctx)
	if err != nil {
		return nil, err
	}
	return imagePayload(dir, img), nil
}

func runImage(ctx context.Context, s Step, payload []byte) ([]byte, error) {
	var dir string
	var err error
	if payload == nil { // in the requesting process
		if payload, err = imageInput(ctx, s); err != nil {
			return nil, err
		}
		if dir, err = OutputDir(ctx); err != nil {
			return nil, err
		}
	} else { // in a pool worker
		dir, payload = splitImagePayload(payload)
	}
	out, format, _, err := workload.ConvertImage(ctx, payload)
	if err != nil {
		return nil, err
	}
	if dir != "" {
		if err := saveImage(dir, format, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

type outputDirKey struct{}

// WithOutputDir returns a context whose requests' steps save their output
// (the image step's results) in the directory dir returns; a server passes
// its own, made on first use and removed when it closes.
func WithOutputDir(ctx context.Context, dir func() (string, error)) context.Context {
	return context.WithValue(ctx, outputDirKey{}, dir)
}

// OutputDir is the directory WithOutputDir attached, or "" when there is
// none (the image step then keeps its result in memory only).
func OutputDir(ctx context.Context) (string, error) {
	f, _ := ctx.Value(outputDirKey{}).(func() (string, error))
	if f == nil {
		return "", nil
	}
	return f()
}

// imageRing is how many output file names one process uses: the image step
// writes every result, as the source's handler saves each converted upload,
// but reuses names so a long run's disk use is bounded.
const imageRing = 32

var imageSeq atomic.Int64

// saveImage writes one result into dir.
func saveImage(dir, format string, data []byte) error {
	name := fmt.Sprintf("out-%d-%d.%s", os.Getpid(), imageSeq.Add(1)%imageRing, format)
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		return fmt.Errorf("image save: %w", err)
	}
	return nil
}

// imagePayloadMagic starts a process-pool payload that names the output
// directory: magic, the directory, a NUL, then the image bytes.
var imagePayloadMagic = []byte("conclab-image-out\x00")

func imagePayload(dir string, img []byte) []byte {
	b := make([]byte, 0, len(imagePayloadMagic)+len(dir)+1+len(img))
	b = append(b, imagePayloadMagic...)
	b = append(b, dir...)
	b = append(b, 0)
	return append(b, img...)
}

// splitImagePayload undoes imagePayload; a payload without the header is
// all image.
func splitImagePayload(p []byte) (dir string, img []byte) {
	rest, ok := bytes.CutPrefix(p, imagePayloadMagic)
	if !ok {
		return "", p
	}
	d, img, ok := bytes.Cut(rest, []byte{0})
	if !ok {
		return "", p
	}
	return string(d), img
}
