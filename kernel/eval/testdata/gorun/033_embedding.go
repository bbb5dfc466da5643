package main

import (
	"fmt"
	"sync"
)

type Animal struct{ Name string }

func (a Animal) Speak() string    { return a.Name + " makes a sound" }
func (a *Animal) Rename(n string) { a.Name = n }

type Dog struct {
	Animal
	Breed string
}

func (d Dog) Speak() string { return d.Name + " barks" }

type SafeCounter struct {
	sync.Mutex
	n int
}

type Logger interface{ Log(string) }
type prefixLogger struct{ prefix string }

func (p prefixLogger) Log(s string) { fmt.Println(p.prefix + s) }

type Service struct {
	Logger
	name string
}

func main() {
	d := Dog{Animal{"Rex"}, "lab"}
	fmt.Println(d.Speak(), "|", d.Animal.Speak())
	d.Rename("Max")
	fmt.Println(d.Name)
	fmt.Printf("%+v\n", d)
	fmt.Printf("%v\n", d)
	var c SafeCounter
	c.Lock()
	c.n++
	c.Unlock()
	fmt.Println(c.n)
	s := Service{prefixLogger{"> "}, "svc"}
	s.Log("hello from " + s.name)
}
