package kernel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/conclab/conclab/kernel/wire"
)

// KernelName is the kernelspec directory name.
const KernelName = "conclab"

// Spec is a kernelspec (kernel.json).
type Spec struct {
	Argv          []string       `json:"argv"`
	DisplayName   string         `json:"display_name"`
	Language      string         `json:"language"`
	InterruptMode string         `json:"interrupt_mode"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	// KernelProtocolVersion is the messaging protocol version the kernel
	// speaks, so a client can know it before starting the kernel.
	KernelProtocolVersion string `json:"kernel_protocol_version,omitempty"`
}

// NewSpec returns the kernelspec running binary (an absolute path).
func NewSpec(binary string) Spec {
	return Spec{
		Argv:          []string{binary, "kernel", "{connection_file}"},
		DisplayName:   "Go (conclab)",
		Language:      "go",
		InterruptMode: "message",
		Metadata:      map[string]any{"debugger": false},

		KernelProtocolVersion: wire.ProtocolVersion,
	}
}

// Where selects the kernelspec location, like `jupyter kernelspec install`.
type Where struct {
	User      bool   // ~/.local/share/jupyter (or $JUPYTER_DATA_DIR)
	SysPrefix bool   // the sys.prefix of python3
	Prefix    string // PREFIX/share/jupyter
}

// KernelsDir returns the kernels directory for w.
func (w Where) KernelsDir() (string, error) {
	switch {
	case w.Prefix != "":
		abs, err := filepath.Abs(w.Prefix)
		if err != nil {
			return "", err
		}
		return filepath.Join(abs, "share", "jupyter", "kernels"), nil
	case w.SysPrefix:
		py := jupyterPython()
		out, err := exec.Command(py, "-c", "import sys; print(sys.prefix)").Output()
		if err != nil {
			return "", fmt.Errorf("--sys-prefix needs %s to find sys.prefix: %v", py, err)
		}
		return filepath.Join(strings.TrimSpace(string(out)), "share", "jupyter", "kernels"), nil
	default:
		if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
			return filepath.Join(d, "kernels"), nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base := os.Getenv("XDG_DATA_HOME")
		if base == "" {
			base = filepath.Join(home, ".local", "share")
		}
		return filepath.Join(base, "jupyter", "kernels"), nil
	}
}

// jupyterPython returns the Python interpreter that runs `jupyter` on PATH
// (from its #! line), whose sys.prefix is where --sys-prefix installs, or
// "python3".
func jupyterPython() string {
	j, err := exec.LookPath("jupyter")
	if err != nil {
		return "python3"
	}
	f, err := os.Open(j)
	if err != nil {
		return "python3"
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	if !strings.HasPrefix(line, "#!") {
		return "python3"
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return "python3"
	}
	if filepath.Base(fields[0]) == "env" && len(fields) > 1 {
		return fields[1]
	}
	return fields[0]
}

// Install writes the kernelspec (kernel.json, logo-32x32.png,
// logo-64x64.png) for binary into w's kernels directory and returns the
// kernelspec directory.
func Install(binary string, w Where) (string, error) {
	if !filepath.IsAbs(binary) {
		return "", fmt.Errorf("kernel binary path %q is not absolute", binary)
	}
	kd, err := w.KernelsDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(kd, KernelName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	js, err := json.MarshalIndent(NewSpec(binary), "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "kernel.json"), append(js, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("writing kernel.json: %w", err)
	}
	for _, size := range []int{32, 64} {
		b, err := Logo(size)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("logo-%dx%d.png", size, size)), b, 0o644); err != nil {
			return "", fmt.Errorf("writing logo: %w", err)
		}
	}
	return dir, nil
}

// Logo draws the kernel logo, a size x size PNG: a Go-blue rounded square
// with two white "lanes" and a gopher-teal dot, suggesting concurrency.
func Logo(size int) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	blue := color.NRGBA{0x00, 0xAD, 0xD8, 0xFF}
	white := color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}
	dark := color.NRGBA{0x00, 0x5F, 0x7F, 0xFF}
	r := float64(size) / 6
	s := float64(size)
	inside := func(x, y float64) bool { // rounded square
		cx := clamp(x, r, s-r)
		cy := clamp(y, r, s-r)
		return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r
	}
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			if !inside(fx, fy) {
				continue
			}
			c := blue
			// Three horizontal lanes with staggered white bars.
			for i, lane := range []float64{0.28, 0.5, 0.72} {
				if abs(fy/s-lane) < 0.06 {
					start := 0.18 + 0.12*float64(i)
					if fx/s > start && fx/s < start+0.5 {
						c = white
					}
				}
			}
			if (fx/s-0.82)*(fx/s-0.82)+(fy/s-0.5)*(fy/s-0.5) < 0.008 {
				c = dark
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func clamp(v, lo, hi float64) float64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
