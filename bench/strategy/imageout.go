package strategy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// imageRing is how many output file names one process uses: the image step
// writes every result, as the source's handler saves each converted upload,
// but reuses names so a long run's disk use is bounded.
const imageRing = 32

// imageOut is a server's output directory for the image step: made in
// $TMPDIR on first use, removed by the server's Close. A prefork child
// shares its parent's (shared: the parent removes it, even when it has to
// kill the child).
type imageOut struct {
	mu     sync.Mutex
	dir    string
	shared bool
	closed bool
}

type imageOutKey struct{}

func withImageOut(ctx context.Context, o *imageOut) context.Context {
	return context.WithValue(ctx, imageOutKey{}, o)
}

// imageDir is the output directory of the server handling ctx's request,
// or "" when there is none (the step then keeps its result in memory only).
func imageDir(ctx context.Context) (string, error) {
	o, _ := ctx.Value(imageOutKey{}).(*imageOut)
	if o == nil {
		return "", nil
	}
	return o.get()
}

// get returns the directory, making it on first use.
func (o *imageOut) get() (string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return "", errors.New("image output: the server is closed")
	}
	if o.dir == "" {
		dir, err := os.MkdirTemp("", "conclab-images-*")
		if err != nil {
			return "", fmt.Errorf("image output directory: %w", err)
		}
		o.dir = dir
	}
	return o.dir, nil
}

// remove deletes the directory and refuses later use.
func (o *imageOut) remove() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	if o.dir == "" || o.shared {
		return nil
	}
	err := os.RemoveAll(o.dir)
	o.dir = ""
	return err
}

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
