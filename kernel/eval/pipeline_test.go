package eval

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata/passes with the passes' outputs")

// goldenCase is one case of a pass's golden file: testdata/passes/NAME.txt
// holds cases, each
//
//	-- case: what it shows --
//	-- setup --        (optional: cells run first, separated by "// -- cell --")
//	...
//	-- in --
//	...
//	-- out --
//	...
type goldenCase struct {
	title, setup, in, out string
}

func parseGolden(t *testing.T, text string) []goldenCase {
	t.Helper()
	var cases []goldenCase
	var cur *goldenCase
	var field *string
	for _, l := range strings.SplitAfter(text, "\n") {
		trim := strings.TrimRight(l, "\n")
		switch {
		case strings.HasPrefix(trim, "-- case: ") && strings.HasSuffix(trim, " --"):
			cases = append(cases, goldenCase{title: strings.TrimSuffix(strings.TrimPrefix(trim, "-- case: "), " --")})
			cur = &cases[len(cases)-1]
			field = nil
		case trim == "-- setup --" && cur != nil:
			field = &cur.setup
		case trim == "-- in --" && cur != nil:
			field = &cur.in
		case trim == "-- out --" && cur != nil:
			field = &cur.out
		case field != nil:
			*field += l
		}
	}
	return cases
}

func formatGolden(cases []goldenCase) string {
	var b strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&b, "-- case: %s --\n", c.title)
		if c.setup != "" {
			b.WriteString("-- setup --\n" + c.setup)
		}
		b.WriteString("-- in --\n" + c.in)
		b.WriteString("-- out --\n" + c.out)
	}
	return b.String()
}

var tupleTemp = regexp.MustCompile(`_tup\d+`)

// TestPassGolden runs each pass of the pipeline alone on the inputs of its
// golden file and compares with the outputs there. Every pass has one.
func TestPassGolden(t *testing.T) {
	for _, p := range pipeline {
		t.Run(p.name, func(t *testing.T) {
			path := filepath.Join("testdata", "passes", p.name+".txt")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("pass %s has no golden file: %v", p.name, err)
			}
			cases := parseGolden(t, string(b))
			if len(cases) == 0 {
				t.Fatalf("%s has no cases", path)
			}
			for i := range cases {
				c := &cases[i]
				got := runPassAlone(t, p, c.setup, strings.TrimSuffix(c.in, "\n")) + "\n"
				// tupleassign numbers its temporaries process-wide.
				got = tupleTemp.ReplaceAllString(got, "_tupN")
				if *updateGolden {
					c.out = got
					continue
				}
				if got != c.out {
					t.Errorf("%s: %s:\n-- in --\n%s-- got --\n%s-- want --\n%s", path, c.title, c.in, got, c.out)
				}
			}
			if *updateGolden {
				if err := os.WriteFile(path, []byte(formatGolden(cases)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// runPassAlone applies one pass to in, after running the setup cells in a
// session (the context of a typed pass), and renders its output.
func runPassAlone(t *testing.T, p pass, setup, in string) string {
	t.Helper()
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if setup != "" {
		for _, cell := range strings.Split(setup, cellSep) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			_, err := s.Eval(ctx, cell)
			cancel()
			if err != nil {
				t.Fatalf("setup cell %q: %v", cell, err)
			}
		}
	}
	segs := splitCell(in)
	switch p.stage {
	case stageCell:
		return renderSegments(p.cell(s, segs))
	}
	if len(segs) != 1 {
		t.Fatalf("the input of a %s pass must be one segment; it is %d: %q", p.stage, len(segs), in)
	}
	seg := segs[0]
	decl := seg.kind == segDecl
	switch p.stage {
	case stageTyped:
		c := s.types.check(seg.src, decl)
		if c == nil || c.info == nil {
			t.Fatalf("the input does not type-check: %q", seg.src)
		}
		tc := newTypedCtx(c, &s.fresh, s.segPkgName(c))
		tc.overlay = s.overlayOf
		out, dropped := applyEdits(seg.src, p.typed(tc))
		if len(dropped) > 0 {
			t.Errorf("overlapping edits: %v", dropped)
		}
		if strings.Count(out, "\n") != strings.Count(seg.src, "\n") {
			t.Errorf("the pass changed the number of lines:\n%s", out)
		}
		return out
	case stageSegment:
		var b strings.Builder
		for _, pc := range p.segment(s, []piece{{src: seg.src, decl: decl}}) {
			fmt.Fprintf(&b, "== piece decl=%v line+%d ==\n%s\n", pc.decl, pc.line, pc.src)
		}
		return strings.TrimSuffix(b.String(), "\n")
	case stagePiece:
		out := p.piece(s, seg.src, decl)
		if strings.Count(out, "\n") != strings.Count(seg.src, "\n") {
			t.Errorf("the pass changed the number of lines:\n%s", out)
		}
		return out
	case stageValue:
		c := s.types.check(seg.src, false)
		tv, typed := exprType(c)
		_, compiled := s.callResults(seg.src)
		return strings.Join(displayForms(seg.src, tv, typed, compiled), "\n")
	}
	t.Fatalf("unknown stage %v", p.stage)
	return ""
}

func renderSegments(segs []segment) string {
	var b strings.Builder
	kinds := map[segKind]string{segStmt: "stmt", segDecl: "decl", segShell: "shell", segMagic: "magic"}
	for _, s := range segs {
		fmt.Fprintf(&b, "== %s line %d expr=%v ==\n%s\n", kinds[s.kind], s.line, s.expr, s.src)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// The table names each pass once, says why it exists, and says when a
// workaround could go.
func TestPipelineTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range pipeline {
		if seen[p.name] {
			t.Errorf("pass %s is in the table twice", p.name)
		}
		seen[p.name] = true
		if p.why == "" {
			t.Errorf("pass %s does not say why it exists", p.name)
		}
		if !p.feature && p.removable == "" {
			t.Errorf("pass %s works around an interpreter limit and does not say when it could go", p.name)
		}
		fns := 0
		for _, f := range []bool{p.cell != nil, p.typed != nil, p.segment != nil, p.piece != nil} {
			if f {
				fns++
			}
		}
		if fns != 1 && p.stage != stageValue || fns != 0 && p.stage == stageValue {
			t.Errorf("pass %s (%s stage) has %d functions", p.name, p.stage, fns)
		}
	}
}

// The pipeline's table in docs/kernel.md is this table: go test -run
// TestPipelineDocs -update rewrites it.
func TestPipelineDocs(t *testing.T) {
	t.Parallel()
	const (
		begin = "<!-- pipeline table: go test ./kernel/eval -run TestPipelineDocs -update -->\n"
		end   = "<!-- end of the pipeline table -->\n"
	)
	var b strings.Builder
	b.WriteString("| # | stage | pass | for | what it does and why | it could go when |\n|---|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for i, p := range pipeline {
		kind, removable := "interpreter limit", cell(p.removable)
		if p.feature {
			kind, removable = "**feature**", "(a feature)"
		}
		fmt.Fprintf(&b, "| %d | %s | `%s` | %s | %s | %s |\n", i+1, p.stage, p.name, kind, cell(p.why), removable)
	}
	path := filepath.Join("..", "..", "docs", "kernel.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no pipeline table between %q and %q", path, begin, end)
	}
	if got := s[i+len(begin) : j]; got != b.String() {
		if *updateGolden {
			if err := os.WriteFile(path, []byte(s[:i+len(begin)]+b.String()+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the pipeline table in %s is not pipeline.go's: run go test ./kernel/eval -run TestPipelineDocs -update", path)
	}
}
