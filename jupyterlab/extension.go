// Package jupyterlab holds conclab's prebuilt JupyterLab extension and
// installs it where Jupyter looks for prebuilt (federated) extensions.
//
// The extension, @conclab/jupyterlab-charts, renders charts.MIMEType — a
// chart's own output — with ECharts in JupyterLab 4, Notebook 7 and Voilà
// (they load the same prebuilt extensions). Its source is
// jupyterlab/extension; scripts/setup.d/50-labextension.sh builds it with the
// pinned jupyter-builder into jupyterlab/labextension/build, which this package
// embeds, so the binary carries it: `conclab install` writes it beside the
// kernelspec, and a JupyterLab that finds the kernelspec finds the extension.
// A binary built without it (a fresh clone, no setup) still works: Install
// returns ErrNotBuilt and front ends draw each chart's text/html instead.
package jupyterlab

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ExtensionName is the extension's package name, and its directory under
// labextensions.
const ExtensionName = "@conclab/jupyterlab-charts"

// ErrNotBuilt is returned (wrapped) when the binary was built without the
// extension.
var ErrNotBuilt = errors.New("jupyterlab: this conclab binary was built without its JupyterLab extension (run scripts/setup.sh, which builds jupyterlab/extension, then rebuild)")

//go:embed all:labextension
var built embed.FS

// Extension returns the built extension: package.json and static/, as
// Jupyter installs a prebuilt extension.
func Extension() (fs.FS, error) {
	sub, err := fs.Sub(built, "labextension/build")
	if err != nil {
		return nil, err
	}
	b, err := fs.ReadFile(sub, "package.json")
	if err != nil {
		return nil, ErrNotBuilt
	}
	var pkg struct {
		Name       string `json:"name"`
		JupyterLab struct {
			Build struct {
				Load string `json:"load"`
			} `json:"_build"`
		} `json:"jupyterlab"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return nil, fmt.Errorf("%w: package.json: %v", ErrNotBuilt, err)
	}
	if pkg.Name != ExtensionName || pkg.JupyterLab.Build.Load == "" {
		return nil, fmt.Errorf("%w: package.json names %q, load %q", ErrNotBuilt, pkg.Name, pkg.JupyterLab.Build.Load)
	}
	if _, err := fs.Stat(sub, pkg.JupyterLab.Build.Load); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotBuilt, err)
	}
	return sub, nil
}

// Install writes the extension into dataDir/labextensions/ExtensionName —
// dataDir is a Jupyter data directory such as PREFIX/share/jupyter, the one
// holding kernels/ — replacing an earlier copy, and returns the extension's
// directory. The new copy is written beside the old one and renamed into
// place, so a server reading it sees one version or the other.
func Install(dataDir string) (string, error) {
	ext, err := Extension()
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dataDir, "labextensions", filepath.FromSlash(ExtensionName))
	parent := filepath.Dir(dst)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("jupyterlab: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".install-")
	if err != nil {
		return "", fmt.Errorf("jupyterlab: %w", err)
	}
	defer os.RemoveAll(tmp)
	err = fs.WalkDir(ext, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := filepath.Join(tmp, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := fs.ReadFile(ext, path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err == nil {
		err = os.Chmod(tmp, 0o755)
	}
	if err != nil {
		return "", fmt.Errorf("jupyterlab: writing the extension: %w", err)
	}
	old := dst + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(dst, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("jupyterlab: replacing %s: %w", dst, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return "", fmt.Errorf("jupyterlab: installing %s: %w", dst, err)
	}
	_ = os.RemoveAll(old)
	return dst, nil
}
