package main

import (
	"fmt"
	"sort"
)

type byLen []string

func (b byLen) Len() int           { return len(b) }
func (b byLen) Less(i, j int) bool { return len(b[i]) < len(b[j]) }
func (b byLen) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func main() {
	s := byLen{"ccc", "a", "bb"}
	sort.Sort(s)
	fmt.Println(s)
	people := []struct {
		Name string
		Age  int
	}{{"A", 3}, {"B", 1}, {"C", 2}}
	sort.Slice(people, func(i, j int) bool { return people[i].Age < people[j].Age })
	fmt.Println(people)
	ints := []int{3, 1, 2}
	sort.Sort(sort.Reverse(sort.IntSlice(ints)))
	fmt.Println(ints, sort.SearchInts([]int{1, 3, 5}, 4))
	i := sort.Search(100, func(i int) bool { return i*i >= 50 })
	fmt.Println(i)
}
