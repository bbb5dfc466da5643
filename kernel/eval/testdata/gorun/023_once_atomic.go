package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

type config struct{ name string }

func main() {
	calls := 0
	load := sync.OnceValue(func() int {
		calls++
		return 42
	})
	fmt.Println(load(), load(), calls)
	pair := sync.OnceValues(func() (string, error) { return "v", nil })
	fmt.Println(pair())
	var once sync.Once
	for range 3 {
		once.Do(func() { fmt.Println("once") })
	}
	f := sync.OnceFunc(func() { fmt.Println("oncefunc") })
	f()
	f()
	var n atomic.Int64
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() { defer wg.Done(); n.Add(2) }()
	}
	wg.Wait()
	fmt.Println(n.Load())
	var p atomic.Pointer[config]
	fmt.Println(p.Load() == nil)
	p.Store(&config{"a"})
	old := p.Swap(&config{"b"})
	fmt.Println(old.name, p.Load().name, p.CompareAndSwap(old, &config{"c"}))
	var flag atomic.Bool
	flag.Store(true)
	var v atomic.Value
	v.Store([]int{1})
	fmt.Println(flag.Load(), v.Load())
	var u32 uint32
	atomic.AddUint32(&u32, 5)
	fmt.Println(atomic.LoadUint32(&u32))
}
