package wire_test

import (
	"bytes"
	"testing"

	"github.com/conclab/conclab/kernel/wire"
)

// FuzzDecode feeds arbitrary frames (split on a separator byte) to Decode:
// it must never panic, and whatever it accepts must re-encode and decode to
// the same header and content.
func FuzzDecode(f *testing.F) {
	s, _ := wire.NewSigner("hmac-sha256", "fuzz-key")
	good := sample(f, s)
	f.Add(bytes.Join(good, []byte{0}))
	f.Add([]byte("<IDS|MSG>\x00sig\x00{}\x00{}\x00{}\x00{}"))
	f.Add([]byte("<IDS|MSG>"))
	f.Add([]byte{})
	f.Add([]byte("id\x00<IDS|MSG>\x00\x00{\"msg_type\":1}\x00{}\x00{}\x00{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		frames := bytes.Split(data, []byte{0})
		for _, signer := range []*wire.Signer{s, {}} {
			m, err := wire.Decode(frames, signer)
			if err != nil {
				continue
			}
			out, err := wire.Encode(m, signer)
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			back, err := wire.Decode(out, signer)
			if err != nil {
				t.Fatalf("decode of re-encoded: %v", err)
			}
			if back.Header.MsgID != m.Header.MsgID || back.Header.MsgType != m.Header.MsgType {
				t.Fatalf("header changed: %+v vs %+v", back.Header, m.Header)
			}
		}
	})
}
