package strategy

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

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
