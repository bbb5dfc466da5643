// Command gen writes the interpreter symbol files of internal/symbols with
// yaegi's extract package. It is run by `go generate ./internal/symbols` from
// inside the module, and prints what it did. Packages that do not exist yet or
// fail to load are skipped with a note, so the list may name packages still
// being written.
//
// With -std it writes the standard library's symbols for the running
// toolchain into DIR (see std.go); go generate runs it once per supported
// toolchain (GOTOOLCHAIN=go1.26.x and go1.27.x).
//
// Usage: go run ./internal/symbols/gen [-dir DIR] [-std [-latest]]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/traefik/yaegi/extract"
)

// patterns is THE package list: `go list` patterns of the packages linked
// into the interpreter (the standard library comes from yaegi's stdlib).
var patterns = []string{
	"github.com/conclab/conclab/display",
	"github.com/conclab/conclab/kernel/cell",
	"github.com/conclab/conclab/kernel/comm",
	"github.com/conclab/conclab/bench/...",
	"github.com/conclab/conclab/charts/...",
	"github.com/conclab/conclab/lab",
	"github.com/conclab/conclab/notebook/params",
	"github.com/conclab/conclab/sources/...",
	"github.com/conclab/conclab/widgets",
	"github.com/disintegration/imaging",
	"github.com/go-echarts/go-echarts/v2/charts",
	"github.com/go-echarts/go-echarts/v2/opts",
	"github.com/go-echarts/go-echarts/v2/types",
	"github.com/go-echarts/go-echarts/v2/components",
	"github.com/go-echarts/go-echarts/v2/render",
}

const prefix = "gen_"

type listed struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	Error      *struct{ Err string }
	DepsErrors []*struct{ Err string }
}

func main() {
	dir := flag.String("dir", ".", "directory of package symbols to write gen_*.go files into")
	std := flag.Bool("std", false, "write the standard library's symbols for this toolchain (go1_N_*.go) instead")
	latest := flag.Bool("latest", false, "with -std: this toolchain is the newest supported, its files also serve later ones")
	sys := flag.Bool("syscall", false, "write syscall's symbols for $GOOS/$GOARCH to stdout (used by -std)")
	flag.Parse()
	var err error
	switch {
	case *sys:
		err = syscallSource(os.Stdout)
	case *std:
		err = stdGen(*dir, *latest, os.Stdout)
	default:
		err = run(*dir, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "symbols gen:", err)
		os.Exit(1)
	}
}

func run(dir string, log io.Writer) error {
	pkgs, err := list(log)
	if err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, prefix+"*.go"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ext := extract.Extractor{Dest: "symbols"}
	n := 0
	docs := map[string]string{}
	for _, lp := range pkgs {
		p := lp.ImportPath
		var buf bytes.Buffer
		if _, err := ext.Extract(p, "", &buf); err != nil {
			fmt.Fprintf(log, "skip %s: %v\n", p, firstLine(err.Error()))
			continue
		}
		if err := collectDocs(lp, docs); err != nil {
			fmt.Fprintf(log, "no docs for %s: %v\n", p, err)
		}
		src, err := format.Source(buf.Bytes())
		if err != nil {
			fmt.Fprintf(log, "skip %s: generated code does not format: %v\n", p, err)
			continue
		}
		name := prefix + strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(p) + ".go"
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(log, "wrote %s (%s)\n", name, p)
		n++
	}
	if err := writeDocs(filepath.Join(dir, prefix+"docs.go"), docs); err != nil {
		return err
	}
	fmt.Fprintf(log, "wrote %sdocs.go (%d symbols)\n", prefix, len(docs))
	fmt.Fprintf(log, "%d packages\n", n)
	return nil
}

// list expands the patterns with `go list -e -json`, dropping main, test and
// internal packages and packages that fail to load.
func list(log io.Writer) ([]listed, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Name,Dir,GoFiles,Error,DepsErrors"}, patterns...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var pkgs []listed
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		switch {
		case p.Error != nil:
			fmt.Fprintf(log, "skip %s: %s\n", p.ImportPath, firstLine(p.Error.Err))
		case len(p.DepsErrors) > 0:
			fmt.Fprintf(log, "skip %s: %s\n", p.ImportPath, firstLine(p.DepsErrors[0].Err))
		case p.Name == "main" || strings.Contains(p.ImportPath, "/internal/") || strings.HasSuffix(p.ImportPath, "/internal"):
			fmt.Fprintf(log, "skip %s: not importable from cells\n", p.ImportPath)
		case strings.Contains(p.ImportPath, "testdata"):
		default:
			pkgs = append(pkgs, p)
		}
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].ImportPath < pkgs[j].ImportPath })
	return pkgs, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
