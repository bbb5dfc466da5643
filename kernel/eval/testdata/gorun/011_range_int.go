package main

import "fmt"

type index int

func main() {
	for i := range 3 {
		fmt.Print(i, " ")
	}
	fmt.Println()
	n := 4
	for range n {
		fmt.Print("*")
	}
	fmt.Println()
	var big int64 = 3
	for i := range big {
		fmt.Printf("%T:%d ", i, i)
	}
	fmt.Println()
	var k index
	for k = range index(2) {
	}
	fmt.Println("k", k)
	s := []string{"a", "b", "c"}
	for i := range len(s) {
		fmt.Print(s[len(s)-1-i])
	}
	fmt.Println()
	var u uint8 = 2
	for j := range u {
		fmt.Printf("%T ", j)
	}
	fmt.Println()
	const c = 2
	for i := range c {
		fmt.Print(i)
	}
	fmt.Println()
	count := func() int { fmt.Println("evaluated once"); return 2 }
	for i := range count() {
		fmt.Println("i =", i)
	}
}
