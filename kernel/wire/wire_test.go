package wire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/conclab/conclab/kernel/wire"
)

func TestMsgTypeStrings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t    wire.MsgType
		want string
	}{
		{wire.ExecuteRequest, "execute_request"}, {wire.ExecuteReply, "execute_reply"},
		{wire.ExecuteInput, "execute_input"}, {wire.ExecuteResult, "execute_result"},
		{wire.InspectRequest, "inspect_request"}, {wire.InspectReply, "inspect_reply"},
		{wire.CompleteRequest, "complete_request"}, {wire.CompleteReply, "complete_reply"},
		{wire.HistoryRequest, "history_request"}, {wire.HistoryReply, "history_reply"},
		{wire.IsCompleteRequest, "is_complete_request"}, {wire.IsCompleteReply, "is_complete_reply"},
		{wire.CommInfoRequest, "comm_info_request"}, {wire.CommInfoReply, "comm_info_reply"},
		{wire.CommOpen, "comm_open"}, {wire.CommMsg, "comm_msg"}, {wire.CommClose, "comm_close"},
		{wire.KernelInfoRequest, "kernel_info_request"}, {wire.KernelInfoReply, "kernel_info_reply"},
		{wire.ShutdownRequest, "shutdown_request"}, {wire.ShutdownReply, "shutdown_reply"},
		{wire.InterruptRequest, "interrupt_request"}, {wire.InterruptReply, "interrupt_reply"},
		{wire.DebugRequest, "debug_request"}, {wire.DebugReply, "debug_reply"},
		{wire.Stream, "stream"}, {wire.DisplayData, "display_data"},
		{wire.UpdateDisplayData, "update_display_data"}, {wire.ExecuteError, "error"},
		{wire.Status, "status"}, {wire.ClearOutput, "clear_output"},
		{wire.InputRequest, "input_request"}, {wire.InputReply, "input_reply"},
		{wire.DebugEvent, "debug_event"}, {wire.IOPubWelcome, "iopub_welcome"},
		{wire.CreateSubshellRequest, "create_subshell_request"}, {wire.CreateSubshellReply, "create_subshell_reply"},
		{wire.DeleteSubshellRequest, "delete_subshell_request"}, {wire.DeleteSubshellReply, "delete_subshell_reply"},
		{wire.ListSubshellRequest, "list_subshell_request"}, {wire.ListSubshellReply, "list_subshell_reply"},
	}
	for _, tt := range tests {
		if string(tt.t) != tt.want {
			t.Errorf("MsgType %q; want %q", tt.t, tt.want)
		}
		if tt.t.IsRequest() {
			if r := tt.t.Reply(); r == "" || !bytes.HasSuffix([]byte(r), []byte("_reply")) {
				t.Errorf("%s.Reply() = %q", tt.t, r)
			}
		}
	}
	if got := wire.ExecuteRequest.Reply(); got != wire.ExecuteReply {
		t.Errorf("ExecuteRequest.Reply() = %q; want %q", got, wire.ExecuteReply)
	}
	if got := wire.Stream.Reply(); got != "" {
		t.Errorf("Stream.Reply() = %q; want empty", got)
	}
}

func sample(t testing.TB, s *wire.Signer) [][]byte {
	t.Helper()
	m, err := wire.NewReply(nil, wire.ExecuteRequest, "sess", map[string]any{"code": "1+1", "silent": false})
	if err != nil {
		t.Fatal(err)
	}
	m.Identities = [][]byte{[]byte("client-id")}
	m.Buffers = [][]byte{[]byte("buf")}
	f, err := wire.Encode(m, s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	s, _ := wire.NewSigner("hmac-sha256", "secret")
	frames := sample(t, s)
	m, err := wire.Decode(frames, s)
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Code string }
	if err := m.Decode(&c); err != nil || c.Code != "1+1" {
		t.Errorf("content = %+v, %v", c, err)
	}
	if string(m.Identities[0]) != "client-id" || m.Header.MsgType != wire.ExecuteRequest || string(m.Buffers[0]) != "buf" {
		t.Errorf("decoded %+v", m)
	}
	if m.Header.Version != wire.ProtocolVersion || m.Header.Session != "sess" {
		t.Errorf("header %+v", m.Header)
	}
	// Replies carry the parent header and identities.
	r, _ := wire.NewReply(m, wire.ExecuteReply, "k", map[string]any{"status": "ok"})
	rf, _ := wire.Encode(r, s)
	back, err := wire.Decode(rf, s)
	if err != nil || back.ParentHeader.MsgID != m.Header.MsgID || string(back.Identities[0]) != "client-id" {
		t.Errorf("reply round trip: %+v %v", back, err)
	}
}

func TestDecodeRejects(t *testing.T) {
	t.Parallel()
	s, _ := wire.NewSigner("hmac-sha256", "secret")
	other, _ := wire.NewSigner("hmac-sha256", "other")
	good := sample(t, s)
	clone := func() [][]byte {
		c := make([][]byte, len(good))
		for i := range good {
			c[i] = append([]byte(nil), good[i]...)
		}
		return c
	}
	tampered := clone()
	tampered[5] = []byte(`{"code":"os.Remove(\"x\")","silent":false}`) // content changed after signing
	badSig := clone()
	badSig[2] = bytes.Repeat([]byte("0"), 64)
	notJSON := clone()
	notJSON[3] = []byte("{not json")
	unsigned, _ := wire.Encode(&wire.Msg{Header: wire.NewHeader(wire.ExecuteRequest, "x")}, &wire.Signer{})
	tests := []struct {
		name   string
		frames [][]byte
		signer *wire.Signer
		want   error
	}{
		{"empty", nil, s, wire.ErrNoDelimiter},
		{"no delimiter", [][]byte{[]byte("a"), []byte("b")}, s, wire.ErrNoDelimiter},
		{"short", [][]byte{[]byte(wire.Delimiter), []byte("sig")}, s, wire.ErrShort},
		{"tampered content", tampered, s, wire.ErrBadSignature},
		{"bad signature", badSig, s, wire.ErrBadSignature},
		{"wrong key", good, other, wire.ErrBadSignature},
		{"unsigned to keyed kernel", unsigned, s, wire.ErrBadSignature},
		{"bad header json", notJSON, &wire.Signer{}, wire.ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := wire.Decode(tt.frames, tt.signer); !errors.Is(err, tt.want) {
				t.Errorf("Decode = %v; want %v", err, tt.want)
			}
		})
	}
	// With a matching (empty) key, malformed JSON is an error, not a panic.
	nk := &wire.Signer{}
	m := [][]byte{[]byte(wire.Delimiter), nil, []byte("{bad"), []byte("{}"), []byte("{}"), []byte("{}")}
	if _, err := wire.Decode(m, nk); err == nil {
		t.Error("Decode of bad header JSON: want error")
	}
}

func TestNewSigner(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scheme, key string
		ok          bool
	}{
		{"hmac-sha256", "k", true},
		{"", "", true},
		{"", "k", false},
		{"hmac-md5", "k", false},
		{"hmac-sha512", "k", false},
	}
	for _, tt := range tests {
		_, err := wire.NewSigner(tt.scheme, tt.key)
		if (err == nil) != tt.ok {
			t.Errorf("NewSigner(%q, %q) err = %v; want ok=%v", tt.scheme, tt.key, err, tt.ok)
		}
	}
}

func TestSignatureKnownAnswer(t *testing.T) {
	t.Parallel()
	// HMAC-SHA256 with key "key" over "abcd", from `printf abcd | openssl dgst -sha256 -hmac key`.
	const want = "2a31ec0ee8d878c9eece9fb0df79b3b90b2256240163aa5ee50d176d3d1121f8"
	s, _ := wire.NewSigner("hmac-sha256", "key")
	if got := string(s.Sign([]byte("a"), []byte("b"), []byte("c"), []byte("d"))); got != want {
		t.Errorf("Sign = %s; want %s", got, want)
	}
	if !s.Verify([]byte(want), []byte("ab"), []byte("cd")) {
		t.Error("Verify of the known answer failed")
	}
	if s.Verify([]byte(want[:63]+"0"), []byte("abcd")) {
		t.Error("Verify accepted a wrong signature")
	}
}

func ExampleEncode() {
	s, _ := wire.NewSigner("hmac-sha256", "secret")
	m := &wire.Msg{Header: wire.Header{MsgID: "1", MsgType: wire.Status, Version: wire.ProtocolVersion}}
	m.Content, _ = json.Marshal(map[string]string{"execution_state": "idle"})
	frames, _ := wire.Encode(m, s)
	back, err := wire.Decode(frames, s)
	fmt.Println(len(frames), back.Header.MsgType, string(back.Content), err)
	// Output: 6 status {"execution_state":"idle"} <nil>
}
