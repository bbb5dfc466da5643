package main

import (
	"fmt"
	"iter"
	"slices"
)

func firstOver(seq iter.Seq[int], limit int) (int, bool) {
	for v := range seq {
		if v > limit {
			return v, true
		}
	}
	return 0, false
}

func pairs(n int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := range n {
			for j := range n {
				if !yield(i, j) {
					return
				}
			}
		}
	}
}

func main() {
	fmt.Println(firstOver(slices.Values([]int{1, 5, 12, 30}), 10))
	fmt.Println(firstOver(slices.Values([]int{1, 2}), 10))
outer:
	for i, j := range pairs(4) {
		switch {
		case j > i:
			continue outer
		case i == 3:
			break outer
		}
		fmt.Print(i, j, " ")
	}
	fmt.Println()
	var found []string
	for _, w := range slices.All([]string{"go", "rust", "zig", "c"}) {
		for i := range 3 {
			if len(w) == i+1 {
				found = append(found, w)
				break
			}
		}
	}
	fmt.Println(found)
}
