package main

import (
	"fmt"
	"strings"
)

type Celsius float64

func (c Celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type Weekday int

const (
	Sunday Weekday = iota
	Monday
	Tuesday
)

func (d Weekday) String() string { return [...]string{"Sun", "Mon", "Tue"}[d] }

type Stack struct{ items []string }

func (s *Stack) Push(v string)  { s.items = append(s.items, v) }
func (s *Stack) String() string { return "[" + strings.Join(s.items, " ") + ">" }

type reading struct {
	Temp Celsius
	Day  Weekday
}

func main() {
	fmt.Println(Celsius(21.5), Monday, Tuesday)
	fmt.Printf("%v %s %d\n", Tuesday, Sunday, Monday)
	s := &Stack{}
	s.Push("a")
	s.Push("b")
	fmt.Println(s)
	fmt.Printf("%v|%s\n", s, s)
	r := reading{Temp: 18, Day: Monday}
	fmt.Println(r)
	fmt.Printf("%+v\n", r)
	days := []Weekday{Sunday, Tuesday}
	fmt.Println(days)
	fmt.Println(fmt.Sprint(Celsius(-3)))
}
