// Package validate checks the Kubernetes manifests conclab writes against
// the Kubernetes API types (k8s.io/api, strict decoding: an unknown or
// misspelt field, a wrong type or a bad quantity fails) and the invariants
// a distributed load run needs. It is its own module so that the
// Kubernetes libraries stay out of conclab's.
//
//	go test ./...                         # the checked-in deploy/k8s/*.yaml
//	CONCLAB=bin/conclab go test ./...     # also fresh output of conclab k8s job
package validate

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// objects is one manifest set, decoded.
type objects struct {
	claims []corev1.PersistentVolumeClaim
	jobs   []batchv1.Job
}

func decode(t *testing.T, name string, stream []byte) objects {
	t.Helper()
	var o objects
	for i, doc := range bytes.Split(stream, []byte("\n---\n")) {
		doc = bytes.TrimPrefix(bytes.TrimSpace(doc), []byte("---"))
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			t.Fatalf("%s document %d: %v", name, i, err)
		}
		switch tm.APIVersion + " " + tm.Kind {
		case "v1 PersistentVolumeClaim":
			var c corev1.PersistentVolumeClaim
			if err := yaml.UnmarshalStrict(doc, &c); err != nil {
				t.Fatalf("%s document %d (claim): %v", name, i, err)
			}
			o.claims = append(o.claims, c)
		case "batch/v1 Job":
			var j batchv1.Job
			if err := yaml.UnmarshalStrict(doc, &j); err != nil {
				t.Fatalf("%s document %d (job): %v", name, i, err)
			}
			o.jobs = append(o.jobs, j)
		default:
			t.Fatalf("%s document %d: unexpected %s %s", name, i, tm.APIVersion, tm.Kind)
		}
	}
	return o
}

func stripComments(b []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(l), []byte("#")) {
			out = append(out, l)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

func errs(list []string) error {
	if len(list) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(list, "; "))
}

var segmentArg = regexp.MustCompile(`^\$\(JOB_COMPLETION_INDEX\)/(\d+)$`)

// check asserts what a distributed run needs of the objects.
func check(t *testing.T, name string, o objects, wantClaim bool) {
	t.Helper()
	fail := func(format string, args ...any) { t.Errorf("%s: "+format, append([]any{name}, args...)...) }
	if len(o.jobs) != 2 {
		t.Fatalf("%s: %d jobs; want the agents' and the merge's", name, len(o.jobs))
	}
	if (len(o.claims) == 1) != wantClaim {
		fail("%d claims; want %v", len(o.claims), wantClaim)
	}
	for _, c := range o.claims {
		if e := validation.IsDNS1123Subdomain(c.Name); e != nil {
			fail("claim name: %v", e)
		}
		if len(c.Spec.AccessModes) != 1 || c.Spec.AccessModes[0] != corev1.ReadWriteMany {
			fail("claim access modes %v; want ReadWriteMany (every agent writes, the merge reads)", c.Spec.AccessModes)
		}
		if q := c.Spec.Resources.Requests[corev1.ResourceStorage]; q.IsZero() {
			fail("claim has no storage request")
		}
	}
	agents, merge := o.jobs[0], o.jobs[1]
	for _, j := range o.jobs {
		if e := validation.IsDNS1123Subdomain(j.Name); e != nil {
			fail("job name %q: %v", j.Name, e)
		}
		for k, v := range j.Spec.Template.Labels {
			if e := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(e) > 0 {
				fail("label %s=%s: %v", k, v, e)
			}
		}
		ps := j.Spec.Template.Spec
		if ps.RestartPolicy != corev1.RestartPolicyNever {
			fail("%s: restartPolicy %q; want Never", j.Name, ps.RestartPolicy)
		}
		if j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit != 0 {
			fail("%s: backoffLimit %v; want 0 (a retried segment would run its share twice)", j.Name, j.Spec.BackoffLimit)
		}
		if j.Spec.ActiveDeadlineSeconds == nil || *j.Spec.ActiveDeadlineSeconds <= 0 {
			fail("%s: no activeDeadlineSeconds", j.Name)
		}
		vols := map[string]corev1.Volume{}
		for _, v := range ps.Volumes {
			vols[v.Name] = v
		}
		if len(ps.Containers) != 1 {
			fail("%s: %d containers", j.Name, len(ps.Containers))
			continue
		}
		c := ps.Containers[0]
		if e := validation.IsDNS1123Label(c.Name); e != nil {
			fail("container name: %v", e)
		}
		if c.Image == "" || len(c.Command) != 1 || c.Command[0] != "conclab" {
			fail("%s: image %q command %v", j.Name, c.Image, c.Command)
		}
		for _, m := range c.VolumeMounts {
			v, ok := vols[m.Name]
			if !ok {
				fail("%s: mount %q has no volume", j.Name, m.Name)
				continue
			}
			if v.PersistentVolumeClaim == nil {
				fail("%s: volume %q is not a claim", j.Name, m.Name)
			} else if wantClaim && (len(o.claims) == 0 || v.PersistentVolumeClaim.ClaimName != o.claims[0].Name) {
				fail("%s: volume claims %q, not the claim in the set", j.Name, v.PersistentVolumeClaim.ClaimName)
			}
		}
	}

	// The agents: an Indexed Job, N completions at once, segment i/N.
	s := agents.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		fail("agents: completionMode %v; want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism || *s.Completions < 1 {
		fail("agents: completions %v parallelism %v; want equal (every agent at once)", s.Completions, s.Parallelism)
		return
	}
	n := int(*s.Completions)
	c := s.Template.Spec.Containers[0]
	args := c.Args
	if len(args) < 2 || args[0] != "load" {
		fail("agents: args %q; want conclab load URL ...", args)
		return
	}
	flags := map[string]string{}
	for i := 2; i < len(args)-1; i++ {
		if strings.HasPrefix(args[i], "--") {
			flags[args[i]] = args[i+1]
		}
	}
	if m := segmentArg.FindStringSubmatch(flags["--segment"]); m == nil || m[1] != fmt.Sprint(n) {
		fail("agents: --segment %q; want $(JOB_COMPLETION_INDEX)/%d", flags["--segment"], n)
	}
	if _, err := time.Parse(time.RFC3339Nano, flags["--start-at"]); err != nil {
		fail("agents: --start-at %q: %v", flags["--start-at"], err)
	}
	hlog := flags["--hlog"]
	if !strings.Contains(hlog, "$(JOB_COMPLETION_INDEX)") || !strings.HasPrefix(hlog, c.VolumeMounts[0].MountPath+"/") {
		fail("agents: --hlog %q; want a per-index file on the volume", hlog)
	}
	env := false
	for _, e := range c.Env {
		if e.Name == "JOB_COMPLETION_INDEX" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil &&
			e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			env = true
		}
	}
	if !env {
		fail("agents: JOB_COMPLETION_INDEX is not declared from the completion-index annotation, so $(JOB_COMPLETION_INDEX) would not expand")
	}
	host := regexp.MustCompile(`^http://([^/:]+)`).FindStringSubmatch(args[1])
	if host != nil && host[1] != "127.0.0.1" && host[1] != "localhost" && !contains(args, "--allow-remote") {
		fail("agents: remote target %s without --allow-remote", args[1])
	}
	if c.Resources.Limits.Cpu().IsZero() || c.Resources.Limits.Memory().IsZero() {
		fail("agents: no CPU or memory limit")
	}

	// The merge: every agent's log, waited for.
	ma := merge.Spec.Template.Spec.Containers[0].Args
	if len(ma) == 0 || ma[0] != "merge" || !contains(ma, "--wait") {
		fail("merge: args %q; want conclab merge --wait ...", ma)
	}
	for i := 0; i < n; i++ {
		p := strings.ReplaceAll(hlog, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(i))
		if !contains(ma, p) {
			fail("merge: does not read agent %d's log %s", i, p)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The manifests checked into deploy/k8s.
func TestCheckedInManifests(t *testing.T) {
	files, err := filepath.Glob("../*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/k8s (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(t, f, decode(t, f, b), true)
	}
}

// Fresh output of conclab k8s job, for several option sets.
func TestGenerated(t *testing.T) {
	bin := os.Getenv("CONCLAB")
	if bin == "" {
		t.Skip("set CONCLAB to a conclab binary to check its output")
	}
	for _, tc := range []struct {
		args      []string
		wantClaim bool
	}{
		{[]string{"--agents", "1", "http://127.0.0.1:8000/"}, true},
		{[]string{"--agents", "3", "http://svc.ns.svc:80/x", "-c", "30", "-d", "1m", "--allow-remote"}, true},
		{[]string{"--agents", "7", "--claim", "shared", "--namespace", "perf", "--name", "rate-run", "--cpu", "500m", "--memory", "1Gi",
			"http://10.0.0.5:8000/", "--rate", "700", "-d", "30s", "--allow-remote", "-H", "X-Run: \"quoted\" value"}, false},
		{[]string{"--agents", "4", "--storage", "5Gi", "--storage-class", "nfs", "http://localhost:8000/upload", "-n", "1001", "-c", "8"}, true},
	} {
		out, err := exec.Command(bin, append([]string{"k8s", "job"}, tc.args...)...).Output()
		if err != nil {
			t.Fatalf("conclab k8s job %v: %v", tc.args, err)
		}
		name := strings.Join(tc.args, " ")
		check(t, name, decode(t, name, out), tc.wantClaim)
	}
}
