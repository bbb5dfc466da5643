package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

type person struct {
	Name string
	Age  int
}

func main() {
	s := []int{5, 2, 8, 1, 9, 3}
	slices.Sort(s)
	fmt.Println(s, slices.IsSorted(s))
	i, found := slices.BinarySearch(s, 8)
	fmt.Println(i, found)
	words := []string{"banana", "Apple", "cherry", "apple"}
	slices.SortFunc(words, func(a, b string) int {
		return cmp.Compare(strings.ToLower(a), strings.ToLower(b))
	})
	fmt.Println(words)
	people := []person{{"Alice", 30}, {"Bob", 25}, {"Carol", 30}, {"Dan", 25}}
	slices.SortStableFunc(people, func(a, b person) int { return cmp.Compare(a.Age, b.Age) })
	fmt.Println(people)
	slices.SortFunc(people, func(a, b person) int {
		return cmp.Or(cmp.Compare(b.Age, a.Age), strings.Compare(a.Name, b.Name))
	})
	fmt.Printf("%+v\n", people)
	fmt.Println(slices.Max(s), slices.Min(s), slices.Index(s, 9), slices.Contains(s, 4))
	idx, ok := slices.BinarySearchFunc(people, 25, func(p person, age int) int { return cmp.Compare(age, p.Age) })
	fmt.Println(idx, ok)
}
