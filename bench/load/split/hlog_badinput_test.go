package split

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/conclab/conclab/bench/metrics"
)

// validPayload is a real interval histogram, and its parts: the envelope
// cookie and the inflated bytes (40-byte header, then the counts).
func validPayload(t *testing.T) (payload string, cookie uint32, inflated []byte) {
	t.Helper()
	h := hdrhistogram.New(1, 3600e9, 3)
	for i := 1; i <= 10; i++ {
		_ = h.RecordValue(int64(i) * 1e6)
	}
	p, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(string(p))
	z, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(z); err != nil {
		t.Fatal(err)
	}
	return string(p), binary.BigEndian.Uint32(raw), buf.Bytes()
}

// envelope compresses inflated bytes into a payload with the given cookie
// and stated compressed length (trueLen: the true one).
func envelope(cookie uint32, inflated []byte, length int) string {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(inflated)
	w.Close()
	if length == trueLen {
		length = z.Len()
	}
	out := binary.BigEndian.AppendUint32(nil, cookie)
	out = binary.BigEndian.AppendUint32(out, uint32(int32(length)))
	return base64.StdEncoding.EncodeToString(append(out, z.Bytes()...))
}

const trueLen = 1 << 40

// zigzag is HdrHistogram's ZigZag LEB128 encoding of v (|v| < 2⁵⁵).
func zigzag(v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	var out []byte
	for u >= 0x80 {
		out = append(out, byte(u)|0x80)
		u >>= 7
	}
	return append(out, byte(u))
}

// withCounts is the valid header with the given counts as payload.
func withCounts(header []byte, counts ...int64) []byte {
	var payload []byte
	for _, c := range counts {
		payload = append(payload, zigzag(c)...)
	}
	h := append([]byte(nil), header[:40]...)
	binary.BigEndian.PutUint32(h[4:], uint32(len(payload)))
	return append(h, payload...)
}

// Bad histograms and bad interval times in a log are errors that name the
// log and line, never a panic.
func TestHlogBadHistograms(t *testing.T) {
	good, cookie, inflated := validPayload(t)
	header := inflated[:40]
	setHeader := func(off int, v uint64, size int) []byte {
		h := append([]byte(nil), inflated...)
		if size == 4 {
			binary.BigEndian.PutUint32(h[off:], uint32(v))
		} else {
			binary.BigEndian.PutUint64(h[off:], v)
		}
		return h
	}
	short := base64.StdEncoding.EncodeToString([]byte{1, 2, 3})
	for _, tc := range []struct {
		name, payload, want string
	}{
		{"truncated base64", good[:len(good)-3], "base64"},
		{"few bytes", short, "at least 8"},
		{"wrong cookie", envelope(cookie^0x0100_0000, inflated, trueLen), "not a V2"},
		{"negative length", envelope(cookie, inflated, -5), "compressed length"},
		{"length beyond payload", envelope(cookie, inflated, 1<<20), "compressed length"},
		{"bad zlib", base64.StdEncoding.EncodeToString(append(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, cookie), 6), "nozlib"...)), "zlib"},
		{"truncated zlib", func() string {
			raw, _ := base64.StdEncoding.DecodeString(good)
			raw = raw[:len(raw)-4]
			binary.BigEndian.PutUint32(raw[4:], uint32(len(raw)-8))
			return base64.StdEncoding.EncodeToString(raw)
		}(), "zlib"},
		{"short header", envelope(cookie, inflated[:20], trueLen), "header alone"},
		{"payload length lies", envelope(cookie, setHeader(4, 1<<30, 4), trueLen), "bytes of counts"},
		{"negative payload length", envelope(cookie, setHeader(4, 1<<31, 4), trueLen), "bytes of counts"},
		{"sigfig 9", envelope(cookie, setHeader(12, 9, 4), trueLen), "significant figures"},
		{"lowest 0", envelope(cookie, setHeader(16, 0, 8), trueLen), "range"},
		{"huge highest", envelope(cookie, setHeader(24, 1<<63-1, 8), trueLen), "range"},
		{"count index beyond range", envelope(cookie, withCounts(header, -(1<<40), 5), trueLen), "corrupt counts"},
		{"huge count", envelope(cookie, withCounts(header, 3, 1<<50), trueLen), "more than"},
		{"counts overflow", envelope(cookie, withCounts(header, 1<<47, 1<<47, 1<<47), trueLen), "more than"},
	} {
		for _, kind := range []string{"foreign", "conclab"} {
			log := "#[StartTime: 1764579600.000 (seconds since epoch)]\n" + hlogLegend + "\n"
			if kind == "conclab" {
				log = "#[StartTime: 1764579600.000 (seconds since epoch)]\n#[BaseTime: 1764579600.000 (seconds since epoch)]\n" +
					hlogIntervalTag + `{"t_ns":0,"len_ns":1000000000,"n":10}]` + "\n"
			}
			log += "Tag=latency,0.000,1.000,10.000," + tc.payload + "\n"
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s (%s log): panic %v", tc.name, kind, r)
					}
				}()
				_, err := Merge(strings.NewReader(log))
				line := 3
				if kind == "conclab" {
					line = 4
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), fmt.Sprintf("log 1 line %d", line)) {
					t.Errorf("%s (%s log): err %v; want %q at log 1 line %d", tc.name, kind, err, tc.want, line)
				}
			}()
		}
	}
	// The valid payload itself merges, in both kinds of log.
	if _, err := Merge(strings.NewReader("#[StartTime: 1764579600.000 (s)]\nTag=latency,1764579600.000,1.000,10.000," + good + "\n")); err != nil {
		t.Errorf("valid payload: %v", err)
	}

	for _, tc := range []struct{ name, log, want string }{
		{"negative conclab offset", "#[StartTime: 1000.000 (seconds since epoch)]\n" +
			hlogIntervalTag + `{"t_ns":-5000000000,"len_ns":1000000000,"n":1}]` + "\n" +
			"Tag=latency,0.000,1.000,10.000," + good + "\n", "log 1 line 2: conclab interval: t_ns -5000000000"},
		{"foreign stamp before StartTime", "#[StartTime: 1764579602.000 (seconds since epoch)]\n" + hlogLegend + "\n" +
			"1764579600.000,1.000,10.000," + good + "\n", "log 1 line 3: interval starts 2s before the log's StartTime"},
		{"negative count", "#[StartTime: 1000.000 (s)]\n" + hlogIntervalTag + `{"t_ns":0,"len_ns":1,"n":-3}]` + "\n", "line 2: conclab interval: count -3"},
		{"negative length", "#[StartTime: 1000.000 (s)]\n" + hlogIntervalTag + `{"t_ns":0,"len_ns":-1}]` + "\n", "line 2: conclab interval: t_ns 0, len_ns -1"},
		{"huge stamp", "#[StartTime: 1000.000 (s)]\nTag=latency,1e300,1.000,10.000," + good + "\n", "line 2: bad interval times"},
		{"NaN length", "#[StartTime: 1000.000 (s)]\nTag=latency,1000,NaN,10.000," + good + "\n", "line 2: bad interval times"},
		{"huge StartTime", "#[StartTime: 99999999999999999999 (s)]\n", "line 1: StartTime"},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", tc.name, r)
				}
			}()
			_, err := Merge(strings.NewReader(tc.log))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: err %v; want %q", tc.name, err, tc.want)
			}
		}()
	}
}

// The merged grid is the writers' tick, not the first interval's length:
// an agent whose first interval is short (it began between ticks) merges
// with another's full intervals row by row.
func TestHlogMergeShortFirstInterval(t *testing.T) {
	start := time.Unix(1764579600, 0)
	const tick = 100 * time.Millisecond
	agentLog := func(cuts []time.Duration, perInterval int, withTick bool) (*metrics.Result, string) {
		var buf bytes.Buffer
		h := HlogHeader{GaugeName: "vus"}
		if withTick {
			h.Tick = tick
		}
		hw := NewHlogWriter(&buf, h)
		rec, err := metrics.NewRecorder(start, metrics.Options{OnCut: hw.Interval})
		if err != nil {
			t.Fatal(err)
		}
		for k, c := range cuts {
			for i := 0; i < perInterval+k; i++ {
				rec.Record(i, &metrics.Sample{Outcome: metrics.OK, Latency: time.Millisecond})
			}
			if k < len(cuts)-1 {
				rec.Cut(start.Add(c), 1)
			}
		}
		res := rec.Finish(start.Add(cuts[len(cuts)-1]), 1, nil)
		if err := hw.End(res); err != nil {
			t.Fatal(err)
		}
		return res, buf.String()
	}
	for _, withTick := range []bool{true, false} {
		// A: a 30 ms first interval, then ticks at 130, 230, ... ms.
		a, logA := agentLog([]time.Duration{30 * time.Millisecond, 130 * time.Millisecond, 230 * time.Millisecond, 330 * time.Millisecond, 430 * time.Millisecond, 500 * time.Millisecond}, 10, withTick)
		// B: full ticks.
		b, logB := agentLog([]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 400 * time.Millisecond, 500 * time.Millisecond}, 20, withTick)
		got, err := Merge(strings.NewReader(logA), strings.NewReader(logB))
		if err != nil {
			t.Fatal(err)
		}
		if got.Count() != a.Count()+b.Count() {
			t.Errorf("tick %v: count %d; want %d", withTick, got.Count(), a.Count()+b.Count())
		}
		if len(got.Intervals) != 5 {
			t.Fatalf("tick %v: %d rows; want 5 rows of %v", withTick, len(got.Intervals), tick)
		}
		for k, iv := range got.Intervals {
			if iv.Start != time.Duration(k)*tick {
				t.Errorf("tick %v: row %d starts at %v", withTick, k, iv.Start)
			}
			if iv.Count() == 0 || iv.Gauge < 1 {
				t.Errorf("tick %v: row %d is empty (count %d, gauge %v): the grid does not follow the ticks", withTick, k, iv.Count(), iv.Gauge)
			}
		}
	}
}
