package jupyterlab_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/jupyterlab"
)

// The renderer draws the MIME type the charts send.
func TestExtensionRendersChartsMIMEType(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("extension", "src", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `"`+charts.MIMEType+`"`) {
		t.Fatalf("extension/src/index.js does not name %s", charts.MIMEType)
	}
	var pkg struct {
		Name string `json:"name"`
	}
	b, err := os.ReadFile(filepath.Join("extension", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Name != jupyterlab.ExtensionName {
		t.Fatalf("extension/package.json names %q (%v); want %q", pkg.Name, err, jupyterlab.ExtensionName)
	}
}

func TestInstall(t *testing.T) {
	t.Parallel()
	if _, err := jupyterlab.Extension(); errors.Is(err, jupyterlab.ErrNotBuilt) {
		t.Skipf("built without the extension (run scripts/setup.sh): %v", err)
	}
	data := t.TempDir()
	dir, err := jupyterlab.Install(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(data, "labextensions", "@conclab", "jupyterlab-charts"); dir != want {
		t.Fatalf("Install put it in %s; want %s", dir, want)
	}
	// A stale file of an earlier build goes; installing twice is fine.
	stale := filepath.Join(dir, "static", "stale.js")
	if err := os.WriteFile(stale, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := jupyterlab.Install(data); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file of the earlier copy survived: %v", err)
	}
	var pkg struct {
		Name       string `json:"name"`
		JupyterLab struct {
			Build struct {
				Load          string `json:"load"`
				MimeExtension string `json:"mimeExtension"`
			} `json:"_build"`
		} `json:"jupyterlab"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.JupyterLab.Build.MimeExtension == "" {
		t.Fatal("package.json declares no mimeExtension")
	}
	if fi, err := os.Stat(filepath.Join(dir, pkg.JupyterLab.Build.Load)); err != nil || fi.Size() == 0 {
		t.Fatalf("the extension's entry %s: %v", pkg.JupyterLab.Build.Load, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Fatalf("labextensions/@conclab holds %d entries (temporary copies left?)", len(entries))
	}
}
