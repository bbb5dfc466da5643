package main

import (
	"fmt"
	"math"
)

func main() {
	fmt.Println(min(3, 4), max(3, 4))
	fmt.Println(min(2.5, 1), max(1, 2.5, -7))
	x, y := 10, -3
	fmt.Println(min(x, y, 0), max(x, y))
	fmt.Println(min("banana", "apple", "cherry"), max("a", "b"))
	const c = min(8, 3, 5)
	var f32 float32 = max(1.5, 2)
	fmt.Printf("%d %T %v %T\n", c, c, f32, f32)
	fmt.Println(math.IsNaN(min(math.NaN(), 1)), max(-0.0, 0.0))
	type celsius float64
	temps := []celsius{21.5, 19, 25}
	lo := temps[0]
	for _, t := range temps {
		lo = min(lo, t)
	}
	fmt.Println(lo)
}
