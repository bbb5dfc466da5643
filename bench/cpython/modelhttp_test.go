package cpython

import (
	"context"
	"testing"
	"time"
)

// With ModelOverHTTP the model is a bench/strategy server driven by the
// same client as the real app; sleep scenarios agree within ±10 %.
func TestCompareModelOverHTTP(t *testing.T) {
	needPython(t, "fastapi", "uvicorn", "httpx", "flask", "gunicorn")
	if testing.Short() {
		t.Skip("real-process timing test")
	}
	ctx := context.Background()
	opts := Options{ModelOverHTTP: true}
	retryOnce(t, "001 over HTTP", func() (bool, string) {
		f, err := Compare001(ctx, opts, []Case001{{SyncSleep, 100, 200 * time.Millisecond}, {Offload, 10, 200 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("\n%v", f)
		if !AllAgree(f) {
			return false, "disagreement:\n" + f.String()
		}
		return true, ""
	})
	retryOnce(t, "003 over HTTP", func() (bool, string) {
		f, err := Compare003(ctx, opts, ModeIO, []Case003{{false, 1, 5}, {false, 2, 5}}, 10, 300*time.Millisecond, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("\n%v", f)
		if !AllAgree(f) {
			return false, "disagreement:\n" + f.String()
		}
		return true, ""
	})
}
