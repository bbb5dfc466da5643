package kernel

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-zeromq/zmq4"

	"github.com/conclab/conclab/kernel/comm"
	"github.com/conclab/conclab/kernel/wire"
)

// Comms (package kernel/comm) reach the front ends through the kernel:
// what cells open and send goes out on IOPub (commTransport), what front
// ends send arrives on shell and is handed to comm.Deliver.
//
// Comm traffic is served while cells run. A comm message with no
// subshell_id goes to the kernel's comm queue, served by a goroutine of its
// own in arrival order (so a widget's Stop button reaches its handler while
// the cell it stops is still running, with front ends that do not use
// subshells); one with a subshell_id goes to that subshell (subshell.go).
// Each comm message is bracketed by busy and idle statuses with it as
// parent, as for requests: ipywidgets' front end counts a widget's sync
// messages as pending until their idle status arrives, and holds further
// changes back while one is pending.

// commTransport publishes comm messages on IOPub.
type commTransport struct{ k *Kernel }

func (t commTransport) Publish(kind comm.Kind, content, metadata map[string]any, buffers [][]byte, parent any) error {
	p, _ := parent.(*wire.Msg)
	if p == nil {
		p = t.k.currentParent()
	}
	return t.k.publishFull(p, wire.MsgType(kind), content, metadata, buffers)
}

var _ comm.Transport = commTransport{}

// isComm reports whether t is comm traffic: served apart from the cells.
func isComm(t wire.MsgType) bool {
	switch t {
	case wire.CommOpen, wire.CommMsg, wire.CommClose, wire.CommInfoRequest:
		return true
	}
	return false
}

// serveComms serves the comm queue until the kernel stops.
func (k *Kernel) serveComms() {
	defer k.wg.Done()
	for {
		select {
		case m := <-k.commQ:
			k.dispatch(k.shell, "shell", m)
		case <-k.done:
			return
		}
	}
}

// dispatch handles a shell message off the main shell (the comm queue, a
// subshell): comm messages by handleComm, requests by handle.
func (k *Kernel) dispatch(s zmq4.Socket, channel string, m *wire.Msg) {
	switch m.Header.MsgType {
	case wire.CommOpen, wire.CommMsg, wire.CommClose:
		k.handleComm(m)
	default:
		k.handle(s, channel, m)
	}
}

// handleComm hands a comm message to its comm, between busy and idle. A
// message for a comm that is not open (forged, or for a comm closed
// meanwhile) and a comm_open for a target nobody serves are logged and
// dropped (the protocol has no reply for comm messages; comm.Deliver has
// already answered the unknown target with comm_close). Any other failure —
// content that is not a comm message, a widget state it refuses, a handler
// that panicked — is logged and published as an error with the message as
// parent.
func (k *Kernel) handleComm(m *wire.Msg) {
	k.beginStatus(m, false)
	defer k.endStatus(m)
	err := comm.Deliver(comm.Kind(m.Header.MsgType), m.Content, m.Metadata, m.Buffers, m)
	if err == nil {
		return
	}
	if errors.Is(err, comm.ErrUnknownComm) || errors.Is(err, comm.ErrUnknownTarget) {
		k.log.Printf("shell: ignored %v", err)
		return
	}
	k.log.Printf("shell: %v", err)
	k.publish(m, wire.ExecuteError, map[string]any{"ename": "CommError", "evalue": err.Error(),
		"traceback": []string{"CommError: " + err.Error()}})
}

// commInfo answers comm_info_request: the open comms, of one target when
// the request names one.
func (k *Kernel) commInfo(s zmq4.Socket, m *wire.Msg) {
	var c struct {
		TargetName string `json:"target_name"`
	}
	if err := m.Decode(&c); err != nil {
		k.replyError(s, m, "BadRequest", err)
		return
	}
	comm.NoteFrontEnd() // a front end that speaks comms (ipywidgets asks when it cannot use jupyter.widget.control)
	out := map[string]any{}
	for id, target := range comm.Info(c.TargetName) {
		out[id] = map[string]any{"target_name": target}
	}
	k.reply(s, m, map[string]any{"status": "ok", "comms": out})
}

// publishFull sends an IOPub message with metadata and binary buffers.
func (k *Kernel) publishFull(parent *wire.Msg, t wire.MsgType, content, metadata map[string]any, buffers [][]byte) error {
	m, err := wire.NewReply(parent, t, k.session, content)
	if err != nil {
		return fmt.Errorf("publish %s: %w", t, err)
	}
	if len(metadata) > 0 {
		if m.Metadata, err = json.Marshal(metadata); err != nil {
			return fmt.Errorf("publish %s metadata: %w", t, err)
		}
	}
	m.Buffers = buffers
	m.Identities = [][]byte{[]byte("kernel." + k.session + "." + string(t))}
	k.pubMu.Lock()
	defer k.pubMu.Unlock()
	k.send(k.iopub, m)
	return nil
}
