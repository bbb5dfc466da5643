package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

func main() {
	dir, err := os.MkdirTemp("", "gorun-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "a.txt")
	os.WriteFile(p, []byte("line1\nline2\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte("b"), 0o600)
	b, _ := os.ReadFile(p)
	fmt.Printf("%q\n", b)
	fi, _ := os.Stat(p)
	fmt.Println(fi.Name(), fi.Size(), fi.IsDir(), fi.Mode().Perm())
	var names []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		names = append(names, rel)
		return nil
	})
	sort.Strings(names)
	fmt.Println(names)
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("line3\n")
	f.Close()
	matches, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	fmt.Println(len(matches), filepath.Base(matches[0]), filepath.Ext(p))
	_, err = os.ReadFile(filepath.Join(dir, "missing"))
	fmt.Println(os.IsNotExist(err))
	fsys := os.DirFS(dir)
	data, _ := fs.ReadFile(fsys, "sub/b.txt")
	fmt.Println(string(data))
}
