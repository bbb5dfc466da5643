package main

import (
	"fmt"
	"slices"
)

func main() {
	s := []int{1, 2, 3, 4, 5}
	s = slices.Insert(s, 2, 10, 11)
	fmt.Println(s)
	s = slices.Delete(s, 0, 2)
	fmt.Println(s)
	s = slices.DeleteFunc(s, func(x int) bool { return x%2 == 0 })
	fmt.Println(s)
	s = slices.Replace(s, 0, 1, 7, 7, 7)
	fmt.Println(s, slices.Compact(s))
	c := slices.Clone(s)
	slices.Reverse(c)
	fmt.Println(c, slices.Equal(s, c), slices.Compare([]int{1, 2}, []int{1, 3}))
	fmt.Println(slices.Concat([]string{"a"}, []string{"b", "c"}, nil), slices.Repeat([]int{0, 1}, 3))
	fmt.Println(slices.IndexFunc(c, func(x int) bool { return x > 6 }), slices.ContainsFunc(c, func(x int) bool { return x < 0 }))
	g := slices.Grow([]int{1}, 10)
	fmt.Println(len(g), cap(g) >= 11, len(slices.Clip(g)))
	fmt.Println(slices.EqualFunc([]int{1, 2}, []string{"1", "2"}, func(a int, b string) bool { return fmt.Sprint(a) == b }))
	fmt.Println(slices.CompactFunc([]string{"a", "A", "b"}, func(a, b string) bool { return a == b || a == "a" && b == "A" }))
}
