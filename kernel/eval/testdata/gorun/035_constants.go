package main

import (
	"fmt"
	"math"
)

type Size int

const (
	_       = iota
	KB Size = 1 << (10 * iota)
	MB
	GB
)

type Color uint8

const (
	Red Color = iota + 1
	Green
	Blue
)

const big = 1 << 100

func main() {
	fmt.Println(KB, MB, GB, Red, Blue)
	fmt.Println(big>>98, math.MaxInt64, math.Pi)
	fmt.Printf("%T %T %v\n", KB, Green, float64(big)/1e30)
	const typed float32 = 1.0 / 3
	fmt.Println(typed, 7/2, 7.0/2, -7%3, 1<<3|1, 6&^4)
	var x uint8 = 255
	x++
	fmt.Println(x, math.MaxUint32, uint32(math.MaxUint32))
	fmt.Println(math.Inf(1), -math.Inf(1), math.Sqrt(2), math.Floor(-1.5), math.Abs(-3))
}
