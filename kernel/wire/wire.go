// Package wire is the Jupyter messaging protocol's wire codec: ZeroMQ
// multipart frames <-> Msg, HMAC signing and constant-time verification, and
// the typed message-type constants. It does no I/O.
//
// A message on the wire is
//
//	identities..., "<IDS|MSG>", signature, header, parent_header, metadata, content, buffers...
//
// where signature is the hex HMAC of the four JSON parts under the
// connection key (empty when the key is empty).
package wire

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"time"
)

// ProtocolVersion is the messaging protocol version the kernel speaks.
const ProtocolVersion = "5.5"

// Delimiter separates routing identities from the signed message.
const Delimiter = "<IDS|MSG>"

// MsgType is a message's header.msg_type.
type MsgType string

// Message types of the Jupyter messaging protocol.
const (
	ExecuteRequest    MsgType = "execute_request"
	ExecuteReply      MsgType = "execute_reply"
	ExecuteInput      MsgType = "execute_input"
	ExecuteResult     MsgType = "execute_result"
	InspectRequest    MsgType = "inspect_request"
	InspectReply      MsgType = "inspect_reply"
	CompleteRequest   MsgType = "complete_request"
	CompleteReply     MsgType = "complete_reply"
	HistoryRequest    MsgType = "history_request"
	HistoryReply      MsgType = "history_reply"
	IsCompleteRequest MsgType = "is_complete_request"
	IsCompleteReply   MsgType = "is_complete_reply"
	CommInfoRequest   MsgType = "comm_info_request"
	CommInfoReply     MsgType = "comm_info_reply"
	CommOpen          MsgType = "comm_open"
	CommMsg           MsgType = "comm_msg"
	CommClose         MsgType = "comm_close"
	KernelInfoRequest MsgType = "kernel_info_request"
	KernelInfoReply   MsgType = "kernel_info_reply"
	ShutdownRequest   MsgType = "shutdown_request"
	ShutdownReply     MsgType = "shutdown_reply"
	InterruptRequest  MsgType = "interrupt_request"
	InterruptReply    MsgType = "interrupt_reply"
	DebugRequest      MsgType = "debug_request"
	DebugReply        MsgType = "debug_reply"
	Stream            MsgType = "stream"
	DisplayData       MsgType = "display_data"
	UpdateDisplayData MsgType = "update_display_data"
	ExecuteError      MsgType = "error"
	Status            MsgType = "status"
	ClearOutput       MsgType = "clear_output"
	InputRequest      MsgType = "input_request"
	InputReply        MsgType = "input_reply"
	DebugEvent        MsgType = "debug_event"
	IOPubWelcome      MsgType = "iopub_welcome"
	// Kernel subshells (JEP 91, protocol 5.5), on the control channel.
	CreateSubshellRequest MsgType = "create_subshell_request"
	CreateSubshellReply   MsgType = "create_subshell_reply"
	DeleteSubshellRequest MsgType = "delete_subshell_request"
	DeleteSubshellReply   MsgType = "delete_subshell_reply"
	ListSubshellRequest   MsgType = "list_subshell_request"
	ListSubshellReply     MsgType = "list_subshell_reply"
	requestSuffix                 = "_request"
)

// IsRequest reports whether t names a request (…_request).
func (t MsgType) IsRequest() bool {
	return len(t) > len(requestSuffix) && string(t[len(t)-len(requestSuffix):]) == requestSuffix
}

// Reply returns the reply type of a request type (x_request -> x_reply), or
// "" when t is not a request.
func (t MsgType) Reply() MsgType {
	if !t.IsRequest() {
		return ""
	}
	return t[:len(t)-len(requestSuffix)] + "_reply"
}

// Header is a message header (also the parent_header of a reply).
type Header struct {
	MsgID    string  `json:"msg_id"`
	Session  string  `json:"session"`
	Username string  `json:"username"`
	Date     string  `json:"date"`
	MsgType  MsgType `json:"msg_type"`
	Version  string  `json:"version"`
	// SubshellID is the optional subshell_id of JEP 91.
	SubshellID *string `json:"subshell_id,omitempty"`
}

// Msg is a decoded message. Content and Metadata stay raw JSON; decode
// Content with Msg.Decode.
type Msg struct {
	Identities   [][]byte
	Header       Header
	ParentHeader Header
	Metadata     json.RawMessage
	Content      json.RawMessage
	Buffers      [][]byte
}

// Decode unmarshals the content into v.
func (m *Msg) Decode(v any) error {
	if len(m.Content) == 0 {
		return nil
	}
	if err := json.Unmarshal(m.Content, v); err != nil {
		return fmt.Errorf("wire: %s content: %w", m.Header.MsgType, err)
	}
	return nil
}

// Signer signs and verifies messages with HMAC under a key. The zero value
// (empty key) signs with empty signatures and accepts only those, as the
// protocol specifies for an empty key. Safe for concurrent use.
type Signer struct {
	key []byte
	h   func() hash.Hash
}

// NewSigner returns a signer for a connection file's signature_scheme and
// key. Only "hmac-sha256" is supported (and "" with an empty key).
func NewSigner(scheme, key string) (*Signer, error) {
	switch scheme {
	case "hmac-sha256":
		return &Signer{key: []byte(key), h: sha256.New}, nil
	case "":
		if key == "" {
			return &Signer{}, nil
		}
	}
	return nil, fmt.Errorf("unsupported signature_scheme %q (want hmac-sha256)", scheme)
}

// Sign returns the hex signature of the four JSON parts.
func (s *Signer) Sign(parts ...[]byte) []byte {
	if s == nil || len(s.key) == 0 {
		return nil
	}
	mac := hmac.New(s.h, s.key)
	for _, p := range parts {
		mac.Write(p)
	}
	sum := mac.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// Verify reports whether sig is the signature of parts, in constant time.
func (s *Signer) Verify(sig []byte, parts ...[]byte) bool {
	want := s.Sign(parts...)
	if want == nil {
		return len(sig) == 0
	}
	return hmac.Equal(want, bytes.ToLower(sig))
}

// Errors returned by Decode.
var (
	ErrNoDelimiter  = errors.New("wire: no <IDS|MSG> delimiter")
	ErrShort        = errors.New("wire: fewer than 5 frames after the delimiter")
	ErrBadSignature = errors.New("wire: signature mismatch")
)

// Decode parses the frames of one message and verifies its signature. A
// message whose signature does not verify is never returned.
func Decode(frames [][]byte, s *Signer) (*Msg, error) {
	i := 0
	for ; i < len(frames); i++ {
		if string(frames[i]) == Delimiter {
			break
		}
	}
	if i == len(frames) {
		return nil, ErrNoDelimiter
	}
	rest := frames[i+1:]
	if len(rest) < 5 {
		return nil, ErrShort
	}
	if !s.Verify(rest[0], rest[1], rest[2], rest[3], rest[4]) {
		return nil, ErrBadSignature
	}
	m := &Msg{Identities: frames[:i]}
	if err := json.Unmarshal(rest[1], &m.Header); err != nil {
		return nil, fmt.Errorf("wire: header: %w", err)
	}
	if err := json.Unmarshal(rest[2], &m.ParentHeader); err != nil {
		return nil, fmt.Errorf("wire: parent_header: %w", err)
	}
	if !json.Valid(rest[3]) {
		return nil, errors.New("wire: metadata is not JSON")
	}
	if !json.Valid(rest[4]) {
		return nil, errors.New("wire: content is not JSON")
	}
	if m.Header.MsgType == "" {
		return nil, errors.New("wire: header has no msg_type")
	}
	m.Metadata = json.RawMessage(rest[3])
	m.Content = json.RawMessage(rest[4])
	m.Buffers = rest[5:]
	return m, nil
}

// Encode returns the frames of m, signed by s.
func Encode(m *Msg, s *Signer) ([][]byte, error) {
	header, err := json.Marshal(m.Header)
	if err != nil {
		return nil, fmt.Errorf("wire: header: %w", err)
	}
	parent := []byte("{}")
	if m.ParentHeader.MsgID != "" || m.ParentHeader.MsgType != "" {
		if parent, err = json.Marshal(m.ParentHeader); err != nil {
			return nil, fmt.Errorf("wire: parent_header: %w", err)
		}
	}
	meta := []byte(m.Metadata)
	if len(meta) == 0 {
		meta = []byte("{}")
	}
	content := []byte(m.Content)
	if len(content) == 0 {
		content = []byte("{}")
	}
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, []byte(Delimiter), s.Sign(header, parent, meta, content), header, parent, meta, content)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

// NewHeader returns a header for a new message of type t in session.
func NewHeader(t MsgType, session string) Header {
	return Header{
		MsgID:    NewID(),
		Session:  session,
		Username: "kernel",
		Date:     time.Now().UTC().Format("2006-01-02T15:04:05.000000Z"),
		MsgType:  t,
		Version:  ProtocolVersion,
	}
}

// NewReply returns a message of type t replying to (or caused by) parent,
// with content marshalled from content, addressed to parent's identities.
func NewReply(parent *Msg, t MsgType, session string, content any) (*Msg, error) {
	b, err := json.Marshal(content)
	if err != nil {
		return nil, fmt.Errorf("wire: %s content: %w", t, err)
	}
	m := &Msg{Header: NewHeader(t, session), Content: b}
	if parent != nil {
		m.ParentHeader = parent.Header
		m.Identities = parent.Identities
	}
	return m, nil
}

// NewID returns a random UUID-4 string.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
