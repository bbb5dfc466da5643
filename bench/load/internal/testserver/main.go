// Command testserver is the comparison script's target: a plain net/http
// keep-alive server on loopback answering every request with a short body,
// optionally after a fixed delay. It prints its address on the first line
// of stdout and serves until killed or until -max elapses.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	delay := flag.Duration("delay", 0, "sleep before answering")
	maxLife := flag.Duration("max", 10*time.Minute, "exit after this long whatever happens")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
	body := []byte("hello, world\n")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if *delay > 0 {
			time.Sleep(*delay)
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write(body)
	})
	fmt.Println(ln.Addr().String())
	time.AfterFunc(*maxLife, func() { os.Exit(0) })
	if err := http.Serve(ln, h); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}
