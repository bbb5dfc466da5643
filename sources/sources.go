// Package sources is the source experiments (the documents digested in
// SEEDS.md), one package each, all of one shape (see sources/s001): its
// Python app(s) embedded beside it, an experiment built from visible knobs
// (Knobs, with the source's Default), the estimate its arithmetic
// predicts, the checks of its shape as functions of the knobs (for the
// package's tests and the notebook suite, never inside a lesson), and the
// source's own table. Each registers its part of the calibration with
// bench/calib; importing this package links them all (conclab's binary
// does, so `conclab calibrate` measures every part).
//
//	s000print   000's recap: print() per request (FastAPI, k6 100 VUs)
//	s000upload  000: the 8K image upload in four handler styles
//	s001        001: def vs async def, N requests at once
//	s002        002: 100 health checks — sequential, thread pools, asyncio
//	s003        003: Flask vs FastAPI under gunicorn, I/O and CPU; the burst's split
//	s004        004: 26 posts, sync and async clients and apps, the rows' order
//	shape       the checks' vocabulary
package sources

import (
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/sources/s000print"
	"github.com/conclab/conclab/sources/s000upload"
	"github.com/conclab/conclab/sources/s001"
	"github.com/conclab/conclab/sources/s002"
	"github.com/conclab/conclab/sources/s003"
	"github.com/conclab/conclab/sources/s004"
)

// Source is one source experiment: its id (the lesson's, "000-print"),
// its package's name and its table.
type Source struct {
	ID, Package string
	Table       func() *frame.Frame
}

// All are the sources in the story's order.
func All() []Source {
	return []Source{
		{"000-print", "s000print", s000print.Table},
		{"000-upload", "s000upload", s000upload.Table},
		{"001", "s001", s001.Table},
		{"002", "s002", s002.Table},
		{"003", "s003", s003.Table},
		{"004", "s004", s004.Table},
	}
}
