package cpython

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// setGroup puts cmd in a new process group (so the whole tree can be
// signalled as one) and has the kernel kill the child if this process dies.
// For a command made with exec.CommandContext, cancelling kills the group.
func setGroup(cmd *exec.Cmd, withContext bool) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if withContext {
		cmd.Cancel = func() error { return killGroup(cmd.Process.Pid, syscall.SIGKILL) }
	}
}

// killGroup signals every process in group pgid; a group already gone is
// not an error.
func killGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return nil
	}
	err := syscall.Kill(-pgid, sig)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}

// GroupMembers returns the pids of live (not zombie) processes whose process
// group is pgid, by scanning /proc. Tests use it to prove nothing was left
// behind.
func GroupMembers(pgid int) []int {
	var out []int
	for _, p := range procs() {
		if p.pgid == pgid && p.state != "Z" {
			out = append(out, p.pid)
		}
	}
	return out
}

// PythonProcesses returns the pids of live processes whose command line
// mentions needle (e.g. a server's temp dir), by scanning /proc.
func PythonProcesses(needle string) []int {
	var out []int
	for _, p := range procs() {
		if p.state != "Z" && strings.Contains(p.cmdline, needle) {
			out = append(out, p.pid)
		}
	}
	return out
}

type procInfo struct {
	pid, pgid int
	state     string
	cmdline   string
	cpu       float64 // user + system CPU seconds, its waited-for children's included
}

// clockTicks is USER_HZ, the unit of /proc's CPU times (100 on every Linux
// the lab runs on).
const clockTicks = 100

// groupUsage returns the CPU seconds of every live process of group pgid
// by pid, and the sum of their peak resident set sizes (VmHWM) in MB.
func groupUsage(pgid int) (cpu map[int]float64, rssMB float64) {
	cpu = map[int]float64{}
	for _, p := range procs() {
		if p.pgid != pgid || p.state == "Z" {
			continue
		}
		cpu[p.pid] = p.cpu
		st, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(st), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				f := strings.Fields(rest)
				if len(f) > 0 {
					kb, _ := strconv.ParseFloat(f[0], 64)
					rssMB += kb / 1024
				}
			}
		}
	}
	return cpu, rssMB
}

func procs() []procInfo {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []procInfo
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may contain spaces.
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 {
			continue
		}
		pgid, _ := strconv.Atoi(f[2])
		var cpu float64
		if len(f) > 14 { // utime stime cutime cstime are fields 14-17 of stat
			for _, x := range f[11:15] {
				v, _ := strconv.ParseFloat(x, 64)
				cpu += v / clockTicks
			}
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		out = append(out, procInfo{pid: pid, pgid: pgid, state: f[0], cmdline: strings.ReplaceAll(string(cl), "\x00", " "), cpu: cpu})
	}
	return out
}
