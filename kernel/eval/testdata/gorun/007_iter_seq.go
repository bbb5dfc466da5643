package main

import (
	"fmt"
	"iter"
)

func countdown(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := n; i > 0; i-- {
			if !yield(i) {
				return
			}
		}
	}
}

func enumerate[T any](s []T) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i, v := range s {
			if !yield(i, v) {
				return
			}
		}
	}
}

func main() {
	for i := range countdown(3) {
		fmt.Println(i)
	}
	for i, s := range enumerate([]string{"a", "b", "c"}) {
		if i == 2 {
			break
		}
		fmt.Println(i, s)
	}
	total := 0
	for v := range countdown(10) {
		if v%2 == 0 {
			continue
		}
		total += v
	}
	fmt.Println("odd sum", total)
	for range countdown(2) {
		fmt.Println("tick")
	}
}
