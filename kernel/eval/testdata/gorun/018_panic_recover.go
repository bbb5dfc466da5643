package main

import (
	"errors"
	"fmt"
)

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return a / b, nil
}

type myErr struct{ code int }

func (e myErr) Error() string { return fmt.Sprintf("code %d", e.code) }

func main() {
	fmt.Println(safeDiv(6, 3))
	fmt.Println(safeDiv(1, 0))
	func() {
		defer func() {
			r := recover()
			err, ok := r.(error)
			fmt.Println("recovered error:", ok, err)
			var me myErr
			fmt.Println(errors.As(err, &me), me.code)
		}()
		panic(myErr{7})
	}()
	defer fmt.Println("deferred 1")
	defer fmt.Println("deferred 2")
	for i := range 3 {
		defer fmt.Print(i, " ")
	}
}
