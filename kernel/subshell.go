package kernel

import (
	"fmt"
	"sort"

	"github.com/go-zeromq/zmq4"

	"github.com/conclab/conclab/kernel/wire"
)

// Kernel subshells (JEP 91, messaging protocol 5.5). A front end creates a
// subshell on control (create_subshell_request) and sends shell messages
// with its id in the header's subshell_id; each subshell serves its
// messages in order on a goroutine of its own, apart from the main shell,
// so they are answered while a cell runs there. JupyterLab 4.4+ and
// Notebook 7.4+ send widget comm messages over subshells (their "comms over
// subshells" setting, one subshell per comm target by default) when the
// kernel lists "kernel subshells" in supported_features.
//
// What runs concurrently is everything but code: cells share one
// interpreter session, so an execute_request on a subshell waits until the
// cell running elsewhere has finished, then runs (its failure does not
// abort requests queued on the main shell). Interrupt stops whichever cell
// runs.

// subshellQueue is how many messages a subshell holds before the shell
// reader waits for it.
const subshellQueue = 1024

type subshell struct {
	id string
	q  chan *wire.Msg
}

// createSubshell starts a subshell and returns its id.
func (k *Kernel) createSubshell() string {
	sh := &subshell{id: wire.NewID(), q: make(chan *wire.Msg, subshellQueue)}
	k.subMu.Lock()
	if k.subshells == nil {
		k.subshells = map[string]*subshell{}
	}
	k.subshells[sh.id] = sh
	k.subMu.Unlock()
	k.wg.Add(1)
	go k.serveSubshell(sh)
	return sh.id
}

func (k *Kernel) serveSubshell(sh *subshell) {
	defer k.wg.Done()
	for {
		select {
		case m, ok := <-sh.q:
			if !ok {
				return
			}
			k.dispatch(k.shell, "shell", m)
		case <-k.done:
			return
		}
	}
}

// deleteSubshell stops a subshell after the messages it holds.
func (k *Kernel) deleteSubshell(id string) error {
	k.subMu.Lock()
	defer k.subMu.Unlock()
	sh, ok := k.subshells[id]
	if !ok {
		return fmt.Errorf("no subshell with id %q", id)
	}
	delete(k.subshells, id)
	close(sh.q)
	return nil
}

func (k *Kernel) subshellIDs() []string {
	k.subMu.Lock()
	defer k.subMu.Unlock()
	ids := make([]string, 0, len(k.subshells))
	for id := range k.subshells {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// toSubshell queues m on its subshell; a message for a subshell that does
// not exist is answered with an error (a request) or logged (comm
// traffic), between busy and idle, as ipykernel does.
func (k *Kernel) toSubshell(id string, m *wire.Msg) {
	k.subMu.Lock()
	sh, ok := k.subshells[id]
	if ok {
		// Sent under the lock, so deleteSubshell cannot close the queue
		// in between; a full queue holds the shell reader back.
		select {
		case sh.q <- m:
		case <-k.done:
		}
	}
	k.subMu.Unlock()
	if ok {
		return
	}
	k.beginStatus(m, false)
	defer k.endStatus(m)
	err := fmt.Errorf("no subshell with id %q (create one with create_subshell_request on control)", id)
	if m.Header.MsgType.IsRequest() {
		k.replyError(k.shell, m, "SubshellNotFound", err)
		return
	}
	k.log.Printf("shell: ignored %s: %v", m.Header.MsgType, err)
}

// subshellRequest answers create_subshell_request, delete_subshell_request
// and list_subshell_request (on control).
func (k *Kernel) subshellRequest(s zmq4.Socket, m *wire.Msg) {
	switch m.Header.MsgType {
	case wire.CreateSubshellRequest:
		k.reply(s, m, map[string]any{"status": "ok", "subshell_id": k.createSubshell()})
	case wire.DeleteSubshellRequest:
		var c struct {
			SubshellID string `json:"subshell_id"`
		}
		if err := m.Decode(&c); err != nil {
			k.replyError(s, m, "BadRequest", err)
			return
		}
		if err := k.deleteSubshell(c.SubshellID); err != nil {
			k.replyError(s, m, "SubshellNotFound", err)
			return
		}
		k.reply(s, m, map[string]any{"status": "ok"})
	case wire.ListSubshellRequest:
		k.reply(s, m, map[string]any{"status": "ok", "subshell_id": k.subshellIDs()})
	}
}
