package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

type upper struct{ r io.Reader }

func (u upper) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	copy(p, bytes.ToUpper(p[:n]))
	return n, err
}

func main() {
	sc := bufio.NewScanner(strings.NewReader("one two\nthree\n\nfour"))
	for sc.Scan() {
		fmt.Printf("%q\n", sc.Text())
	}
	ws := bufio.NewScanner(strings.NewReader("a bb  ccc"))
	ws.Split(bufio.ScanWords)
	n := 0
	for ws.Scan() {
		n++
	}
	fmt.Println("words", n)
	b, _ := io.ReadAll(upper{strings.NewReader("shout")})
	fmt.Println(string(b))
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	fmt.Fprintf(w, "x=%d", 5)
	fmt.Println(buf.Len())
	w.Flush()
	fmt.Println(buf.String())
	pr, pw := io.Pipe()
	go func() {
		fmt.Fprint(pw, "through the pipe")
		pw.Close()
	}()
	got, _ := io.ReadAll(pr)
	fmt.Println(string(got))
	lr := io.LimitReader(strings.NewReader("abcdef"), 3)
	c, _ := io.Copy(io.Discard, lr)
	fmt.Println(c)
	r := bufio.NewReader(strings.NewReader("line1\nline2"))
	l, err := r.ReadString('\n')
	fmt.Printf("%q %v\n", l, err)
}
