package main

import (
	"fmt"
	"sort"
	"sync"
)

func main() {
	var m sync.Map
	m.Store("a", 1)
	m.Store("b", 2)
	v, ok := m.Load("a")
	fmt.Println(v, ok)
	act, loaded := m.LoadOrStore("a", 9)
	fmt.Println(act, loaded)
	var keys []string
	m.Range(func(k, v any) bool {
		keys = append(keys, k.(string))
		return true
	})
	sort.Strings(keys)
	fmt.Println(keys)
	m.Clear()
	_, ok = m.Load("b")
	fmt.Println(ok)

	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	ready := false
	done := make(chan bool)
	go func() {
		mu.Lock()
		for !ready {
			cond.Wait()
		}
		mu.Unlock()
		done <- true
	}()
	mu.Lock()
	ready = true
	cond.Broadcast()
	mu.Unlock()
	fmt.Println(<-done)
	pool := sync.Pool{New: func() any { return new([]byte) }}
	b := pool.Get().(*[]byte)
	pool.Put(b)
	fmt.Println(b != nil)
}
