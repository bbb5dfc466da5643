package main

import "fmt"

func producer(n int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := range n {
			ch <- i * i
		}
	}()
	return ch
}

func main() {
	for v := range producer(4) {
		fmt.Print(v, " ")
	}
	fmt.Println()
	buf := make(chan string, 2)
	buf <- "a"
	buf <- "b"
	fmt.Println(len(buf), cap(buf))
	close(buf)
	v, ok := <-buf
	fmt.Println(v, ok)
	<-buf
	v, ok = <-buf
	fmt.Printf("%q %v\n", v, ok)
	results := make(chan int)
	done := make(chan struct{})
	go func() {
		sum := 0
		for r := range results {
			sum += r
		}
		fmt.Println("sum", sum)
		close(done)
	}()
	for i := range 10 {
		results <- i
	}
	close(results)
	<-done
}
