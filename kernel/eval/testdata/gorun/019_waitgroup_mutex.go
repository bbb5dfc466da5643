package main

import (
	"fmt"
	"sync"
)

type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) inc(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[k]++
}

func main() {
	c := counter{n: map[string]int{}}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.inc([]string{"a", "b"}[i%2])
		}()
	}
	wg.Wait()
	fmt.Println(c.n)
	var wg2 sync.WaitGroup
	var mu sync.RWMutex
	total := 0
	for i := 1; i <= 10; i++ {
		wg2.Go(func() {
			mu.Lock()
			total += i
			mu.Unlock()
		})
	}
	wg2.Wait()
	mu.RLock()
	fmt.Println(total)
	mu.RUnlock()
}
