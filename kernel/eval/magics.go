package eval

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
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

func (s *Session) cd(seg segment) error {
	dir := seg.src
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
