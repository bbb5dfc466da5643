package main

import (
	"fmt"
	"strconv"
)

func main() {
	n, err := strconv.Atoi("123")
	fmt.Println(n+1, err)
	_, err = strconv.Atoi("x")
	fmt.Println(err)
	f, _ := strconv.ParseFloat("3.25", 64)
	fmt.Println(f, strconv.FormatFloat(f, 'e', 3, 64), strconv.Quote("tab\there"))
	b, _ := strconv.ParseBool("true")
	fmt.Println(b, strconv.Itoa(-45), strconv.FormatInt(255, 2), strconv.AppendInt(nil, 7, 10))
	fmt.Printf("%08.3f|%+d|%o|%X|%U|%c\n", 3.14159, 5, 64, 3054, 0x1F600, 'G')
	fmt.Printf("%t %v %p\n", true, nil, nil)
	fmt.Printf("%6.2f%%\n", 12.3456)
	fmt.Printf("%[2]d %[1]d\n", 1, 2)
	fmt.Printf("%v %v\n", []byte("hi"), [3]bool{true})
	fmt.Printf("%q %v %s\n", []string{"a", "b"}, map[int]bool{2: true, 1: false}, []byte("raw"))
	fmt.Println(fmt.Sprintf("%*d|%-*d|", 5, 42, 4, 7))
	var ip *int
	fmt.Println(ip == nil, fmt.Sprint(ip))
	type T struct {
		A int
		B []int
	}
	fmt.Printf("%v %+v %#v\n", T{1, nil}, T{2, []int{3}}, T{})
	fmt.Printf("%d %!\n", 1)
	fmt.Printf("%d\n", "str")
	fmt.Println(fmt.Sprintln("a", 1, true))
}
