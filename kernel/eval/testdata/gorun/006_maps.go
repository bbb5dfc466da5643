package main

import (
	"fmt"
	"maps"
	"slices"
)

func main() {
	m := map[string]int{"x": 1, "y": 2, "z": 3}
	keys := slices.Sorted(maps.Keys(m))
	fmt.Println(keys)
	vals := slices.Collect(maps.Values(m))
	slices.Sort(vals)
	fmt.Println(vals)
	c := maps.Clone(m)
	c["w"] = 0
	fmt.Println(len(m), len(c), maps.Equal(m, c))
	maps.DeleteFunc(c, func(k string, v int) bool { return v < 2 })
	fmt.Println(c)
	maps.Copy(c, map[string]int{"q": 9})
	fmt.Println(c)
	inv := map[int]string{}
	for k, v := range maps.All(m) {
		inv[v] = k
	}
	fmt.Println(inv)
	fmt.Println(maps.Collect(slices.All([]string{"a", "b"})))
	m2 := map[string]int{}
	maps.Insert(m2, maps.All(map[string]int{"k": 1}))
	fmt.Println(m2, maps.EqualFunc(m2, map[string]string{"k": "1"}, func(a int, b string) bool { return fmt.Sprint(a) == b }))
}
