package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

var ErrNotFound = errors.New("not found")

type ValidationError struct {
	Field string
}

func (e *ValidationError) Error() string { return "invalid " + e.Field }

func find(k string) error {
	if k == "" {
		return &ValidationError{Field: "key"}
	}
	return fmt.Errorf("find %q: %w", k, ErrNotFound)
}

func main() {
	err := find("x")
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrNotFound), errors.Unwrap(err) == ErrNotFound)
	err = fmt.Errorf("outer: %w", find(""))
	var ve *ValidationError
	if errors.As(err, &ve) {
		fmt.Println("field:", ve.Field)
	}
	if v, ok := errors.AsType[*ValidationError](err); ok {
		fmt.Println("AsType:", v.Field)
	}
	j := errors.Join(ErrNotFound, errors.New("second"))
	fmt.Println(j, errors.Is(j, ErrNotFound))
	_, err = strconv.Atoi("12a")
	var ne *strconv.NumError
	fmt.Println(errors.As(err, &ne), ne.Func, ne.Err)
	_, err = os.Open("/definitely/not/here")
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	var pe *fs.PathError
	if errors.As(err, &pe) {
		fmt.Println(pe.Op, pe.Path)
	}
	fmt.Printf("%v | %+v\n", fmt.Errorf("ctx: %w", &ValidationError{"name"}), ve)
}
