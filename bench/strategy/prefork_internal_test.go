package strategy

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestStopChildrenKillsEveryStuckChild: children that do not stop when
// their control pipe closes are all killed once the grace period ends —
// the second as well as the first (one deadline serves them all).
func TestStopChildrenKillsEveryStuckChild(t *testing.T) {
	var cs []*child
	for range 3 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sleep", "60") // ignores its control pipe
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		c := &child{cmd: cmd, pid: cmd.Process.Pid, ctlW: w, waited: make(chan struct{})}
		go func() { cmd.Wait(); close(c.waited) }()
		cs = append(cs, c)
	}
	done := make(chan struct{})
	go func() { stopChildren(cs); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		for _, c := range cs {
			c.cmd.Process.Kill()
		}
		t.Fatal("stopChildren still waiting 30 s after its 3 s grace period")
	}
	for _, c := range cs {
		if c.cmd.ProcessState == nil || c.cmd.ProcessState.Success() {
			t.Errorf("child %d: state %v; want killed", c.pid, c.cmd.ProcessState)
		}
	}
}
