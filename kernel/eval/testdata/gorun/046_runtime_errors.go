package main

import "fmt"

func try(name string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Printf("%s: %v\n", name, r)
			if e, ok := r.(error); ok {
				fmt.Println("  is error:", e.Error() != "")
			}
		}
	}()
	f()
}

func main() {
	s := []int{1, 2, 3}
	i := 5
	try("index", func() { _ = s[i] })
	var m map[string]int
	try("nil map", func() { m["a"] = 1 })
	zero := 0
	try("divide", func() { _ = 10 / zero })
	var x any = "str"
	try("assert", func() { _ = x.(int) })
	try("custom", func() { panic(fmt.Sprintf("bad %d", 42)) })
	var p *struct{ f int }
	try("nil deref", func() { _ = p.f })
	try("slice bounds", func() { _ = s[2:i] })
}
