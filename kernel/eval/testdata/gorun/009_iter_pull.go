package main

import (
	"fmt"
	"iter"
	"maps"
	"slices"
)

func zip[A, B any](a iter.Seq[A], b iter.Seq[B]) iter.Seq2[A, B] {
	return func(yield func(A, B) bool) {
		na, sa := iter.Pull(a)
		defer sa()
		nb, sb := iter.Pull(b)
		defer sb()
		for {
			x, ok1 := na()
			y, ok2 := nb()
			if !ok1 || !ok2 || !yield(x, y) {
				return
			}
		}
	}
}

func main() {
	for n, s := range zip(slices.Values([]int{1, 2, 3}), slices.Values([]string{"one", "two"})) {
		fmt.Println(n, s)
	}
	next, stop := iter.Pull2(maps.All(map[string]int{"only": 1}))
	k, v, ok := next()
	fmt.Println(k, v, ok)
	_, _, ok = next()
	fmt.Println(ok)
	stop()
}
