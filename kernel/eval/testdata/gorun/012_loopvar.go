package main

import (
	"fmt"
	"sync"
)

func main() {
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
	var ptrs []*string
	for _, s := range []string{"x", "y"} {
		ptrs = append(ptrs, &s)
	}
	fmt.Println(*ptrs[0], *ptrs[1])
	var wg sync.WaitGroup
	results := make([]int, 5)
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = i * i
		}()
	}
	wg.Wait()
	fmt.Println(results)
	var gs []func() int
	for i := 0; i < 6; i++ {
		if i%2 == 0 {
			i++
		}
		gs = append(gs, func() int { return i })
	}
	for _, g := range gs {
		fmt.Print(g(), " ")
	}
	fmt.Println()
}
