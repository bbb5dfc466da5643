package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

type key string

func work(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := work(ctx, time.Second)
	fmt.Println(err, errors.Is(err, context.DeadlineExceeded))
	ctx2, cancel2 := context.WithCancelCause(context.Background())
	cancel2(errors.New("shutting down"))
	fmt.Println(ctx2.Err(), context.Cause(ctx2))
	vctx := context.WithValue(context.Background(), key("user"), "ana")
	fmt.Println(vctx.Value(key("user")), vctx.Value(key("none")))
	ctx3, cancel3 := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx3, func() { fmt.Println("after func ran") })
	cancel3()
	time.Sleep(10 * time.Millisecond)
	fmt.Println(stop())
	fmt.Println(work(context.Background(), time.Millisecond))
	ctx4, cancel4 := context.WithTimeoutCause(context.Background(), time.Millisecond, errors.New("too slow"))
	defer cancel4()
	<-ctx4.Done()
	fmt.Println(context.Cause(ctx4))
}
