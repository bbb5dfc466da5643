package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

type celsius float64

func (c celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type notFound struct{ name string }

func (e *notFound) Error() string { return e.name + " not found" }

func describe(x any) string {
	switch v := x.(type) {
	case nil:
		return "nil"
	case int, int64:
		return fmt.Sprintf("integer %v", v)
	case *notFound:
		return "mine: " + v.Error()
	case error:
		return "error: " + v.Error()
	case fmt.Stringer:
		return "stringer: " + v.String()
	case []any:
		return fmt.Sprintf("list of %d", len(v))
	default:
		return fmt.Sprintf("other %T", v)
	}
}

func main() {
	for _, x := range []any{nil, 3, int64(4), &notFound{"key"}, errors.New("boom"), time.Second, celsius(21.5), []any{1, 2}, "s", 2.5} {
		fmt.Println(describe(x))
	}
	_, err := os.Open("/nonexistent/file")
	switch err.(type) {
	case *fs.PathError:
		fmt.Println("path error")
	}
	var s fmt.Stringer
	var x any
	if _, ok := x.(fmt.Stringer); !ok {
		fmt.Println("nil is no Stringer")
	}
	var c any = celsius(3)
	s, ok := c.(fmt.Stringer)
	fmt.Println(s, ok)
}
