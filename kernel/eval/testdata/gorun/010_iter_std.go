package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

func main() {
	text := "alpha\nbeta\ngamma\n"
	for line := range strings.Lines(text) {
		fmt.Printf("%q\n", line)
	}
	for part := range strings.SplitSeq("a,b,,c", ",") {
		fmt.Print("[", part, "]")
	}
	fmt.Println()
	fmt.Println(slices.Collect(strings.FieldsSeq("  x  y z ")))
	for w := range bytes.FieldsFuncSeq([]byte("1-2-3"), func(r rune) bool { return r == '-' }) {
		fmt.Print(string(w), ";")
	}
	fmt.Println()
	for i, c := range slices.Backward([]rune("abc")) {
		fmt.Print(i, string(c), " ")
	}
	fmt.Println()
	for c := range slices.Chunk([]int{1, 2, 3, 4, 5}, 2) {
		fmt.Print(c)
	}
	fmt.Println()
	fmt.Println(slices.AppendSeq([]int{0}, slices.Values([]int{1, 2})))
	fmt.Println(slices.SortedFunc(slices.Values([]int{3, 1, 2}), func(a, b int) int { return b - a }))
}
