package main

import (
	"fmt"
	"strings"
	"unicode"
)

func main() {
	s := "  Hello, Gophers!  "
	fmt.Printf("%q\n", strings.TrimSpace(s))
	fmt.Println(strings.Fields(s), len(strings.Fields(s)))
	before, after, found := strings.Cut("key=value=x", "=")
	fmt.Println(before, after, found)
	fmt.Println(strings.EqualFold("Go", "GO"), strings.HasPrefix("golang", "go"), strings.Count("cheese", "e"))
	fmt.Println(strings.Repeat("ab", 3), strings.ToUpper("ß"), strings.Title("x"))
	r := strings.NewReplacer("<", "&lt;", ">", "&gt;")
	fmt.Println(r.Replace("<b>hi</b>"))
	var b strings.Builder
	for i := range 3 {
		fmt.Fprintf(&b, "%d-", i)
	}
	b.WriteString("end")
	fmt.Println(b.String(), b.Len())
	fmt.Println(strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return -1
		}
		return unicode.ToUpper(r)
	}, "a1b2c3"))
	fmt.Println(strings.Split("a/b/c", "/"), strings.SplitN("a/b/c", "/", 2), strings.Join([]string{"x", "y"}, "+"))
	fmt.Println(strings.Index("chicken", "ken"), strings.LastIndex("go gopher", "go"), strings.ContainsAny("hello", "xyz"))
	p, ok := strings.CutPrefix("v1.2.3", "v")
	fmt.Println(p, ok, strings.TrimFunc("123abc456", unicode.IsDigit))
	for i, r := range "héllo" {
		fmt.Print(i, ":", string(r), " ")
	}
	fmt.Println()
	fmt.Printf("%5s|%-5s|%.2s|%x|% x\n", "ab", "cd", "xyz", "hi", "hi")
}
