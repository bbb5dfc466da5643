package main

import (
	"errors"
	"fmt"
	"io/fs"
)

type QueryError struct {
	Query string
	Err   error
}

func (e *QueryError) Error() string { return "query " + e.Query + ": " + e.Err.Error() }
func (e *QueryError) Unwrap() error { return e.Err }

type Temporary interface{ Temporary() bool }

type netErr struct{ msg string }

func (e netErr) Error() string   { return e.msg }
func (e netErr) Temporary() bool { return true }

var ErrMissing = &QueryError{Query: "none", Err: fs.ErrNotExist}

func run(q string) error {
	if q == "" {
		return ErrMissing
	}
	return fmt.Errorf("run: %w", &QueryError{Query: q, Err: netErr{"timeout"}})
}

func main() {
	err := run("select 1")
	fmt.Println(err)
	var qe *QueryError
	fmt.Println(errors.As(err, &qe), qe.Query)
	var ne netErr
	fmt.Println(errors.As(err, &ne), ne.msg)
	fmt.Println(errors.Is(run(""), ErrMissing), errors.Is(run(""), fs.ErrNotExist))
	fmt.Println(errors.Unwrap(errors.Unwrap(err)) != nil)
	if e, ok := errors.AsType[netErr](err); ok {
		fmt.Println("temporary:", e.Temporary())
	}
	joined := errors.Join(run(""), run("x"))
	fmt.Println(errors.Is(joined, fs.ErrNotExist))
	fmt.Printf("%v\n", joined)
	wrapped := fmt.Errorf("outer: %w", fmt.Errorf("middle: %w", ErrMissing))
	fmt.Println(wrapped, errors.Is(wrapped, ErrMissing))
}
