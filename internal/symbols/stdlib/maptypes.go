package stdlib

import (
	"encoding"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"log"
	"reflect"
)

// MapTypes lists, for compiled functions that take interface{} values and
// treat some interfaces specially (fmt's printing of a Stringer, json's of
// a Marshaler), the interfaces an interpreted value is to be wrapped for
// when it is passed: yaegi's interp.Use takes it under the key "." as
// "MapTypes". A value of a type declared in a cell has its methods only in
// the interpreter; the wrapper carries them to compiled code.
var MapTypes = map[reflect.Value][]reflect.Type{}

// Printing are the interfaces fmt's printing functions look for, in fmt's
// order of precedence (an error's Error before its String).
var Printing = []reflect.Type{
	reflect.TypeFor[fmt.Formatter](),
	reflect.TypeFor[error](),
	reflect.TypeFor[fmt.Stringer](),
}

func init() {
	for _, f := range []any{fmt.Errorf, fmt.Fprint, fmt.Fprintf, fmt.Fprintln, fmt.Print, fmt.Printf, fmt.Println,
		fmt.Sprint, fmt.Sprintf, fmt.Sprintln, fmt.Append, fmt.Appendf, fmt.Appendln,
		log.Fatal, log.Fatalf, log.Fatalln, log.Panic, log.Panicf, log.Panicln, log.Print, log.Printf, log.Println} {
		MapTypes[reflect.ValueOf(f)] = Printing
	}
	scanning := []reflect.Type{reflect.TypeFor[fmt.Scanner]()}
	for _, f := range []any{fmt.Scan, fmt.Scanf, fmt.Scanln, fmt.Fscan, fmt.Fscanf, fmt.Fscanln, fmt.Sscan, fmt.Sscanf, fmt.Sscanln} {
		MapTypes[reflect.ValueOf(f)] = scanning
	}
	marshal := []reflect.Type{reflect.TypeFor[json.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()}
	MapTypes[reflect.ValueOf(json.Marshal)] = marshal
	MapTypes[reflect.ValueOf(json.MarshalIndent)] = marshal
	unmarshal := []reflect.Type{reflect.TypeFor[json.Unmarshaler](), reflect.TypeFor[encoding.TextUnmarshaler]()}
	MapTypes[reflect.ValueOf(json.Unmarshal)] = unmarshal
	MapTypes[reflect.ValueOf(xml.Marshal)] = []reflect.Type{reflect.TypeFor[xml.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()}
	MapTypes[reflect.ValueOf(xml.Unmarshal)] = []reflect.Type{reflect.TypeFor[xml.Unmarshaler](), reflect.TypeFor[encoding.TextUnmarshaler]()}
}
