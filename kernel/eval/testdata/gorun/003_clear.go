package main

import "fmt"

func main() {
	m := map[string]int{"a": 1, "b": 2}
	s := []int{1, 2, 3}
	clear(m)
	clear(s)
	fmt.Println(len(m), m, len(s), s)
	m["c"] = 3
	fmt.Println(m)
	type pair struct{ k, v string }
	ps := []pair{{"a", "b"}, {"c", "d"}}
	clear(ps[1:])
	fmt.Printf("%q\n", ps)
}
