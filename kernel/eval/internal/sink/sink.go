// Package sink names the import path under which the evaluator exposes its
// result sink to the interpreter; it has no code of its own.
package sink
