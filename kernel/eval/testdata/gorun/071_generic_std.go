package main

import (
	"crypto/hkdf"
	"crypto/pbkdf2"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"hash/maphash"
	"runtime"
	"unique"
	"weak"
)

type blob struct{ data [64]byte }

func main() {
	key, err := hkdf.Key(sha256.New, []byte("secret"), []byte("salt"), "info", 16)
	fmt.Printf("%x %v\n", key, err)
	prk, _ := hkdf.Extract(sha256.New, []byte("secret"), nil)
	out, _ := hkdf.Expand(sha256.New, prk, "ctx", 8)
	fmt.Printf("%x\n", out)
	dk, _ := pbkdf2.Key(sha256.New, "password", []byte("salt"), 1000, 16)
	fmt.Printf("%x\n", dk)
	seed := maphash.MakeSeed()
	fmt.Println(maphash.Comparable(seed, "x") == maphash.Comparable(seed, "x"), maphash.Comparable(seed, 1) == maphash.Comparable(seed, 2))
	var h1, h2 maphash.Hash
	h1.SetSeed(seed)
	h2.SetSeed(seed)
	maphash.WriteComparable(&h1, [2]int{1, 2})
	maphash.WriteComparable(&h2, [2]int{1, 2})
	fmt.Println(h1.Sum64() == h2.Sum64())
	var n sql.Null[int64]
	fmt.Println(n.Scan(int64(42)), n.V, n.Valid)
	v, err := n.Value()
	fmt.Println(v, err)
	var s sql.Null[string]
	s.Scan(nil)
	fmt.Printf("%q %v\n", s.V, s.Valid)
	h := unique.Make(blob{})
	fmt.Println(h == unique.Make(blob{}), h.Value().data[0])
	b := &blob{}
	w := weak.Make(b)
	fmt.Println(w.Value() == b, w == weak.Make(b))
	runtime.KeepAlive(b)
	c := runtime.AddCleanup(&blob{}, func(int) {}, 0)
	c.Stop()
	fmt.Println("cleanup stopped")
}
