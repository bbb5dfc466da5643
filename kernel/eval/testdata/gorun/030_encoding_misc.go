package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
)

func main() {
	e := base64.StdEncoding.EncodeToString([]byte("hello?"))
	d, _ := base64.URLEncoding.DecodeString(base64.URLEncoding.EncodeToString([]byte("hi>")))
	fmt.Println(e, string(d), base64.RawStdEncoding.EncodeToString([]byte("a")))
	fmt.Println(hex.EncodeToString([]byte("Go")), hex.Dump([]byte("abc"))[:20])
	buf := new(bytes.Buffer)
	binary.Write(buf, binary.BigEndian, uint16(0x1234))
	binary.Write(buf, binary.LittleEndian, int32(-2))
	fmt.Println(buf.Bytes())
	fmt.Println(binary.BigEndian.Uint32([]byte{0, 0, 1, 0}), binary.AppendUvarint(nil, 300))
	r := csv.NewReader(strings.NewReader("name,age\n\"Smith, J\",42\n"))
	recs, err := r.ReadAll()
	fmt.Println(recs, len(recs), err)
	w := csv.NewWriter(os.Stdout)
	w.Write([]string{"a,b", "c"})
	w.Flush()
}
