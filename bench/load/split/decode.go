package split

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// maxHistInflated bounds a histogram's inflated size (a V2 histogram of
// the widest range at 5 significant figures is a few MB at most), so a
// compressed bomb is an error, not an allocation.
const maxHistInflated = 64 << 20

// maxHistHighest bounds a decoded histogram's highest trackable value
// (2⁶² ns is 146 years), so that a corrupt header cannot ask for a huge
// counts array.
const maxHistHighest = 1 << 62

// maxHistCount bounds the values one interval histogram holds (2⁴⁸, far
// above any real interval), so that sums over many intervals and logs
// stay exact.
const maxHistCount = 1 << 48

// decodeHist decodes one interval histogram (HdrHistogram's V2 compressed
// encoding, base64) from a log. Bad input — truncated base64, a bad
// length, bad zlib data, a bad header, counts beyond the histogram's
// range or a total count that overflows — is an error, never a panic:
// the envelope and header are checked before hdrhistogram.Decode sees the
// bytes, and a panic inside it is turned into an error as a last resort.
func decodeHist(payload string) (h *hdrhistogram.Histogram, err error) {
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil, fmt.Errorf("base64: %w", err)
	}
	if len(raw) < 8 {
		return nil, fmt.Errorf("%d bytes; a compressed histogram has at least 8", len(raw))
	}
	if cookie := int32(binary.BigEndian.Uint32(raw)) &^ 0xf0; cookie != hdrhistogram.V2CompressedEncodingCookieBase {
		return nil, fmt.Errorf("not a V2 compressed histogram (cookie %#x)", uint32(cookie))
	}
	n := int32(binary.BigEndian.Uint32(raw[4:]))
	if n < 0 || int(n) > len(raw)-8 {
		return nil, fmt.Errorf("compressed length %d; the payload holds %d bytes", n, len(raw)-8)
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8 : 8+n]))
	if err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	inflated, err := io.ReadAll(io.LimitReader(z, maxHistInflated+1))
	if err != nil {
		return nil, fmt.Errorf("zlib: %w", err)
	}
	if len(inflated) > maxHistInflated {
		return nil, fmt.Errorf("inflates to more than %d bytes", maxHistInflated)
	}
	const headerSize = 40
	if len(inflated) < headerSize {
		return nil, fmt.Errorf("inflated histogram is %d bytes; its header alone is %d", len(inflated), headerSize)
	}
	payloadLen := int32(binary.BigEndian.Uint32(inflated[4:]))
	sigfig := int32(binary.BigEndian.Uint32(inflated[12:]))
	lowest := int64(binary.BigEndian.Uint64(inflated[16:]))
	highest := int64(binary.BigEndian.Uint64(inflated[24:]))
	switch {
	case int(payloadLen) != len(inflated)-headerSize:
		return nil, fmt.Errorf("header says %d bytes of counts, %d follow", payloadLen, len(inflated)-headerSize)
	case sigfig < 1 || sigfig > 5:
		return nil, fmt.Errorf("%d significant figures; want 1–5", sigfig)
	case lowest < 1 || highest < 2*lowest || highest > maxHistHighest:
		return nil, fmt.Errorf("range %d..%d; want 1 ≤ lowest, 2·lowest ≤ highest ≤ %d", lowest, highest, int64(maxHistHighest))
	}
	defer func() {
		if r := recover(); r != nil {
			h, err = nil, fmt.Errorf("corrupt counts: %v", r)
		}
	}()
	h, err = hdrhistogram.Decode([]byte(payload))
	if err != nil {
		return nil, err
	}
	var total int64
	for _, c := range h.Export().Counts {
		if c < 0 || c > maxHistCount-total {
			return nil, fmt.Errorf("counts add up to more than %d values", int64(maxHistCount))
		}
		total += c
	}
	return h, nil
}
