package main

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"hash/fnv"
)

func main() {
	fmt.Printf("%x\n", sha256.Sum256([]byte("abc")))
	fmt.Printf("%x\n", md5.Sum([]byte("abc")))
	h := hmac.New(sha256.New, []byte("key"))
	h.Write([]byte("msg"))
	fmt.Printf("%x\n", h.Sum(nil))
	fmt.Println(crc32.ChecksumIEEE([]byte("hello")))
	f := fnv.New64a()
	f.Write([]byte("x"))
	fmt.Println(f.Sum64())
}
