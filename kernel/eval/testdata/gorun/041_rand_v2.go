package main

import (
	"fmt"
	"math/rand/v2"
)

func main() {
	r := rand.New(rand.NewPCG(1, 2))
	fmt.Println(r.IntN(100), r.IntN(100), r.Float64() < 1)
	s := []int{1, 2, 3, 4, 5}
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	fmt.Println(s)
	n := rand.N(10)
	fmt.Println(n >= 0 && n < 10)
	var d int64 = rand.N[int64](5)
	fmt.Println(d < 5, r.Perm(4))
	c := rand.New(rand.NewChaCha8([32]byte{1}))
	fmt.Println(c.Uint64() != 0)
}
