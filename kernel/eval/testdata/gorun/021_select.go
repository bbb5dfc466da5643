package main

import (
	"fmt"
	"time"
)

func main() {
	a := make(chan string)
	b := make(chan string)
	go func() { a <- "from a" }()
	msg := <-a
	fmt.Println(msg)
	go func() {
		time.Sleep(10 * time.Millisecond)
		b <- "from b"
	}()
	select {
	case m := <-b:
		fmt.Println(m)
	case <-time.After(2 * time.Second):
		fmt.Println("timeout")
	}
	select {
	case m := <-a:
		fmt.Println("unexpected", m)
	default:
		fmt.Println("nothing ready")
	}
	// Three ticks, however busy the machine (a ticker drops the ticks a
	// slow receiver misses, so a count within a fixed time varies).
	timeout := time.After(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	n := 0
loop:
	for n < 3 {
		select {
		case <-tick.C:
			n++
		case <-timeout:
			break loop
		}
	}
	fmt.Println("ticked", n)
}
