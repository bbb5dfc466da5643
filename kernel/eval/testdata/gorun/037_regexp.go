package main

import (
	"fmt"
	"regexp"
)

func main() {
	re := regexp.MustCompile(`(\w+)@(\w+)\.com`)
	s := "ana@example.com, bob@test.com"
	fmt.Println(re.FindAllString(s, -1))
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		fmt.Println(m[1], m[2])
	}
	fmt.Println(re.ReplaceAllString(s, "$2:$1"), re.MatchString("nope"))
	named := regexp.MustCompile(`(?P<year>\d{4})-(?P<month>\d{2})`)
	m := named.FindStringSubmatch("date: 2024-05")
	fmt.Println(m[named.SubexpIndex("month")], named.SubexpNames())
	_, err := regexp.Compile("a(")
	fmt.Println(err)
}
