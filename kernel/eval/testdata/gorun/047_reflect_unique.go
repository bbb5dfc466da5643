package main

import (
	"fmt"
	"reflect"
	"unique"
)

type User struct {
	Name  string `json:"name" db:"user_name"`
	Email string `json:"email"`
	Age   int
}

func main() {
	t := reflect.TypeFor[User]()
	for i := range t.NumField() {
		f := t.Field(i)
		fmt.Println(f.Name, f.Type, f.Tag.Get("json"), f.Tag.Get("db"), f.IsExported())
	}
	fmt.Println(t.Kind(), t.NumField(), reflect.TypeFor[[]int](), reflect.TypeFor[error]().Kind())
	v := reflect.ValueOf(User{Name: "ana", Email: "a@x"})
	fmt.Println(v.Field(0).String(), v.NumField())
	h1 := unique.Make("gopher")
	h2 := unique.Make("go" + "pher")
	fmt.Println(h1 == h2, h1.Value())
	x, ok := reflect.TypeAssert[string](reflect.ValueOf("s"))
	fmt.Println(x, ok)
}
