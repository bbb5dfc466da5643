package main

import (
	"cmp"
	"fmt"
	"strconv"
)

type Number interface {
	~int | ~int64 | ~float64
}

func Sum[T Number](xs ...T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

type Pair[K cmp.Ordered, V any] struct {
	Key K
	Val V
}

func (p Pair[K, V]) String() string { return fmt.Sprintf("%v=%v", p.Key, p.Val) }

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }
func (s *Stack[T]) Pop() (T, bool) {
	var zero T
	if len(s.items) == 0 {
		return zero, false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}

func MaxOf[T cmp.Ordered](a, b T) T {
	if a > b {
		return a
	}
	return b
}

func main() {
	fmt.Println(Sum(1, 2, 3), Sum(1.5, 2.5))
	fmt.Println(Map([]int{1, 2, 3}, strconv.Itoa))
	fmt.Println(Map([]string{"a", "bb"}, func(s string) int { return len(s) }))
	p := Pair[string, int]{"a", 1}
	fmt.Println(p)
	var st Stack[string]
	st.Push("x")
	st.Push("y")
	v, ok := st.Pop()
	fmt.Println(v, ok)
	fmt.Println(MaxOf(3, 7), MaxOf("a", "b"))
}
