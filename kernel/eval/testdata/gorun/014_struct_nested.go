// mask: 0x[0-9a-f]+
package main

import (
	"fmt"
	"time"
)

type Address struct {
	City string
	zip  string
}

type Employee struct {
	Name    string
	Age     int
	Address *Address
	Tags    []string
	meta    map[string]int
	Started time.Duration
	inner   struct{ a, b int }
}

func main() {
	e := Employee{Name: "Ana", Age: 41, Address: &Address{"Lisbon", "1000"}, Tags: []string{"go"},
		meta: map[string]int{"k": 1}, Started: 90 * time.Minute}
	e.inner.a = 7
	fmt.Printf("%+v\n", e)
	fmt.Printf("%v\n", *e.Address)
	fmt.Printf("%#v\n", *e.Address)
	fmt.Printf("%+v\n", e.inner)
	type local struct {
		ID   int
		Name string
	}
	fmt.Printf("%#v %T\n", local{1, "x"}, local{})
	var zero Employee
	fmt.Printf("%+v\n", zero)
	var np *Address
	fmt.Printf("%v %+v\n", np, np)
}
