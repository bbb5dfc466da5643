package main

import "fmt"

type point struct{ x, y int }

type Rect struct {
	Min, Max point
	Label    string
}

func main() {
	p := point{1, 2}
	fmt.Printf("%v %+v %#v %T\n", p, p, p, p)
	r := Rect{Min: p, Max: point{3, 4}, Label: "box"}
	fmt.Printf("%v\n%+v\n%#v\n", r, r, r)
	fmt.Println(p, &p, []point{{5, 6}})
	fmt.Printf("%v %+v\n", &r, []*point{})
	m := map[string]point{"b": {2, 2}, "a": {1, 1}}
	fmt.Println(m)
	fmt.Printf("%#v\n", m)
	var any1 any = p
	fmt.Printf("%v %T\n", any1, any1)
	fmt.Println(fmt.Sprint(p) == "{1 2}")
	fmt.Printf("%#v\n", []point{{1, 2}})
	fmt.Printf("%d %x %s\n", p, point{255, 16}, r)
}
