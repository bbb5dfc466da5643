package main

import (
	"fmt"
	"slices"
	"sync"
)

type job struct{ id, n int }
type result struct{ id, sq int }

func main() {
	jobs := make(chan job)
	results := make(chan result)
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- result{j.id, j.n * j.n}
			}
		}()
	}
	go func() {
		for i := range 8 {
			jobs <- job{i, i + 1}
		}
		close(jobs)
	}()
	go func() { wg.Wait(); close(results) }()
	var all []result
	for r := range results {
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b result) int { return a.id - b.id })
	fmt.Println(all)
	fmt.Printf("%+v\n", all[0])
}
