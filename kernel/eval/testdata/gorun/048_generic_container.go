package main

import (
	"fmt"
	"iter"
	"strings"
)

type List[T any] struct {
	head *node[T]
	size int
}

type node[T any] struct {
	val  T
	next *node[T]
}

func (l *List[T]) Push(v T) {
	l.head = &node[T]{v, l.head}
	l.size++
}

func (l *List[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		for n := l.head; n != nil; n = n.next {
			if !yield(n.val) {
				return
			}
		}
	}
}

type Set[T comparable] map[T]struct{}

func (s Set[T]) Add(v T)      { s[v] = struct{}{} }
func (s Set[T]) Has(v T) bool { _, ok := s[v]; return ok }
func NewSet[T comparable](vs ...T) Set[T] {
	s := Set[T]{}
	for _, v := range vs {
		s.Add(v)
	}
	return s
}

func Filter[T any](seq iter.Seq[T], keep func(T) bool) iter.Seq[T] {
	return func(yield func(T) bool) {
		for v := range seq {
			if keep(v) && !yield(v) {
				return
			}
		}
	}
}

func main() {
	var l List[string]
	for _, w := range strings.Fields("c b a") {
		l.Push(w)
	}
	for v := range l.All() {
		fmt.Print(v, " ")
	}
	fmt.Println(l.size)
	s := NewSet(1, 2, 3)
	fmt.Println(s.Has(2), s.Has(5), len(s))
	for v := range Filter(l.All(), func(s string) bool { return s != "b" }) {
		fmt.Print(v)
	}
	fmt.Println()
}
