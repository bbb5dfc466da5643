package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var updateGolden = flag.Bool("update", false, "rewrite deploy/k8s's example manifests")

// exampleK8sArgs are the arguments of deploy/k8s/conclab-load.yaml.
var exampleK8sArgs = []string{"k8s", "job", "--agents", "3", "--name", "conclab-load",
	"http://hello.default.svc.cluster.local:8000/", "-c", "50", "-d", "1m", "--allow-remote"}

// The manifests in deploy/k8s are what the command writes (regenerate
// with go test ./cmd/conclab -run K8sGolden -update).
func TestK8sGolden(t *testing.T) {
	old := k8sNow
	k8sNow = func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }
	defer func() { k8sNow = old }()
	var out, errb bytes.Buffer
	if code := mainCode(exampleK8sArgs, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	path := filepath.Join("..", "..", "deploy", "k8s", "conclab-load.yaml")
	if *updateGolden {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("%s is stale: go test ./cmd/conclab -run K8sGolden -update", path)
	}
	for _, w := range []string{`completionMode: "Indexed"`, `completions: 3`, `parallelism: 3`,
		`"$(JOB_COMPLETION_INDEX)/3"`, `"--start-at"`, `"2026-12-01T10:02:01Z"`, `"/results/conclab-load-2.hlog"`,
		`"--allow-remote"`, `kind: "PersistentVolumeClaim"`, `name: "conclab-load-merge"`} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("manifests lack %s", w)
		}
	}
}

func TestK8sBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"k8s"}, "want 'conclab k8s job"},
		{[]string{"k8s", "pods"}, "want 'conclab k8s job"},
		{[]string{"k8s", "job", "http://127.0.0.1:8000/"}, "--agents must be in"},
		{[]string{"k8s", "job", "--agents", "3"}, "no target URL"},
		{[]string{"k8s", "job", "--agents", "2000", "http://127.0.0.1:8000/"}, "--agents must be in"},
		{[]string{"k8s", "job", "--agents", "3", "--name", "Bad_Name", "http://127.0.0.1:8000/"}, "--name"},
		{[]string{"k8s", "job", "--agents", "3", "--cpu", "lots", "http://127.0.0.1:8000/"}, "quantity"},
		{[]string{"k8s", "job", "--agents", "3", "http://svc:8000/"}, "--allow-remote"},
		{[]string{"k8s", "job", "--agents", "3", "http://127.0.0.1:8000/", "--segment", "0/2"}, "set by conclab k8s job"},
		{[]string{"k8s", "job", "--agents", "3", "http://127.0.0.1:8000/", "--hlog=/x"}, "set by conclab k8s job"},
		{[]string{"k8s", "job", "--agents", "3", "http://127.0.0.1:8000/", "-c", "0"}, "-c must be positive"},
		{[]string{"k8s", "job", "--agents", "3", "http://127.0.0.1:8000/", "-d", "100000h"}, "--max-duration"},
		{[]string{"k8s", "job", "--agents", "3", "--start-at", "tomorrow", "http://127.0.0.1:8000/"}, "RFC 3339"},
		{[]string{"k8s", "job", "--agents", "3", "ftp://127.0.0.1/"}, "malformed target URL"},
		{[]string{"k8s", "job", "--agents", "3", "http://127.0.0.1:8000/", "--threshold", "p95<1s", "--abort-on-fail"}, "an agent sees only its share"},
		{[]string{"k8s", "job", "--agents", "3", "http://127.0.0.1:8000/", "--threshold", "p95<"}, "--threshold"},
	} {
		var out, errb bytes.Buffer
		code := mainCode(tc.args, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), tc.want) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, %d bytes out; want exit 2 with %q and nothing on stdout", tc.args, code, errb.String(), out.Len(), tc.want)
		}
	}
}

// --claim uses an existing claim (no PVC object); --namespace goes on
// every object; a later --start-at lengthens the deadline.
func TestK8sOptions(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	at := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	code := mainCode([]string{"k8s", "job", "--agents", "2", "--claim", "shared", "--namespace", "perf", "--start-at", at,
		"http://127.0.0.1:8000/", "--rate", "100", "-d", "30s"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	if strings.Contains(s, "PersistentVolumeClaim") || strings.Count(s, `claimName: "shared"`) != 2 ||
		strings.Count(s, `namespace: "perf"`) != 2 || !strings.Contains(s, `"`+at+`"`) {
		t.Errorf("manifests:\n%s", s)
	}
	if !strings.Contains(s, "activeDeadlineSeconds: 40") && !strings.Contains(s, "activeDeadlineSeconds: 39") {
		t.Errorf("deadline does not cover the hour's wait:\n%s", s)
	}
}

// --threshold goes to the merge Job (the whole run), not to the agents
// (their shares); --stage sets how long the agents run.
func TestK8sThresholdsAndStages(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := mainCode([]string{"k8s", "job", "--agents", "2", "--start-in", "1m", "http://127.0.0.1:8000/", "--threshold", "p95<200ms",
		"-c", "2", "--stage", "30s:20", "--threshold=errors<1%", "--stage", "1m:20"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	agent, merge, _ := strings.Cut(s, `name: "conclab-load-merge"`)
	if strings.Contains(agent, "threshold") || strings.Count(merge, `- "--threshold"`) != 2 ||
		!strings.Contains(merge, `- "p95<200ms"`) || !strings.Contains(merge, `- "errors<1%"`) {
		t.Errorf("thresholds not moved to the merge Job:\n%s", s)
	}
	if !strings.Contains(agent, `- "--stage"`) {
		t.Errorf("stages not passed to the agents:\n%s", s)
	}
	// 1 min start (rounded up to the second) + 1m30s of stages + 10 s
	// grace + 5 min = 460–461 s.
	if !strings.Contains(s, "activeDeadlineSeconds: 460") && !strings.Contains(s, "activeDeadlineSeconds: 461") {
		t.Errorf("deadline does not follow the stages:\n%s", s)
	}
}
