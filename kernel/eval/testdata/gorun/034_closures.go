package main

import "fmt"

func counter() func() int {
	n := 0
	return func() int {
		n++
		return n
	}
}

func compose[A, B, C any](f func(A) B, g func(B) C) func(A) C {
	return func(a A) C { return g(f(a)) }
}

type op func(int, int) int

func apply(o op, a, b int) int { return o(a, b) }

func fib() func() int {
	a, b := 0, 1
	return func() int {
		r := a
		a, b = b, a+b
		return r
	}
}

func main() {
	c := counter()
	c()
	c()
	fmt.Println(c())
	inc := func(x int) int { return x + 1 }
	dbl := func(x int) string { return fmt.Sprint(x * 2) }
	fmt.Println(compose(inc, dbl)(4))
	fmt.Println(apply(func(a, b int) int { return a * b }, 6, 7))
	f := fib()
	for range 10 {
		fmt.Print(f(), " ")
	}
	fmt.Println()
	var s []int
	add := func(xs ...int) { s = append(s, xs...) }
	add(1, 2)
	add([]int{3, 4}...)
	fmt.Println(s)
	defer func(msg string) { fmt.Println(msg) }("bye")
}
