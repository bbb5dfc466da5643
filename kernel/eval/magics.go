package eval

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/conclab/conclab/internal/cellsrc"
)

func (s *Session) shell(ctx context.Context, seg segment) error {
	if seg.src == "" {
		return nil
	}
	// The shell leads a process group of its own: an interrupt, a timeout
	// (ctx) or Close kills the whole group, so no process a cell started
	// outlives it (a plain kill would end only /bin/sh and leave its
	// children running, reparented to init).
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", seg.src)
	cmd.Dir = s.workDir()
	cmd.Stdout = s.out.w
	cmd.Stderr = s.errf.w
	cmd.WaitDelay = time.Second
	startInGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	err := cmd.Start()
	if err == nil {
		s.addGroup(cmd.Process.Pid)
		err = cmd.Wait()
		if ctx.Err() != nil {
			_ = killGroup(cmd.Process.Pid)
		}
		s.pruneGroups()
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &Error{Name: "ShellError", Value: fmt.Sprintf("$ %s: %v", seg.src, err), Line: seg.line,
			Traceback: []string{fmt.Sprintf("cell line %d: $ %s: %v", seg.line, seg.src, err)}}
	}
	return nil
}

func (s *Session) addGroup(pgid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groups == nil {
		s.groups = map[int]bool{}
	}
	s.groups[pgid] = true
}

// pruneGroups forgets the groups with no process left.
func (s *Session) pruneGroups() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for g := range s.groups {
		if !groupAlive(g) {
			delete(s.groups, g)
		}
	}
}

// killGroups kills what is left of the `$ cmd` process groups (background
// jobs of a shell line).
func (s *Session) killGroups() {
	s.mu.Lock()
	gs := s.groups
	s.groups = nil
	s.mu.Unlock()
	for g := range gs {
		_ = killGroup(g)
	}
}

// magics are the `%` lines a cell may hold: name, what it does.
var magics = []struct {
	name, usage string
	run         func(s *Session, seg segment, args string) error
}{
	{"cd", "%cd DIR: change the session's working directory (no DIR: the home directory)", (*Session).cd},
}

// magic runs a `%name args` line.
func (s *Session) magic(seg segment) error {
	name, args := cellsrc.MagicName(seg.src)
	var known []string
	for _, m := range magics {
		if m.name == name {
			return m.run(s, seg, args)
		}
		known = append(known, m.usage)
	}
	msg := fmt.Sprintf("unknown magic %%%s (a line starting with %% is a magic; the kernel knows %s)", name, strings.Join(known, "; "))
	return &Error{Name: "MagicError", Value: msg, Line: seg.line,
		Traceback: []string{fmt.Sprintf("cell line %d: %s", seg.line, msg)}}
}

func (s *Session) cd(seg segment, dir string) error {
	if dir == "" || dir == "~" {
		dir, _ = os.UserHomeDir()
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(s.workDir(), dir)
	}
	if err := os.Chdir(dir); err != nil {
		return &Error{Name: "CdError", Value: err.Error(), Line: seg.line,
			Traceback: []string{fmt.Sprintf("cell line %d: %%cd: %v", seg.line, err)}}
	}
	s.mu.Lock()
	s.dir = dir
	s.mu.Unlock()
	fmt.Fprintln(s.out.w, dir)
	return nil
}

func (s *Session) workDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

// Dir returns the session's working directory.
func (s *Session) Dir() string { return s.workDir() }
