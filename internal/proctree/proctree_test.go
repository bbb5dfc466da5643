package proctree_test

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/conclab/conclab/internal/proctree"
)

// A grandchild that left its parent's process group (setsid) and was
// reparented when its parent exited is still found by its token, and
// a process without the token is left alone.
func TestKillFindsReparentedDescendants(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	token := proctree.NewToken()
	pidFile := t.TempDir() + "/pid"
	// sh starts a setsid'd sleep in the background, writes its pid and exits.
	sh := exec.Command("/bin/sh", "-c", "setsid sleep 60 & echo $! > "+pidFile)
	sh.Env = append(os.Environ(), "CONCLAB_TEST_TOKEN="+token)
	if err := sh.Run(); err != nil {
		t.Fatal(err)
	}
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	var pid int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		if _, err := fmtSscan(string(b), &pid); err == nil && pid > 0 {
			break
		}
	}
	if pid == 0 {
		t.Fatal("no pid written")
	}
	// Wait until the background child has become the sleep (exec done):
	// while a process execs, its environ briefly reads empty, and setsid
	// may still be running in its place.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile("/proc/" + itoa(pid) + "/cmdline"); len(b) >= 5 && string(b[:5]) == "sleep" {
			break
		}
	}
	if n := proctree.Kill("CONCLAB_TEST_TOKEN", token); n < 1 {
		t.Errorf("Kill = %d; want at least the setsid'd sleep", n)
	}
	gone := false
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile("/proc/" + itoa(pid) + "/stat"); err != nil || isZombie(string(b)) {
			gone = true
			break
		}
	}
	if !gone {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("process %d with the token is still running", pid)
	}
	// A killed child not yet waited for is a zombie, which Signal(0) still
	// reaches: read its state.
	if b, err := os.ReadFile("/proc/" + itoa(other.Process.Pid) + "/stat"); err != nil || isZombie(string(b)) {
		t.Errorf("a process without the token was killed (stat %q, %v)", b, err)
	}
}
