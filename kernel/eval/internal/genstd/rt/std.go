package rt

import (
	"crypto/hkdf"
	"crypto/pbkdf2"
	"database/sql"
	"errors"
	"fmt"
	"hash"
	"hash/maphash"
	"reflect"
	"runtime"
	"strconv"
	"time"
)

// HKDFExtract is hkdf.Extract for hash.Hash.
func HKDFExtract(h func() hash.Hash, secret, salt []byte) ([]byte, error) {
	return hkdf.Extract(h, secret, salt)
}

// HKDFExpand is hkdf.Expand for hash.Hash.
func HKDFExpand(h func() hash.Hash, prk []byte, info string, keyLength int) ([]byte, error) {
	return hkdf.Expand(h, prk, info, keyLength)
}

// HKDFKey is hkdf.Key for hash.Hash.
func HKDFKey(h func() hash.Hash, secret, salt []byte, info string, keyLength int) ([]byte, error) {
	return hkdf.Key(h, secret, salt, info, keyLength)
}

// PBKDF2Key is pbkdf2.Key for hash.Hash.
func PBKDF2Key(h func() hash.Hash, password string, salt []byte, iter, keyLength int) ([]byte, error) {
	return pbkdf2.Key(h, password, salt, iter, keyLength)
}

// MaphashComparable is maphash.Comparable of v as an interface value.
func MaphashComparable(seed maphash.Seed, v any) uint64 { return maphash.Comparable(seed, v) }

// MaphashWriteComparable is maphash.WriteComparable of x as an interface
// value.
func MaphashWriteComparable(h *maphash.Hash, x any) { maphash.WriteComparable(h, x) }

// AddCleanup is runtime.AddCleanup for a pointer and an argument of any
// type.
func AddCleanup(ptr any, cleanup func(any), arg any) runtime.Cleanup {
	p := reflect.ValueOf(ptr)
	if p.Kind() != reflect.Pointer || p.IsNil() {
		panic("runtime.AddCleanup: ptr is nil")
	}
	return runtime.AddCleanup((*byte)(p.UnsafePointer()), cleanup, arg)
}

// ConvertAssign stores src in *dest converting it as database/sql's Scan
// does for the common kinds: assignable or convertible values, []byte and
// strings to strings, numbers and booleans, time.Time.
func ConvertAssign(dest, src any) error {
	d := reflect.ValueOf(dest)
	if d.Kind() != reflect.Pointer || d.IsNil() {
		return errors.New("sql: destination not a pointer")
	}
	d = d.Elem()
	s := reflect.ValueOf(src)
	if b, ok := src.([]byte); ok {
		s = reflect.ValueOf(string(b))
	}
	switch {
	case s.Type().AssignableTo(d.Type()):
		d.Set(s)
		return nil
	case d.Kind() == reflect.String && s.Kind() != reflect.String:
		d.SetString(fmt.Sprint(s.Interface()))
		return nil
	case s.Kind() == reflect.String:
		str := s.String()
		switch d.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n, err := strconv.ParseInt(str, 10, d.Type().Bits())
			if err != nil {
				return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, str, d.Kind(), err)
			}
			d.SetInt(n)
			return nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n, err := strconv.ParseUint(str, 10, d.Type().Bits())
			if err != nil {
				return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, str, d.Kind(), err)
			}
			d.SetUint(n)
			return nil
		case reflect.Float32, reflect.Float64:
			f, err := strconv.ParseFloat(str, d.Type().Bits())
			if err != nil {
				return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, str, d.Kind(), err)
			}
			d.SetFloat(f)
			return nil
		case reflect.Bool:
			b, err := strconv.ParseBool(str)
			if err != nil {
				return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, str, d.Kind(), err)
			}
			d.SetBool(b)
			return nil
		}
	case s.Type().ConvertibleTo(d.Type()) && s.Kind() != reflect.Struct && !(d.Kind() == reflect.String):
		d.Set(s.Convert(d.Type()))
		return nil
	}
	if t, ok := src.(time.Time); ok && d.Type() == reflect.TypeFor[time.Time]() {
		d.Set(reflect.ValueOf(t))
		return nil
	}
	if sc, ok := d.Addr().Interface().(sql.Scanner); ok {
		return sc.Scan(src)
	}
	return fmt.Errorf("sql: unsupported Scan, storing driver.Value type %T into type %s", src, d.Type())
}
