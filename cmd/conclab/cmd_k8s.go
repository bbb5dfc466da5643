package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func init() {
	register(command{name: "k8s", summary: "emit Kubernetes manifests that run a load as N segments and merge them", run: runK8s})
}

const k8sUsage = `usage: conclab k8s job --agents N [flags] URL [conclab load flags]

Writes to stdout the Kubernetes manifests of one distributed load run:
  - a PersistentVolumeClaim NAME-results (ReadWriteMany) for the logs,
    unless --claim names an existing one;
  - an Indexed Job NAME: N pods (completions = parallelism = N), pod i
    running 'conclab load URL [load flags] --segment i/N --start-at T
    --hlog /results/NAME-i.hlog', i from $(JOB_COMPLETION_INDEX), all
    starting at the same time T, spread over nodes;
  - a Job NAME-merge running 'conclab merge --wait ... /results/NAME-*.hlog
    --html /results/NAME.html': its log is the merged summary.
Apply with 'kubectl apply -f -'. The load flags are checked here as
'conclab load' checks them; a target that is not loopback (a Service in the
cluster, usually) needs --allow-remote among them, as for 'conclab load'.
--threshold load flags go to the merge Job, which checks them on the whole
run (an agent sees only its share); --abort-on-fail is refused for the same
reason.

flags:
`

var k8sName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$`)

// k8sJob is what 'conclab k8s job' was asked for.
type k8sJob struct {
	name, image, namespace, claim, storage, storageClass string
	cpu, memory                                          string
	agents                                               int
	startAt                                              time.Time
	url                                                  string
	loadArgs                                             []string      // the agents'
	thresholds                                           []string      // the merge Job's
	runFor                                               time.Duration // longest an agent runs after the start
	startIn                                              time.Duration
}

// k8sNow is the clock the default start time is taken from (tests fix it).
var k8sNow = time.Now

// maxAgents bounds --agents.
const maxAgents = 1000

func runK8s(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 || args[0] != "job" {
		fmt.Fprint(stderr, k8sUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return 0, nil
		}
		return 2, errors.New("want 'conclab k8s job ...'")
	}
	j, err := parseK8sJob(args[1:], stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0, nil
	}
	if err != nil {
		return 2, err
	}
	if _, err := io.WriteString(stdout, j.manifests()); err != nil {
		return 1, err
	}
	return 0, nil
}

func parseK8sJob(args []string, stderr io.Writer) (*k8sJob, error) {
	fs := flag.NewFlagSet("k8s job", flag.ContinueOnError)
	fs.SetOutput(stderr)
	j := &k8sJob{}
	fs.IntVar(&j.agents, "agents", 0, "number of agents (pods), each running one segment i/N of the load")
	fs.StringVar(&j.name, "name", "conclab-load", "name of the Job (and prefix of the other objects and log files)")
	fs.StringVar(&j.image, "image", "conclab:latest", "container image with conclab on PATH (the repository's Dockerfile builds one)")
	fs.StringVar(&j.namespace, "namespace", "", "namespace of the objects (default: kubectl's)")
	fs.StringVar(&j.claim, "claim", "", "an existing PersistentVolumeClaim for the logs (default: create NAME-results)")
	fs.StringVar(&j.storage, "storage", "1Gi", "size of the claim created for the logs")
	fs.StringVar(&j.storageClass, "storage-class", "", "storage class of the claim created (it must offer ReadWriteMany)")
	fs.StringVar(&j.cpu, "cpu", "1", "CPU each agent requests and is limited to")
	fs.StringVar(&j.memory, "memory", "512Mi", "memory each agent requests and is limited to")
	startSpec := fs.String("start-at", "", "when the agents start (RFC 3339 or unix seconds; default: --start-in from now)")
	fs.DurationVar(&j.startIn, "start-in", 2*time.Minute, "start the agents this long after the manifests are written (time to schedule the pods and pull the image)")
	fs.Usage = func() {
		fmt.Fprint(stderr, k8sUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	rest := fs.Args()
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		fs.Usage()
		return nil, errors.New("no target URL")
	}
	switch {
	case j.agents < 1 || j.agents > maxAgents:
		return nil, fmt.Errorf("--agents must be in 1..%d, got %d", maxAgents, j.agents)
	case !k8sName.MatchString(j.name):
		return nil, fmt.Errorf("--name %q: want at most 40 lower-case letters, digits and '-', starting and ending with a letter or digit", j.name)
	case j.namespace != "" && !k8sName.MatchString(j.namespace):
		return nil, fmt.Errorf("--namespace %q is not a valid namespace name", j.namespace)
	case j.claim != "" && !k8sName.MatchString(j.claim):
		return nil, fmt.Errorf("--claim %q is not a valid claim name", j.claim)
	case strings.TrimSpace(j.image) == "" || strings.ContainsAny(j.image, " \t\r\n\""):
		return nil, fmt.Errorf("--image %q is not an image reference", j.image)
	case j.startIn < 0 || j.startIn > 24*time.Hour:
		return nil, fmt.Errorf("--start-in must be in [0, 24h], got %v", j.startIn)
	}
	for _, q := range []struct{ flag, v string }{{"--storage", j.storage}, {"--cpu", j.cpu}, {"--memory", j.memory}} {
		if !k8sQuantity.MatchString(q.v) {
			return nil, fmt.Errorf("%s %q is not a Kubernetes quantity (e.g. 500m, 1, 512Mi, 1Gi)", q.flag, q.v)
		}
	}
	if j.storageClass != "" && !k8sName.MatchString(j.storageClass) {
		return nil, fmt.Errorf("--storage-class %q is not a valid name", j.storageClass)
	}
	j.url, j.loadArgs = rest[0], rest[1:]
	if strings.HasPrefix(j.url, "-") {
		return nil, fmt.Errorf("want the target URL before the load flags, got %q", j.url)
	}
	// The load flags are checked as conclab load checks them, here and now.
	lf, _, err := parseLoadFlags(append([]string{j.url}, j.loadArgs...), stderr)
	if err != nil {
		return nil, fmt.Errorf("load flags: %w", err)
	}
	for _, own := range []string{"segment", "start-at", "hlog", "json", "html"} {
		for _, a := range j.loadArgs {
			if a == "-"+own || a == "--"+own || strings.HasPrefix(a, "-"+own+"=") || strings.HasPrefix(a, "--"+own+"=") {
				return nil, fmt.Errorf("load flag --%s is set by conclab k8s job (each agent's segment, the shared start, its log)", own)
			}
		}
	}
	if err := checkRemoteOptIn(j.url, lf.allowRemote); err != nil {
		return nil, err
	}
	if lf.abortOnFail {
		return nil, errors.New("load flag --abort-on-fail: an agent sees only its share of the run, so it cannot tell that a threshold of the whole will fail; the merge Job checks the thresholds")
	}
	j.thresholds = lf.thresholdSpecs
	j.loadArgs = withoutFlag(j.loadArgs, "threshold")
	if *startSpec != "" {
		if j.startAt, err = parseStartAt(*startSpec); err != nil {
			return nil, err
		}
	} else {
		j.startAt = k8sNow().Add(j.startIn).Truncate(time.Second).Add(time.Second)
	}
	if d := j.startAt.Sub(k8sNow()); d > j.startIn {
		j.startIn = d // the deadline covers the wait for a later --start-at
	}
	// How long an agent may run: the planned duration when known, else
	// the run's cap, plus the graceful stop.
	j.runFor = lf.maxDuration
	if lf.d > 0 {
		j.runFor = lf.d
	}
	if len(lf.stages) > 0 {
		j.runFor = 0
		for _, st := range lf.stages {
			j.runFor += st.Duration
		}
	}
	j.runFor += lf.grace
	return j, nil
}

// withoutFlag returns args without the flag name and its values (as
// "--name V", "-name V", "--name=V").
func withoutFlag(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-"+name || a == "--"+name:
			i++ // and its value
		case strings.HasPrefix(a, "-"+name+"=") || strings.HasPrefix(a, "--"+name+"="):
		default:
			out = append(out, a)
		}
	}
	return out
}

var k8sQuantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$`)

// checkRemoteOptIn refuses, without resolving it (cluster names do not
// resolve here), a target host that is not loopback unless the load flags
// say --allow-remote.
func checkRemoteOptIn(raw string, allowRemote bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Hostname() == "" {
		return fmt.Errorf("malformed target URL %q: want http://host[:port]/path", raw)
	}
	if allowRemote {
		return nil
	}
	h := strings.ToLower(u.Hostname())
	if ip := net.ParseIP(h); (ip != nil && ip.IsLoopback()) || h == "localhost" {
		return nil
	}
	return fmt.Errorf("target %s is not loopback: in a cluster the target is another host, so say so with --allow-remote among the load flags", u.Host)
}

// manifests renders the objects as one YAML stream.
func (j *k8sJob) manifests() string {
	claim := j.claim
	var docs []yamlNode
	meta := func(name string) yamlMap {
		m := yamlMap{{"name", name}}
		if j.namespace != "" {
			m = append(m, yamlKV{"namespace", j.namespace})
		}
		m = append(m, yamlKV{"labels", yamlMap{{"app.kubernetes.io/name", "conclab"}, {"app.kubernetes.io/instance", j.name}}})
		return m
	}
	if claim == "" {
		claim = j.name + "-results"
		spec := yamlMap{
			{"accessModes", yamlList{"ReadWriteMany"}},
			{"resources", yamlMap{{"requests", yamlMap{{"storage", j.storage}}}}},
		}
		if j.storageClass != "" {
			spec = append(spec, yamlKV{"storageClassName", j.storageClass})
		}
		docs = append(docs, yamlMap{
			{"apiVersion", "v1"},
			{"kind", "PersistentVolumeClaim"},
			{"metadata", meta(claim)},
			{"spec", spec},
		})
	}
	n := strconv.Itoa(j.agents)
	start := j.startAt.UTC().Format(time.RFC3339Nano)
	loadArgs := yamlList{"load", j.url}
	for _, a := range j.loadArgs {
		loadArgs = append(loadArgs, a)
	}
	loadArgs = append(loadArgs, "--segment", "$(JOB_COMPLETION_INDEX)/"+n, "--start-at", start,
		"--hlog", "/results/"+j.name+"-$(JOB_COMPLETION_INDEX).hlog", "-q")
	volumes := yamlList{yamlMap{{"name", "results"}, {"persistentVolumeClaim", yamlMap{{"claimName", claim}}}}}
	mounts := yamlList{yamlMap{{"name", "results"}, {"mountPath", "/results"}}}
	resources := yamlMap{
		{"requests", yamlMap{{"cpu", j.cpu}, {"memory", j.memory}}},
		{"limits", yamlMap{{"cpu", j.cpu}, {"memory", j.memory}}},
	}
	security := yamlMap{{"allowPrivilegeEscalation", false}, {"capabilities", yamlMap{{"drop", yamlList{"ALL"}}}}}
	// The agents wait up to --start-in, then run runFor; five minutes
	// more for scheduling and pulling the image.
	deadline := int64(math.Ceil((j.startIn + j.runFor + 5*time.Minute).Seconds()))
	docs = append(docs, yamlMap{
		{"apiVersion", "batch/v1"},
		{"kind", "Job"},
		{"metadata", meta(j.name)},
		{"spec", yamlMap{
			{"completionMode", "Indexed"},
			{"completions", j.agents},
			{"parallelism", j.agents},
			// A retried segment would run its share twice: a failed agent
			// fails the run (merge reports what the others measured).
			{"backoffLimit", 0},
			{"activeDeadlineSeconds", deadline},
			{"ttlSecondsAfterFinished", 86400},
			{"template", yamlMap{
				{"metadata", yamlMap{{"labels", yamlMap{{"app.kubernetes.io/name", "conclab"}, {"app.kubernetes.io/instance", j.name}, {"conclab/role", "agent"}}}}},
				{"spec", yamlMap{
					{"restartPolicy", "Never"},
					{"topologySpreadConstraints", yamlList{yamlMap{
						{"maxSkew", 1},
						{"topologyKey", "kubernetes.io/hostname"},
						{"whenUnsatisfiable", "ScheduleAnyway"},
						{"labelSelector", yamlMap{{"matchLabels", yamlMap{{"app.kubernetes.io/instance", j.name}, {"conclab/role", "agent"}}}}},
					}}},
					{"containers", yamlList{yamlMap{
						{"name", "agent"},
						{"image", j.image},
						{"imagePullPolicy", "IfNotPresent"},
						{"command", yamlList{"conclab"}},
						{"args", loadArgs},
						{"env", yamlList{yamlMap{
							{"name", "JOB_COMPLETION_INDEX"},
							{"valueFrom", yamlMap{{"fieldRef", yamlMap{{"fieldPath", "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}}},
						}}},
						{"resources", resources},
						{"securityContext", security},
						{"volumeMounts", mounts},
					}}},
					{"volumes", volumes},
				}},
			}},
		}},
	})
	mergeArgs := yamlList{"merge", "--wait", (time.Duration(deadline) * time.Second).String(), "--html", "/results/" + j.name + ".html"}
	for _, t := range j.thresholds {
		mergeArgs = append(mergeArgs, "--threshold", t)
	}
	for i := 0; i < j.agents; i++ {
		mergeArgs = append(mergeArgs, fmt.Sprintf("/results/%s-%d.hlog", j.name, i))
	}
	docs = append(docs, yamlMap{
		{"apiVersion", "batch/v1"},
		{"kind", "Job"},
		{"metadata", meta(j.name + "-merge")},
		{"spec", yamlMap{
			{"completions", 1},
			{"backoffLimit", 0},
			{"activeDeadlineSeconds", deadline + 600},
			{"ttlSecondsAfterFinished", 86400},
			{"template", yamlMap{
				{"metadata", yamlMap{{"labels", yamlMap{{"app.kubernetes.io/name", "conclab"}, {"app.kubernetes.io/instance", j.name}, {"conclab/role", "merge"}}}}},
				{"spec", yamlMap{
					{"restartPolicy", "Never"},
					{"containers", yamlList{yamlMap{
						{"name", "merge"},
						{"image", j.image},
						{"imagePullPolicy", "IfNotPresent"},
						{"command", yamlList{"conclab"}},
						{"args", mergeArgs},
						{"resources", yamlMap{{"requests", yamlMap{{"cpu", "100m"}, {"memory", "256Mi"}}}, {"limits", yamlMap{{"memory", "1Gi"}}}}},
						{"securityContext", security},
						{"volumeMounts", mounts},
					}}},
					{"volumes", volumes},
				}},
			}},
		}},
	})
	var b strings.Builder
	oneLine := strings.NewReplacer("\n", " ", "\r", " ").Replace
	fmt.Fprintf(&b, "# conclab k8s job: %d agents, load %s, starting together at %s\n", j.agents, oneLine(strings.Join(append([]string{j.url}, j.loadArgs...), " ")), start)
	fmt.Fprintf(&b, "# kubectl apply -f THIS; kubectl wait --for=condition=complete --timeout=%ds job/%s-merge; kubectl logs job/%s-merge\n", deadline+600, j.name, j.name)
	for _, d := range docs {
		b.WriteString("---\n")
		writeYAML(&b, d, 0)
	}
	return b.String()
}

// A tiny YAML emitter: maps keep their order, every string is
// double-quoted (JSON escapes are YAML escapes), so no value is mistaken
// for a number, a boolean or a comment.
type (
	yamlNode any
	yamlKV   struct {
		k string
		v yamlNode
	}
	yamlMap  []yamlKV
	yamlList []yamlNode
)

func yamlScalar(v yamlNode) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	panic(fmt.Sprintf("yaml: unsupported %T", v))
}

func writeYAML(b *strings.Builder, v yamlNode, indent int) {
	pad := strings.Repeat("  ", indent)
	switch v := v.(type) {
	case yamlMap:
		for _, kv := range v {
			switch c := kv.v.(type) {
			case yamlMap:
				fmt.Fprintf(b, "%s%s:\n", pad, kv.k)
				writeYAML(b, c, indent+1)
			case yamlList:
				if len(c) == 0 {
					fmt.Fprintf(b, "%s%s: []\n", pad, kv.k)
					continue
				}
				fmt.Fprintf(b, "%s%s:\n", pad, kv.k)
				writeYAML(b, c, indent+1)
			default:
				fmt.Fprintf(b, "%s%s: %s\n", pad, kv.k, yamlScalar(c))
			}
		}
	case yamlList:
		for _, e := range v {
			switch c := e.(type) {
			case yamlMap:
				// "- " then the map's first key on the same line.
				var sub strings.Builder
				writeYAML(&sub, c, indent+1)
				s := sub.String()
				s = pad + "- " + strings.TrimPrefix(s, pad+"  ")
				b.WriteString(s)
			case yamlList:
				fmt.Fprintf(b, "%s-\n", pad)
				writeYAML(b, c, indent+1)
			default:
				fmt.Fprintf(b, "%s- %s\n", pad, yamlScalar(c))
			}
		}
	default:
		fmt.Fprintf(b, "%s%s\n", pad, yamlScalar(v))
	}
}
