package vfmt

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Native types, and the interpreter's form of them built with reflect as
// yaegi builds them (fields exported with an X, no name, no methods), with
// the pipeline's tag.

type point struct{ x, y int }

type Rect struct {
	Min, Max point
	Label    string
}

type employee struct {
	Name    string
	tags    []string
	Boss    *point
	Started time.Duration
	quiet   time.Duration
	Any     any
	M       map[string]point
}

func interp(t reflect.Type, name string) reflect.Type {
	var fields []reflect.StructField
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		names = append(names, f.Name)
		ft := f.Type
		ft = convertType(ft)
		n := f.Name
		if !f.IsExported() {
			n = "X" + n
		}
		fields = append(fields, reflect.StructField{Name: n, Type: ft})
	}
	fields[0].Tag = reflect.StructTag(TagKey + `:"` + Tag(name, names, nil, nil) + `"`)
	return reflect.StructOf(fields)
}

var interpTypes = map[reflect.Type]reflect.Type{}

func convertType(t reflect.Type) reflect.Type {
	if it, ok := interpTypes[t]; ok {
		return it
	}
	switch t.Kind() {
	case reflect.Pointer:
		return reflect.PointerTo(convertType(t.Elem()))
	case reflect.Slice:
		return reflect.SliceOf(convertType(t.Elem()))
	case reflect.Map:
		return reflect.MapOf(convertType(t.Key()), convertType(t.Elem()))
	}
	return t
}

func init() {
	for _, t := range []reflect.Type{reflect.TypeFor[point](), reflect.TypeFor[Rect](), reflect.TypeFor[employee]()} {
		interpTypes[t] = interp(t, t.String())
	}
}

// convert copies a native value into the interpreter's form.
func convert(v reflect.Value) reflect.Value {
	t := convertType(v.Type())
	if t == v.Type() {
		return v
	}
	out := reflect.New(t).Elem()
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if !f.CanInterface() {
				f = reflect.NewAt(f.Type(), nil).Elem() // replaced below
				f = unexported(v, i)
			}
			out.Field(i).Set(convert(f))
		}
	case reflect.Pointer:
		if v.IsNil() {
			return out
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(convert(v.Elem()))
		return p
	case reflect.Slice:
		if v.IsNil() {
			return out
		}
		s := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			s.Index(i).Set(convert(v.Index(i)))
		}
		return s
	case reflect.Map:
		if v.IsNil() {
			return out
		}
		m := reflect.MakeMap(t)
		for _, k := range v.MapKeys() {
			m.SetMapIndex(convert(k), convert(v.MapIndex(k)))
		}
		return m
	}
	return out
}

func unexported(v reflect.Value, i int) reflect.Value {
	cp := reflect.New(v.Type()).Elem()
	cp.Set(v)
	f := cp.Field(i)
	return reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem()
}

func TestMatchesFmt(t *testing.T) {
	t.Parallel()
	p := point{1, 2}
	r := Rect{Min: p, Max: point{3, 4}, Label: "box"}
	e := employee{Name: "Ana", tags: []string{"go"}, Boss: &point{5, 6}, Started: 90 * time.Minute, quiet: time.Second,
		Any: point{7, 8}, M: map[string]point{"b": {2, 2}, "a": {1, 1}}}
	values := []any{p, r, &p, &r, []point{{5, 6}}, map[string]point{"z": {1, 1}, "a": {2, 2}}, e, []*point{nil}, struct{}{}}
	verbs := []string{"%v", "%+v", "%#v", "%T", "%d", "%x", "%s", "%q", "%5v", "%-4d|", "%08.3f"}
	for _, v := range values {
		iv := convert(reflect.ValueOf(v)).Interface()
		for _, verb := range verbs {
			want := fmt.Sprintf(verb, v)
			got := fmt.Sprintf(verb, Wrap(iv, nil))
			if strings.Contains(verb, "v") || strings.Contains(verb, "x") || strings.Contains(verb, "d") {
				want, got = maskAddrs(want), maskAddrs(got)
			}
			if verb == "%T" {
				f, a := Args(verb, []any{iv}, nil, true)
				got = fmt.Sprintf(f, a...)
			}
			if got != want {
				t.Errorf("Sprintf(%q, %T) = %q; want %q", verb, v, got, want)
			}
		}
	}
}

var longNumber = regexp.MustCompile(`[0-9a-f]{10,}`)

func maskAddrs(s string) string {
	s = longNumber.ReplaceAllString(s, "ADDR")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "0x") {
			b.WriteString("0xADDR")
			i += 2
			for i < len(s) && strings.ContainsRune("0123456789abcdef", rune(s[i])) {
				i++
			}
			i--
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
