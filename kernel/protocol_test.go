package kernel_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/conclab/conclab/kernel"
	"github.com/conclab/conclab/kernel/wire"
)

// Protocol 5.5: kernel_info_request is answered on control while a cell
// runs (shell is busy with the cell), so a page reconnecting to a busy
// kernel is not stuck behind it.
func TestKernelInfoOnControlWhileCellRuns(t *testing.T) {
	_, _, c := startKernel(t)
	exec := c.send(c.shell, wire.ExecuteRequest, map[string]any{"code": "import \"time\"\ntime.Sleep(time.Minute)",
		"silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false,
		"stop_on_error": true}, c.signer)
	// The cell has started once its execute_input is out.
	c.wait(c.iopubCh, exec, wire.ExecuteInput, 10*time.Second)
	shellInfo := c.send(c.shell, wire.KernelInfoRequest, map[string]any{}, c.signer)
	ctlInfo := c.send(c.control, wire.KernelInfoRequest, map[string]any{}, c.signer)
	rep := c.wait(c.controlCh, ctlInfo, wire.KernelInfoReply, 10*time.Second)
	var info struct {
		Status          string `json:"status"`
		ProtocolVersion string `json:"protocol_version"`
	}
	if err := json.Unmarshal(rep.Content, &info); err != nil {
		t.Fatal(err)
	}
	if info.Status != "ok" || info.ProtocolVersion != "5.5" {
		t.Errorf("control kernel_info_reply = %s; want status ok, protocol 5.5", rep.Content)
	}
	// The shell's kernel_info is queued behind the running cell: neither its
	// reply nor the cell's has come.
	select {
	case m := <-c.shellCh:
		t.Fatalf("shell answered %s (parent %s) while the cell runs; want nothing until it ends",
			m.Header.MsgType, m.ParentHeader.MsgType)
	default:
	}
	iid := c.send(c.control, wire.InterruptRequest, map[string]any{}, c.signer)
	c.wait(c.controlCh, iid, wire.InterruptReply, 5*time.Second)
	// Replies on shell come in request order: the cell's, then kernel_info's.
	first := c.wait(c.shellCh, exec, wire.ExecuteReply, 10*time.Second)
	if first == nil {
		return
	}
	c.wait(c.shellCh, shellInfo, wire.KernelInfoReply, 10*time.Second)
}

// Protocol 5.5: IOPub is an XPUB socket that greets a subscription with
// iopub_welcome (no parent, content {"subscription": ""}) before anything
// else, and greets again a client connecting after all had left.
func TestIOPubWelcome(t *testing.T) {
	ci := testConn(t)
	ctx, cancel := context.WithCancel(context.Background())
	k, err := kernel.Start(ctx, ci, kernel.Options{Dir: t.TempDir(), Symbols: labSymbols})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { k.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	for round := 1; round <= 2; round++ {
		c := dial(t, ci)
		select {
		case m := <-c.iopubCh:
			var content struct {
				Subscription *string `json:"subscription"`
			}
			_ = json.Unmarshal(m.Content, &content)
			if m.Header.MsgType != wire.IOPubWelcome || content.Subscription == nil || *content.Subscription != "" ||
				m.ParentHeader.MsgID != "" || m.Header.Version != "5.5" {
				t.Errorf("round %d: first IOPub message %s %s (parent %q); want iopub_welcome {\"subscription\": \"\"} with no parent",
					round, m.Header.MsgType, m.Content, m.ParentHeader.MsgID)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: no IOPub message within 10 s of subscribing", round)
		}
		c.close()
		// The kernel sees the subscription go when zmq4 has dropped the
		// closed connection; the next client connects after that.
		deadline := time.Now().Add(10 * time.Second)
		for k.SubscribedTopics() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the kernel still sees %d subscribed topics 10 s after the client closed", round, k.SubscribedTopics())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
