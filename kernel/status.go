package kernel

import "github.com/conclab/conclab/kernel/wire"

// Status messages. Every request and comm message is bracketed by busy and
// idle with it as parent, on whichever channel it came. Requests served
// beside a running cell (control, comm traffic, subshells) would leave the
// kernel looking idle while the cell still runs: JupyterLab and
// jupyter_server take the last status published as the kernel's, whatever
// its parent (but for a few request types they list as untracked). So
// after such a request's idle, while a cell runs, the cell's busy is
// published again. Both happen under statusMu with the cell's own final
// idle, so a repeated busy never follows it.

// beginStatus publishes busy for m; exec marks m as the cell now running.
func (k *Kernel) beginStatus(m *wire.Msg, exec bool) {
	k.statusMu.Lock()
	defer k.statusMu.Unlock()
	k.publishStatus(m, "busy")
	if exec {
		k.running = m
	}
}

// endStatus publishes idle for m, and busy again for the running cell when
// m was served beside it.
func (k *Kernel) endStatus(m *wire.Msg) {
	k.statusMu.Lock()
	defer k.statusMu.Unlock()
	k.publishStatus(m, "idle")
	switch {
	case k.running == m:
		k.running = nil
	case k.running != nil:
		k.publishStatus(k.running, "busy")
	}
}
