package main

import (
	"fmt"
	"math"
)

type Shape interface {
	Area() float64
	Perimeter() float64
}

type Rect struct{ W, H float64 }
type Circle struct{ R float64 }

func (r Rect) Area() float64        { return r.W * r.H }
func (r Rect) Perimeter() float64   { return 2 * (r.W + r.H) }
func (c Circle) Area() float64      { return math.Pi * c.R * c.R }
func (c Circle) Perimeter() float64 { return 2 * math.Pi * c.R }
func (c Circle) String() string     { return fmt.Sprintf("Circle(%g)", c.R) }

func describe(s Shape) string {
	switch v := s.(type) {
	case Rect:
		return fmt.Sprintf("rect %gx%g", v.W, v.H)
	case Circle:
		return "circle " + v.String()
	}
	return "?"
}

func main() {
	shapes := []Shape{Rect{3, 4}, Circle{1}}
	for _, s := range shapes {
		fmt.Printf("%s area=%.2f perim=%.2f\n", describe(s), s.Area(), s.Perimeter())
	}
	fmt.Println(shapes)
	var s Shape = Rect{1, 1}
	if r, ok := s.(Rect); ok {
		fmt.Println("is rect", r.W)
	}
	_, isCircle := s.(Circle)
	fmt.Println(isCircle)
	var e any = 3.5
	switch x := e.(type) {
	case int, int64:
		fmt.Println("int", x)
	case float64:
		fmt.Println("float", x+1)
	}
	fmt.Printf("%v %T\n", shapes[1], shapes[0])
}
