package main

import "fmt"

func classify(n int) string {
	switch {
	case n < 0:
		return "neg"
	case n == 0:
		return "zero"
	case n%2 == 0:
		return "even"
	default:
		return "odd"
	}
}

func main() {
	for _, n := range []int{-1, 0, 3, 4} {
		fmt.Print(classify(n), " ")
	}
	fmt.Println()
	switch x := 2; x {
	case 1:
		fmt.Println("one")
	case 2:
		fmt.Println("two")
		fallthrough
	case 3:
		fmt.Println("three (fallthrough)")
	case 4:
		fmt.Println("four")
	}
	i := 0
loop:
	if i < 3 {
		i++
		goto loop
	}
	fmt.Println("i", i)
outer:
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			if b == 2 {
				continue outer
			}
			if a == 2 {
				break outer
			}
			fmt.Print(a, b, ";")
		}
	}
	fmt.Println()
	n := 10
	for n > 1 {
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		fmt.Print(n, " ")
	}
	fmt.Println()
}
