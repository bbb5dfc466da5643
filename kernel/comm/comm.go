// Package comm is Jupyter's comm messaging for code in the kernel: a comm is
// a channel between an object in the kernel and its counterpart in each
// front end (an ipywidgets model, an anywidget, any custom front-end
// extension), opened from either side under a target name, carrying JSON
// data and binary buffers both ways until either side closes it.
//
// Open opens a comm to the front ends; Register serves the comms front ends
// open for a target. A Comm sends with Send (and Reply, which names the
// message it answers, as ipywidgets' echo_update must) and receives through
// the handlers given to OnMsg and OnClose.
//
// The package holds no transport: the conclab kernel installs one
// (SetTransport) and hands it what front ends send (Deliver). Without one —
// `conclab run`, a test, a plain program — Open returns a comm whose sends
// go nowhere, so code that opens comms runs headless unchanged; Connected
// says which case it is.
//
// Handlers run one at a time, in the order messages arrive (Deliver holds a
// lock while a handler runs), on the kernel's goroutine for comm traffic,
// which runs while cells do: a handler should return quickly and leave long
// work to a goroutine of its own. Everything here is safe for concurrent
// use.
package comm

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

// Kind is a comm message's type, as on the wire.
type Kind string

// The three comm message types.
const (
	KindOpen  Kind = "comm_open"
	KindMsg   Kind = "comm_msg"
	KindClose Kind = "comm_close"
)

// Msg is a message received on a comm: its data (the content's "data"),
// metadata and binary buffers. Decode its data with Decode.
type Msg struct {
	Data     json.RawMessage
	Metadata json.RawMessage
	Buffers  [][]byte
	// parent is the transport's handle of the message (the kernel's
	// *wire.Msg), for Reply.
	parent any
}

// Decode unmarshals the message's data into v.
func (m Msg) Decode(v any) error {
	if len(m.Data) == 0 {
		return json.Unmarshal([]byte("{}"), v)
	}
	if err := json.Unmarshal(m.Data, v); err != nil {
		return fmt.Errorf("comm data: %w", err)
	}
	return nil
}

// Transport carries comm messages to the front ends: the kernel's IOPub.
// Publish sends one message of kind with the content (comm_id, data and,
// for comm_open, target_name) and buffers; parent is the handle of the
// message it answers (from Deliver) or nil for none.
type Transport interface {
	Publish(kind Kind, content map[string]any, metadata map[string]any, buffers [][]byte, parent any) error
}

// Comm is the kernel's end of one comm. Its methods are safe for
// concurrent use; a closed comm's sends return ErrClosed.
type Comm struct {
	id, target string

	mu      sync.Mutex
	closed  bool
	onMsg   func(Msg) error
	onClose func(Msg)
}

// ErrClosed is returned by sends on a closed comm.
var ErrClosed = errors.New("comm: closed")

// ID returns the comm's id (ipywidgets' model id).
func (c *Comm) ID() string { return c.id }

// Target returns the comm's target name.
func (c *Comm) Target() string { return c.target }

// OnMsg sets the handler of the messages front ends send on the comm. A
// non-nil error it returns is the transport's to report (the kernel
// publishes it as an error with the message as parent, and logs it).
func (c *Comm) OnMsg(h func(Msg) error) {
	c.mu.Lock()
	c.onMsg = h
	c.mu.Unlock()
}

// OnClose sets the function called when a front end closes the comm.
func (c *Comm) OnClose(h func(Msg)) {
	c.mu.Lock()
	c.onClose = h
	c.mu.Unlock()
}

// Send sends data (anything encoding/json marshals to an object) and
// buffers on the comm.
func (c *Comm) Send(data any, buffers ...[]byte) error {
	return c.send(KindMsg, data, nil, buffers, nil)
}

// Reply sends data and buffers on the comm as the answer to to: the
// message's parent is to's, so a front end can match them (ipywidgets'
// echo_update and request_state replies are matched so).
func (c *Comm) Reply(to Msg, data any, buffers ...[]byte) error {
	return c.send(KindMsg, data, nil, buffers, to.parent)
}

// Close closes the comm, telling the front ends with data. Safe to call
// twice; only the first call sends.
func (c *Comm) Close(data any) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	forget(c.id)
	return publish(KindClose, c, data, nil, nil, nil)
}

// Closed reports whether the comm was closed by either side.
func (c *Comm) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func (c *Comm) send(kind Kind, data any, metadata map[string]any, buffers [][]byte, parent any) error {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return publish(kind, c, data, metadata, buffers, parent)
}

var (
	mu        sync.RWMutex
	transport Transport
	comms     = map[string]*Comm{}
	targets   = map[string]func(*Comm, Msg) error{}

	deliverMu sync.Mutex // one handler at a time
)

// SetTransport installs t (the kernel does) and returns a function that
// restores the previous one. Comms opened before stay open.
func SetTransport(t Transport) (restore func()) {
	mu.Lock()
	prev := transport
	transport = t
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			transport = prev
			mu.Unlock()
		})
	}
}

// frontEnd is set once a front end has sent comm traffic (FrontEnd).
var frontEnd atomic.Bool

// FrontEnd reports whether a front end that speaks comms has shown itself
// since the process started: one has sent a comm message (Deliver) or asked
// which comms are open (NoteFrontEnd, the kernel's comm_info_request).
// JupyterLab, Notebook 7 and Voilà's page do as soon as they connect (their
// widget manager opens a comm to "jupyter.widget.control" and asks for
// every widget's state); a headless client — nbclient, papermill,
// nbconvert --execute — never does. It stays true once set.
func FrontEnd() bool { return frontEnd.Load() }

// NoteFrontEnd records that a front end speaking comms has shown itself
// (see FrontEnd). The kernel calls it for comm_info_request; Deliver does
// for every comm message.
func NoteFrontEnd() { frontEnd.Store(true) }

// Connected reports whether a transport is installed: whether comms reach
// front ends (a kernel) or go nowhere (a headless run).
func Connected() bool {
	mu.RLock()
	defer mu.RUnlock()
	return transport != nil
}

func publish(kind Kind, c *Comm, data any, metadata map[string]any, buffers [][]byte, parent any) error {
	mu.RLock()
	t := transport
	mu.RUnlock()
	if t == nil {
		return nil
	}
	content := map[string]any{"comm_id": c.id, "data": orObject(data)}
	if kind == KindOpen {
		content["target_name"] = c.target
	}
	if metadata == nil {
		metadata = map[string]any{}
	}
	if err := t.Publish(kind, content, metadata, buffers, parent); err != nil {
		return fmt.Errorf("comm %s: %s: %w", c.id, kind, err)
	}
	return nil
}

func orObject(data any) any {
	if data == nil {
		return map[string]any{}
	}
	return data
}

// NewID returns a fresh comm id (32 hex digits, as ipywidgets' model ids).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Open opens a comm with a new id to the front ends for target, sending
// data, metadata and buffers with the comm_open. Without a transport the
// comm is still returned, and its sends go nowhere.
func Open(target string, data any, metadata map[string]any, buffers ...[]byte) (*Comm, error) {
	return OpenID(NewID(), target, data, metadata, buffers...)
}

// OpenID is Open with the comm id chosen by the caller; an id already open
// is an error.
func OpenID(id, target string, data any, metadata map[string]any, buffers ...[]byte) (*Comm, error) {
	if id == "" || target == "" {
		return nil, errors.New("comm: Open needs an id and a target name")
	}
	c := &Comm{id: id, target: target}
	mu.Lock()
	if _, dup := comms[id]; dup {
		mu.Unlock()
		return nil, fmt.Errorf("comm: a comm with id %s is already open", id)
	}
	comms[id] = c
	mu.Unlock()
	if err := publish(KindOpen, c, data, metadata, buffers, nil); err != nil {
		forget(id)
		return nil, err
	}
	return c, nil
}

// Register serves the comms front ends open for target: open is called with
// the new comm and the comm_open message, and sets the comm's handlers. When
// it returns an error the comm is closed at once (the error is the
// transport's to report), as it is for a target nobody registered. It
// returns a function that unregisters the target; registering a target
// again replaces its function.
func Register(target string, open func(c *Comm, m Msg) error) (unregister func()) {
	mu.Lock()
	targets[target] = open
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			delete(targets, target)
			mu.Unlock()
		})
	}
}

func forget(id string) {
	mu.Lock()
	delete(comms, id)
	mu.Unlock()
}

// Lookup returns the open comm with id, or nil.
func Lookup(id string) *Comm {
	mu.RLock()
	defer mu.RUnlock()
	return comms[id]
}

// Info lists the open comms, by id, with their target names; with target
// not "", only that target's (comm_info_request).
func Info(target string) map[string]string {
	mu.RLock()
	defer mu.RUnlock()
	out := map[string]string{}
	for id, c := range comms {
		if target == "" || c.target == target {
			out[id] = c.target
		}
	}
	return out
}

// Errors of Deliver. A message for a comm that is not open is
// ErrUnknownComm (the kernel logs and ignores it: the protocol has no reply
// for comm messages); a target nobody serves is ErrUnknownTarget (the comm
// was closed at once).
var (
	ErrUnknownComm   = errors.New("comm: no open comm with that id")
	ErrUnknownTarget = errors.New("comm: no handler registered for that target")
)

// Content is a comm message's content as it arrives: comm_id, data,
// target_name (comm_open only).
type Content struct {
	CommID     string          `json:"comm_id"`
	TargetName string          `json:"target_name"`
	Data       json.RawMessage `json:"data"`
}

// Deliver hands a comm message that a front end sent to its comm (the
// transport calls it): comm_open creates a comm for a registered target,
// comm_msg calls the comm's OnMsg handler, comm_close its OnClose handler and
// forgets it. parent is the transport's handle of the message, used by
// Reply. Errors name what was wrong; a handler's error and panic come back
// as an error too, so nothing a front end sends panics the kernel.
func Deliver(kind Kind, content, metadata json.RawMessage, buffers [][]byte, parent any) (err error) {
	var c Content
	if err := json.Unmarshal(orEmpty(content), &c); err != nil {
		return fmt.Errorf("%s: content is not a comm message: %w", kind, err)
	}
	if c.CommID == "" {
		return fmt.Errorf("%s: no comm_id", kind)
	}
	if len(c.Data) > 0 && string(c.Data) != "null" {
		var probe map[string]json.RawMessage
		if json.Unmarshal(c.Data, &probe) != nil {
			return fmt.Errorf("%s for comm %s: data is not a JSON object", kind, c.CommID)
		}
	}
	m := Msg{Data: c.Data, Metadata: orEmpty(metadata), Buffers: buffers, parent: parent}
	NoteFrontEnd()
	deliverMu.Lock()
	defer deliverMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s for comm %s: handler panicked: %v", kind, c.CommID, r)
		}
	}()
	switch kind {
	case KindOpen:
		return deliverOpen(c, m)
	case KindMsg:
		cm := Lookup(c.CommID)
		if cm == nil {
			return fmt.Errorf("comm_msg for comm %s: %w", c.CommID, ErrUnknownComm)
		}
		cm.mu.Lock()
		h, closed := cm.onMsg, cm.closed
		cm.mu.Unlock()
		if h == nil || closed {
			return nil
		}
		if err := h(m); err != nil {
			return fmt.Errorf("comm_msg for comm %s (%s): %w", c.CommID, cm.target, err)
		}
		return nil
	case KindClose:
		cm := Lookup(c.CommID)
		if cm == nil {
			return fmt.Errorf("comm_close for comm %s: %w", c.CommID, ErrUnknownComm)
		}
		cm.mu.Lock()
		h := cm.onClose
		cm.closed = true
		cm.mu.Unlock()
		forget(c.CommID)
		if h != nil {
			h(m)
		}
		return nil
	}
	return fmt.Errorf("comm: unknown message kind %q", kind)
}

func deliverOpen(c Content, m Msg) error {
	if c.TargetName == "" {
		return fmt.Errorf("comm_open for comm %s: no target_name", c.CommID)
	}
	mu.Lock()
	open := targets[c.TargetName]
	_, dup := comms[c.CommID]
	cm := &Comm{id: c.CommID, target: c.TargetName}
	if open != nil && !dup {
		comms[c.CommID] = cm
	}
	mu.Unlock()
	if dup {
		return fmt.Errorf("comm_open for comm %s: a comm with that id is already open", c.CommID)
	}
	if open == nil {
		// The protocol: answer an unknown target with comm_close at once.
		_ = publish(KindClose, cm, nil, nil, nil, m.parent)
		return fmt.Errorf("comm_open for comm %s, target %q: %w", c.CommID, c.TargetName, ErrUnknownTarget)
	}
	if err := open(cm, m); err != nil {
		cm.mu.Lock()
		cm.closed = true
		cm.mu.Unlock()
		forget(cm.id)
		_ = publish(KindClose, cm, nil, nil, nil, m.parent)
		return fmt.Errorf("comm_open for comm %s, target %q: %w", c.CommID, c.TargetName, err)
	}
	return nil
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

// Targets returns the registered target names, sorted.
func Targets() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(targets))
	for t := range targets {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
