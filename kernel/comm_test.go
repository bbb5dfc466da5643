package kernel_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/conclab/conclab/kernel/wire"
)

type status struct {
	parent wire.MsgType
	id     string
	state  string
}

// statuses reads IOPub status messages until stop says so or 10 s pass.
func (c *client) statuses(stop func([]status) bool) []status {
	c.t.Helper()
	var out []status
	deadline := time.After(10 * time.Second)
	for !stop(out) {
		select {
		case m := <-c.iopubCh:
			if m.Header.MsgType != wire.Status {
				continue
			}
			var s struct {
				ExecutionState string `json:"execution_state"`
			}
			_ = json.Unmarshal(m.Content, &s)
			out = append(out, status{m.ParentHeader.MsgType, m.ParentHeader.MsgID, s.ExecutionState})
		case <-deadline:
			c.t.Fatalf("statuses so far: %v", out)
		}
	}
	return out
}

// Requests served beside a running cell (comm traffic here) are bracketed
// by their own busy and idle, and then the cell's busy is published again,
// so front ends that take the last status as the kernel's keep showing it
// busy; after the cell's own idle nothing says busy.
func TestStatusBesideRunningCell(t *testing.T) {
	_, _, c := startKernel(t)
	exec := c.send(c.shell, wire.ExecuteRequest, map[string]any{"code": "import \"time\"\ntime.Sleep(time.Minute)",
		"silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false,
		"stop_on_error": true}, c.signer)
	c.wait(c.iopubCh, exec, wire.ExecuteInput, 10*time.Second)
	info := c.send(c.shell, wire.CommInfoRequest, map[string]any{}, c.signer)
	rep := c.wait(c.shellCh, info, wire.CommInfoReply, 10*time.Second)
	if !strings.Contains(string(rep.Content), `"comms":{}`) {
		t.Errorf("comm_info_reply %s; want no comms", rep.Content)
	}
	all := c.statuses(func(s []status) bool {
		return len(s) > 0 && s[len(s)-1].id == exec && s[len(s)-1].state == "busy" && len(s) >= 3
	})
	// A status with no parent (the kernel's own, published when the IOPub
	// subscription comes up, whenever that lands) belongs to no request.
	var got []status
	for _, s := range all {
		if s.id != "" {
			got = append(got, s)
		}
	}
	n := len(got)
	if n < 3 {
		t.Fatalf("statuses %v; want at least the comm request's busy and idle and the cell's busy", all)
	}
	want := []status{{wire.CommInfoRequest, info, "busy"}, {wire.CommInfoRequest, info, "idle"}, {wire.ExecuteRequest, exec, "busy"}}
	for i, w := range want {
		if got[n-3+i] != w {
			t.Fatalf("statuses %v; want them to end %v", got, want)
		}
	}
	iid := c.send(c.control, wire.InterruptRequest, map[string]any{}, c.signer)
	c.wait(c.controlCh, iid, wire.InterruptReply, 5*time.Second)
	c.wait(c.shellCh, exec, wire.ExecuteReply, 10*time.Second)
	c.statuses(func(s []status) bool {
		return len(s) > 0 && s[len(s)-1].id == exec && s[len(s)-1].state == "idle"
	})
	// Nothing says busy after the cell's idle.
	select {
	case m := <-c.iopubCh:
		if m.Header.MsgType == wire.Status {
			t.Errorf("a status after the cell's idle: %s (parent %s)", m.Content, m.ParentHeader.MsgType)
		}
	case <-time.After(300 * time.Millisecond):
	}
}

func TestSubshellRequests(t *testing.T) {
	_, _, c := startKernel(t)
	ask := func(typ wire.MsgType, content map[string]any) map[string]any {
		id := c.send(c.control, typ, content, c.signer)
		rep := c.wait(c.controlCh, id, typ.Reply(), 5*time.Second)
		var out map[string]any
		if err := json.Unmarshal(rep.Content, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a := ask(wire.CreateSubshellRequest, map[string]any{})
	id, _ := a["subshell_id"].(string)
	if a["status"] != "ok" || id == "" {
		t.Fatalf("create_subshell_reply %v", a)
	}
	if l := ask(wire.ListSubshellRequest, map[string]any{}); len(l["subshell_id"].([]any)) != 1 || l["subshell_id"].([]any)[0] != id {
		t.Errorf("list_subshell_reply %v; want [%s]", l, id)
	}
	// A request on the subshell is answered there.
	m, err := wire.NewReply(nil, wire.KernelInfoRequest, c.session, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	m.Header.SubshellID = &id
	c.sendMsg(c.shell, m)
	c.wait(c.shellCh, m.Header.MsgID, wire.KernelInfoReply, 5*time.Second)
	if d := ask(wire.DeleteSubshellRequest, map[string]any{"subshell_id": id}); d["status"] != "ok" {
		t.Errorf("delete_subshell_reply %v", d)
	}
	if d := ask(wire.DeleteSubshellRequest, map[string]any{"subshell_id": id}); d["status"] != "error" || d["ename"] != "SubshellNotFound" {
		t.Errorf("deleting it again: %v; want SubshellNotFound", d)
	}
	m2, _ := wire.NewReply(nil, wire.KernelInfoRequest, c.session, map[string]any{})
	m2.Header.SubshellID = &id
	c.sendMsg(c.shell, m2)
	rep := c.wait(c.shellCh, m2.Header.MsgID, wire.KernelInfoReply, 5*time.Second)
	if !strings.Contains(string(rep.Content), `"ename":"SubshellNotFound"`) {
		t.Errorf("a request for a deleted subshell: %s", rep.Content)
	}
	// Subshell requests are served on control only.
	sid := c.send(c.shell, wire.ListSubshellRequest, map[string]any{}, c.signer)
	if rep := c.wait(c.shellCh, sid, wire.ListSubshellReply, 5*time.Second); !strings.Contains(string(rep.Content), "control channel") {
		t.Errorf("list_subshell_request on shell: %s", rep.Content)
	}
}

// sendMsg sends a message built by the test (a header of its own).
func (c *client) sendMsg(s zmq4.Socket, m *wire.Msg) {
	c.t.Helper()
	frames, err := wire.Encode(m, c.signer)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := s.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatal(err)
	}
}
