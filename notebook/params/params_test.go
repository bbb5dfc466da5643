package params_test

import (
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/notebook/params"
)

func TestSetTyped(t *testing.T) {
	t.Parallel()
	type mode string
	tests := []struct {
		text string
		ptr  any
		want any
	}{
		{"40", new(int), 40},
		{" 0x10 ", new(int64), int64(16)},
		{"1_000", new(int), 1000},
		{"7", new(uint8), uint8(7)},
		{"500ms", new(time.Duration), 500 * time.Millisecond},
		{"1m30s", new(time.Duration), 90 * time.Second},
		{"8k", new(string), "8k"},
		{" spaced ", new(string), " spaced "},
		{"lifo", new(mode), mode("lifo")},
		{"false", new(bool), false},
		{"True", new(bool), true},
		{"0.25", new(float64), 0.25},
		{"inf", new(float64), float64Inf()},
		{"[1, 10, 100]", new([]int), []int{1, 10, 100}},
		{`{"a": 1}`, new(map[string]int), map[string]int{"a": 1}},
		{`{"N": 3, "Name": "x"}`, new(struct {
			N    int
			Name string
		}), struct {
			N    int
			Name string
		}{3, "x"}},
		{"2026-01-02T03:04:05Z", new(time.Time), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{"127.0.0.1", new(netip.Addr), netip.MustParseAddr("127.0.0.1")},
		{"anything", new(any), "anything"},
	}
	for _, tt := range tests {
		if err := params.Set(params.Value("p", tt.ptr, tt.text)); err != nil {
			t.Errorf("Set(%q into %T) = %v", tt.text, tt.ptr, err)
			continue
		}
		if got := reflect.ValueOf(tt.ptr).Elem().Interface(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Set(%q into %T) gave %#v; want %#v", tt.text, tt.ptr, got, tt.want)
		}
	}
}

func float64Inf() float64 {
	var f float64
	fmt.Sscan("+Inf", &f)
	return f
}

func TestSetErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		ptr  any
		want string
	}{
		{"many", new(int), `parameter p: want int, got "many"`},
		{"300", new(int8), `parameter p: want int8 (out of range), got "300"`},
		{"-1", new(uint), `parameter p: want uint, got "-1"`},
		{"2", new(time.Duration), `parameter p: want time.Duration (a number with a unit: 500ms, 2s, 1m30s), got "2"`},
		{"yes", new(bool), `parameter p: want bool (true or false), got "yes"`},
		{"1,2", new([]int), `parameter p: want []int as JSON, got "1,2"`},
		{"x", new(chan int), `parameter p: a chan int cannot be set from text`},
		{"x", 5, `parameter p: want a pointer to the variable (&p), got int`},
		{"x", nil, `parameter p: want a pointer to the variable (&p), got <nil>`},
		{"999.999.1.1", new(netip.Addr), `parameter p: want netip.Addr, got "999.999.1.1": `},
	}
	for _, tt := range tests {
		err := params.Set(params.Value("p", tt.ptr, tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Set(%q into %T) = %v; want an error containing %q", tt.text, tt.ptr, err, tt.want)
		}
	}
}

// When one value does not convert, no variable changes, and every bad
// value is named.
func TestSetAllOrNothing(t *testing.T) {
	t.Parallel()
	n, d, s := 1, time.Second, "a"
	err := params.Set(params.Value("n", &n, "2"), params.Value("d", &d, "soon"), params.Value("s", &s, "b"), params.Value("m", &n, "x"))
	if err == nil || !strings.Contains(err.Error(), "parameter d:") || !strings.Contains(err.Error(), "parameter m:") {
		t.Fatalf("Set = %v; want errors for d and m", err)
	}
	if n != 1 || d != time.Second || s != "a" {
		t.Errorf("after a failed Set: n=%d d=%v s=%q; want all unchanged (1 1s a)", n, d, s)
	}
}

func ExampleSet() {
	vus, think, image, quick := 20, time.Second, "8k", false
	err := params.Set(
		params.Value("vus", &vus, "40"),
		params.Value("think", &think, "500ms"),
		params.Value("image", &image, "7k"),
		params.Value("quick", &quick, "true"),
	)
	fmt.Println(vus, think, image, quick, err)
	err = params.Set(params.Value("think", &think, "2"))
	fmt.Println(err)
	// Output:
	// 40 500ms 7k true <nil>
	// parameter think: want time.Duration (a number with a unit: 500ms, 2s, 1m30s), got "2"
}
