// Package proctree finds and kills the processes a run started, wherever
// they were reparented, by a token in their environment: a process inherits
// its parent's environment, so every descendant of a process that set
// KEY=TOKEN carries it, even after its parent died or it left the process
// group. Linux only (through /proc); elsewhere nothing is found.
package proctree

import "crypto/rand"

// NewToken returns a random token for an environment variable.
func NewToken() string { return rand.Text() }
