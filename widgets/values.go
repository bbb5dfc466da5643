package widgets

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Decoding of values front ends send, strictly: a JSON number for an int
// must be integral, a string is not a number.

func decodeInt(raw json.RawMessage) (int, error) {
	var v any
	if err := decodeStrict(raw, &v); err != nil {
		return 0, err
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("want an integer, got %s", raw)
	}
	if i, err := strconv.ParseInt(string(n), 10, 0); err == nil {
		return int(i), nil
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("want an integer, got %s", raw)
	}
	return int(f), nil
}

func decodeFloat(raw json.RawMessage) (float64, error) {
	var v any
	if err := decodeStrict(raw, &v); err != nil {
		return 0, err
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("want a number, got %s", raw)
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a number, got %s", raw)
	}
	return f, nil
}

func decodeBool(raw json.RawMessage) (bool, error) {
	var v any
	if err := decodeStrict(raw, &v); err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("want true or false, got %s", raw)
	}
	return b, nil
}

func decodeString(raw json.RawMessage) (string, error) {
	var v any
	if err := decodeStrict(raw, &v); err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("want a string, got %s", raw)
	}
	return s, nil
}

// asInt reads an int the model keeps (an int, or a number a front end sent).
func asInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case float64:
		return int(x)
	case json.Number:
		i, _ := x.Int64()
		return int(i)
	}
	return 0
}

func asFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case json.Number:
		f, _ := x.Float64()
		return f
	}
	return 0
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func clampFloat(v, lo, hi float64) float64 {
	return math.Min(math.Max(v, lo), hi)
}
