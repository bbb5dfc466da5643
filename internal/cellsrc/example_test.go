package cellsrc_test

import (
	"fmt"

	"github.com/conclab/conclab/internal/cellsrc"
)

func ExampleSplit() {
	cell := "$ ls\n%cd /tmp\nx := 1\nfunc f() {}\nf()"
	for _, p := range cellsrc.Split(cell) {
		fmt.Printf("%d line %d %q\n", p.Kind, p.Line, p.Src)
		if p.Kind == cellsrc.Go {
			units, _ := cellsrc.Units(p.Src)
			for _, u := range units {
				fmt.Printf("  %q declaration=%v\n", p.Src[u.Start:u.End], u.Declaration())
			}
		}
	}
	// Output:
	// 1 line 1 "ls"
	// 2 line 2 "%cd /tmp"
	// 0 line 3 "x := 1\nfunc f() {}\nf()"
	//   "x := 1" declaration=false
	//   "func f() {}" declaration=true
	//   "f()" declaration=false
}
