package kernel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/conclab/conclab/internal/symbols"
	"github.com/conclab/conclab/kernel"
	"github.com/conclab/conclab/kernel/eval"
	"github.com/conclab/conclab/kernel/wire"
)

// TestMain makes the test binary the kernels' crash watcher when Start
// re-executes it as one.
func TestMain(m *testing.M) {
	if code, ok := kernel.CrashWatchMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// labSymbols are the lab's packages, as cmd/conclab links them in.
var labSymbols = eval.Symbols{Packages: symbols.Symbols, Docs: symbols.Docs}

func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

func testConn(t testing.TB) kernel.ConnectionInfo {
	p := freePorts(t, 5)
	return kernel.ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", ShellPort: p[0], IOPubPort: p[1],
		StdinPort: p[2], ControlPort: p[3], HBPort: p[4], SignatureScheme: "hmac-sha256", Key: "test-key"}
}

// client is a minimal Jupyter client over zmq4.
type client struct {
	t                     testing.TB
	signer                *wire.Signer
	shell, control, stdin zmq4.Socket
	iopub                 zmq4.Socket
	ctx                   context.Context
	cancel                context.CancelFunc
	iopubCh               chan *wire.Msg
	shellCh, controlCh    chan *wire.Msg
	session               string
}

func dial(t testing.TB, ci kernel.ConnectionInfo) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s, _ := wire.NewSigner(ci.SignatureScheme, ci.Key)
	c := &client{t: t, signer: s, ctx: ctx, cancel: cancel, session: wire.NewID(),
		iopubCh: make(chan *wire.Msg, 1000), shellCh: make(chan *wire.Msg, 100), controlCh: make(chan *wire.Msg, 100)}
	id := zmq4.SocketIdentity(c.session)
	c.shell = zmq4.NewDealer(ctx, zmq4.WithID(id))
	c.control = zmq4.NewDealer(ctx, zmq4.WithID(id))
	c.stdin = zmq4.NewDealer(ctx, zmq4.WithID(id))
	c.iopub = zmq4.NewSub(ctx)
	ep := func(p int) string { return fmt.Sprintf("tcp://127.0.0.1:%d", p) }
	for _, d := range []struct {
		s zmq4.Socket
		p int
	}{{c.shell, ci.ShellPort}, {c.control, ci.ControlPort}, {c.stdin, ci.StdinPort}, {c.iopub, ci.IOPubPort}} {
		if err := d.s.Dial(ep(d.p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.iopub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	pump := func(s zmq4.Socket, ch chan *wire.Msg) {
		for {
			m, err := s.Recv()
			if err != nil {
				return
			}
			msg, err := wire.Decode(m.Frames, c.signer)
			if err != nil {
				continue
			}
			select {
			case ch <- msg:
			case <-ctx.Done():
				return
			}
		}
	}
	go pump(c.iopub, c.iopubCh)
	go pump(c.shell, c.shellCh)
	go pump(c.control, c.controlCh)
	t.Cleanup(c.close)
	return c
}

func (c *client) close() {
	c.cancel()
	for _, s := range []zmq4.Socket{c.shell, c.control, c.stdin, c.iopub} {
		s.Close()
	}
}

func (c *client) send(s zmq4.Socket, t wire.MsgType, content any, signer *wire.Signer) string {
	c.t.Helper()
	m, err := wire.NewReply(nil, t, c.session, content)
	if err != nil {
		c.t.Fatal(err)
	}
	frames, err := wire.Encode(m, signer)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := s.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatal(err)
	}
	return m.Header.MsgID
}

func (c *client) wait(ch chan *wire.Msg, id string, typ wire.MsgType, timeout time.Duration) *wire.Msg {
	c.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case m := <-ch:
			if m.ParentHeader.MsgID == id && m.Header.MsgType == typ {
				return m
			}
		case <-deadline:
			c.t.Fatalf("no %s for %s within %v", typ, id, timeout)
			return nil
		}
	}
}

// ready waits until iopub delivers (the subscription is up) by sending
// kernel_info requests until a status for one of them arrives.
func (c *client) ready() {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		id := c.send(c.shell, wire.KernelInfoRequest, map[string]any{}, c.signer)
		c.wait(c.shellCh, id, wire.KernelInfoReply, 5*time.Second)
		t := time.After(300 * time.Millisecond)
	loop:
		for {
			select {
			case m := <-c.iopubCh:
				if m.ParentHeader.MsgID == id {
					return
				}
			case <-t:
				break loop
			}
		}
	}
	c.t.Fatal("iopub never connected")
}

type execResult struct {
	reply  map[string]any
	iopub  []*wire.Msg
	stdout string
}

func (c *client) execute(code string, timeout time.Duration) execResult {
	c.t.Helper()
	id := c.send(c.shell, wire.ExecuteRequest, map[string]any{"code": code, "silent": false, "store_history": true,
		"user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true}, c.signer)
	return c.collect(id, timeout)
}

func (c *client) collect(id string, timeout time.Duration) execResult {
	c.t.Helper()
	var r execResult
	rep := c.wait(c.shellCh, id, wire.ExecuteReply, timeout)
	if err := json.Unmarshal(rep.Content, &r.reply); err != nil {
		c.t.Fatal(err)
	}
	deadline := time.After(timeout)
	for {
		select {
		case m := <-c.iopubCh:
			if m.ParentHeader.MsgID != id {
				continue
			}
			r.iopub = append(r.iopub, m)
			if m.Header.MsgType == wire.Stream {
				var s struct{ Name, Text string }
				_ = json.Unmarshal(m.Content, &s)
				if s.Name == "stdout" {
					r.stdout += s.Text
				}
			}
			if m.Header.MsgType == wire.Status && strings.Contains(string(m.Content), `"idle"`) {
				return r
			}
		case <-deadline:
			c.t.Fatalf("no idle status for %s", id)
		}
	}
}

func startKernel(t testing.TB) (*kernel.Kernel, kernel.ConnectionInfo, *client) {
	t.Helper()
	ci := testConn(t)
	ctx, cancel := context.WithCancel(context.Background())
	k, err := kernel.Start(ctx, ci, kernel.Options{Dir: t.TempDir(), Symbols: labSymbols})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { k.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	c := dial(t, ci)
	c.ready()
	return k, ci, c
}

// The kernel tests share the process (the kernel captures os.Stdout and
// installs the display publisher), so they are not parallel.

func TestExecuteFlow(t *testing.T) {
	_, _, c := startKernel(t)
	r := c.execute("x := 41\nfmt.Println(\"hello\")\nx + 1", 10*time.Second)
	if r.reply["status"] != "ok" || r.reply["execution_count"] != 1.0 {
		t.Fatalf("reply = %v", r.reply)
	}
	var types []string
	for _, m := range r.iopub {
		types = append(types, string(m.Header.MsgType))
	}
	want := "status execute_input stream execute_result status"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("iopub sequence = %q; want %q", got, want)
	}
	if r.stdout != "hello\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	if !strings.Contains(string(r.iopub[3].Content), `"text/plain":"42"`) {
		t.Errorf("execute_result = %s", r.iopub[3].Content)
	}
}

func TestForgedExecuteRequestNeverRuns(t *testing.T) {
	_, ci, c := startKernel(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	code := fmt.Sprintf("os.WriteFile(%q, []byte(\"x\"), 0o644)", marker)
	wrong, _ := wire.NewSigner("hmac-sha256", "not-the-key")
	none := &wire.Signer{}
	content := map[string]any{"code": code, "silent": false}
	c.send(c.shell, wire.ExecuteRequest, content, wrong)
	c.send(c.shell, wire.ExecuteRequest, content, none)
	c.send(c.control, wire.ExecuteRequest, content, wrong)
	// A correctly signed message whose content is swapped after signing.
	m, _ := wire.NewReply(nil, wire.ExecuteRequest, c.session, map[string]any{"code": "1", "silent": false})
	frames, _ := wire.Encode(m, c.signer)
	b, _ := json.Marshal(content)
	frames[len(frames)-1] = b
	if err := c.shell.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		t.Fatal(err)
	}
	// Garbage frames must not crash the kernel either.
	_ = c.shell.SendMulti(zmq4.NewMsgFrom([]byte("junk"), []byte{0xff}))
	_ = c.shell.SendMulti(zmq4.NewMsgFrom([]byte(wire.Delimiter), []byte("sig"), []byte("{"), []byte("{}"), []byte("{}"), []byte("{}")))
	// The kernel is alive and handled none of them: the next real request
	// gets execution_count 1.
	r := c.execute("1", 10*time.Second)
	if r.reply["execution_count"] != 1.0 {
		t.Errorf("execution_count after forged requests = %v; want 1", r.reply["execution_count"])
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("forged execute_request ran: %s exists (err %v)", marker, err)
	}
	_ = ci
}

func TestInterruptAndStateKept(t *testing.T) {
	_, _, c := startKernel(t)
	c.execute("state := 41", 10*time.Second)
	labRun := `import (
	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/kernel/cell"
)
blocked, _ := bench.Presets("/async-block")
bench.Run(cell.Context(), bench.Experiment{Strategies: blocked, Workload: bench.Steps(bench.Sleep(time.Second)), Load: load.Burst{N: 20}})`
	for _, code := range []string{"n := 0\nfor { n++ }", "time.Sleep(time.Hour)", labRun} {
		id := c.send(c.shell, wire.ExecuteRequest, map[string]any{"code": code, "silent": false}, c.signer)
		time.Sleep(300 * time.Millisecond)
		t0 := time.Now()
		iid := c.send(c.control, wire.InterruptRequest, map[string]any{}, c.signer)
		c.wait(c.controlCh, iid, wire.InterruptReply, 5*time.Second)
		r := c.collect(id, 5*time.Second)
		if el := time.Since(t0); el > time.Second {
			t.Errorf("%q: idle %v after interrupt; want <= 1s", code, el)
		}
		if r.reply["status"] != "error" || r.reply["ename"] != "Interrupted" {
			t.Errorf("%q: reply %v; want an Interrupted error", code, r.reply)
		}
	}
	r := c.execute("state + 1", 10*time.Second)
	if !strings.Contains(string(r.iopub[len(r.iopub)-2].Content), `"42"`) {
		t.Errorf("state after interrupts: %s", r.iopub[len(r.iopub)-2].Content)
	}
}

// Code sent on control is refused (control stays free for interrupts), and
// an interrupt still reaches the cell running on shell.
func TestExecuteOnControlRefused(t *testing.T) {
	_, _, c := startKernel(t)
	id := c.send(c.shell, wire.ExecuteRequest, map[string]any{"code": "fmt.Println(\"started\")\ntime.Sleep(time.Hour)", "silent": false}, c.signer)
	c.wait(c.iopubCh, id, wire.Stream, 10*time.Second) // the cell runs
	cid := c.send(c.control, wire.ExecuteRequest, map[string]any{"code": "1 + 1", "silent": false}, c.signer)
	rep := c.wait(c.controlCh, cid, wire.ExecuteReply, 5*time.Second)
	var content map[string]any
	if err := json.Unmarshal(rep.Content, &content); err != nil {
		t.Fatal(err)
	}
	if content["status"] != "error" || !strings.Contains(fmt.Sprint(content["evalue"]), "control") {
		t.Errorf("execute_request on control: reply %v; want an error naming the channel", content)
	}
	iid := c.send(c.control, wire.InterruptRequest, map[string]any{}, c.signer)
	c.wait(c.controlCh, iid, wire.InterruptReply, 5*time.Second)
	r := c.collect(id, 5*time.Second)
	if r.reply["ename"] != "Interrupted" {
		t.Errorf("shell cell after the refused control request: reply %v; want Interrupted", r.reply)
	}
}

func TestPanicRecovery(t *testing.T) {
	_, _, c := startKernel(t)
	c.execute("kept := \"yes\"", 10*time.Second)
	r := c.execute("var m map[string]int\nm[\"a\"] = 1", 10*time.Second)
	if r.reply["status"] != "error" || r.reply["ename"] != "panic" || !strings.Contains(fmt.Sprint(r.reply["evalue"]), "line 2") {
		t.Errorf("panic reply = %v", r.reply)
	}
	r = c.execute("kept", 10*time.Second)
	if r.reply["status"] != "ok" {
		t.Errorf("after panic: %v", r.reply)
	}
}

func TestThousandExecutesNoGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	_, _, c := startKernel(t)
	for i := 0; i < 50; i++ {
		c.execute("fmt.Print(\"\")\n1", 10*time.Second)
	}
	runtime.GC()
	g0, f0 := runtime.NumGoroutine(), fds(t)
	for i := 0; i < 1000; i++ {
		r := c.execute("fmt.Print(\".\")\n1", 10*time.Second)
		if r.reply["status"] != "ok" {
			t.Fatalf("execute %d: %v", i, r.reply)
		}
	}
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	if g := runtime.NumGoroutine(); g > g0+3 {
		t.Errorf("goroutines %d -> %d over 1000 executes", g0, g)
	}
	if f := fds(t); f > f0+3 {
		t.Errorf("open files %d -> %d over 1000 executes", f0, f)
	}
}

func fds(t testing.TB) int {
	e, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(e)
}

func TestShutdownWhileRunning(t *testing.T) {
	ci := testConn(t)
	k, err := kernel.Start(context.Background(), ci, kernel.Options{Symbols: labSymbols})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { k.Run(context.Background()); close(done) }()
	c := dial(t, ci)
	c.ready()
	c.send(c.shell, wire.ExecuteRequest, map[string]any{"code": "for {}"}, c.signer)
	time.Sleep(200 * time.Millisecond)
	id := c.send(c.control, wire.ShutdownRequest, map[string]any{"restart": false}, c.signer)
	c.wait(c.controlCh, id, wire.ShutdownReply, 5*time.Second)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("kernel did not stop after shutdown_request")
	}
}

func TestConnectionFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"transport":"tcp","ip":"127.0.0.1","shell_port":1,"iopub_port":2,"stdin_port":3,"control_port":4,"hb_port":5,"signature_scheme":"hmac-sha256","key":"k"}`
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.json"), "does not exist"},
		{"not json", write("bad.json", "{not json", 0o644), "not valid JSON"},
		{"scheme", write("scheme.json", strings.Replace(good, "hmac-sha256", "hmac-md5", 1), 0o644), "unsupported signature_scheme"},
		{"port", write("port.json", strings.Replace(good, `"hb_port":5`, `"hb_port":0`, 1), 0o644), "hb_port"},
		{"transport", write("ipc.json", strings.Replace(good, `"tcp"`, `"ipc"`, 1), 0o644), "transport"},
	}
	if os.Geteuid() != 0 {
		tests = append(tests, struct{ name, path, want string }{"unreadable", write("unreadable.json", good, 0o000), "not readable"})
	}
	for _, tt := range tests {
		_, err := kernel.ReadConnectionFile(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v; want it to mention %q", tt.name, err, tt.want)
		}
	}
	if _, err := kernel.ReadConnectionFile(write("good.json", good, 0o644)); err != nil {
		t.Errorf("good file: %v", err)
	}
}

func TestPortInUse(t *testing.T) {
	ci := testConn(t)
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", ci.ShellPort))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = kernel.Start(context.Background(), ci, kernel.Options{Symbols: labSymbols})
	if err == nil || !strings.Contains(err.Error(), "shell port") {
		t.Errorf("Start with shell port in use: %v; want an error naming the shell port", err)
	}
}

func TestLogoAndSpec(t *testing.T) {
	for _, n := range []int{32, 64} {
		b, err := kernel.Logo(n)
		if err != nil || len(b) < 8 || string(b[1:4]) != "PNG" {
			t.Errorf("Logo(%d) = %d bytes, %v", n, len(b), err)
		}
	}
	dir := t.TempDir()
	kd, err := kernel.Install("/usr/local/bin/conclab", kernel.Where{Prefix: dir})
	if err != nil {
		t.Fatal(err)
	}
	var spec kernel.Spec
	b, _ := os.ReadFile(filepath.Join(kd, "kernel.json"))
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.InterruptMode != "message" || spec.Argv[0] != "/usr/local/bin/conclab" || spec.Argv[2] != "{connection_file}" || spec.DisplayName != "Go (conclab)" ||
		spec.KernelProtocolVersion != wire.ProtocolVersion {
		t.Errorf("spec = %+v", spec)
	}
	if _, err := kernel.Install("relative/conclab", kernel.Where{Prefix: dir}); err == nil {
		t.Error("Install with a relative binary path: want error")
	}
}

func TestStopOnErrorAbortsQueued(t *testing.T) {
	_, _, c := startKernel(t)
	marker := filepath.Join(t.TempDir(), "ran")
	fail := c.send(c.shell, wire.ExecuteRequest, map[string]any{"code": "time.Sleep(200 * time.Millisecond)\npanic(\"stop\")", "stop_on_error": true}, c.signer)
	queued := c.send(c.shell, wire.ExecuteRequest, map[string]any{"code": fmt.Sprintf("os.WriteFile(%q, nil, 0o644)", marker), "stop_on_error": true}, c.signer)
	if r := c.collect(fail, 10*time.Second); r.reply["status"] != "error" {
		t.Fatalf("failing cell: %v", r.reply)
	}
	if r := c.collect(queued, 10*time.Second); r.reply["status"] != "aborted" {
		t.Errorf("queued cell after an error: %v; want aborted", r.reply)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the aborted cell ran")
	}
	// Later requests run normally.
	if r := c.execute("1", 10*time.Second); r.reply["status"] != "ok" {
		t.Errorf("after abort: %v", r.reply)
	}
}

func TestHeartbeatEchoes(t *testing.T) {
	_, ci, _ := startKernel(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := zmq4.NewReq(ctx)
	defer req.Close()
	if err := req.Dial(fmt.Sprintf("tcp://127.0.0.1:%d", ci.HBPort)); err != nil {
		t.Fatal(err)
	}
	for _, ping := range []string{"ping", "\x00binary\xff"} {
		if err := req.Send(zmq4.NewMsgString(ping)); err != nil {
			t.Fatal(err)
		}
		m, err := req.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if string(m.Bytes()) != ping {
			t.Errorf("heartbeat echoed %q; want %q", m.Bytes(), ping)
		}
	}
}

func TestKernelInfoAndBusyIdleOnControl(t *testing.T) {
	_, _, c := startKernel(t)
	id := c.send(c.control, wire.KernelInfoRequest, map[string]any{}, c.signer)
	rep := c.wait(c.controlCh, id, wire.KernelInfoReply, 5*time.Second)
	var info struct {
		Status            string    `json:"status"`
		ProtocolVersion   string    `json:"protocol_version"`
		Implementation    string    `json:"implementation"`
		SupportedFeatures *[]string `json:"supported_features"`
		LanguageInfo      struct {
			Name, Mimetype, FileExtension string
			PygmentsLexer                 string `json:"pygments_lexer"`
			CodemirrorMode                string `json:"codemirror_mode"`
		} `json:"language_info"`
	}
	if err := json.Unmarshal(rep.Content, &info); err != nil {
		t.Fatal(err)
	}
	if info.Status != "ok" || info.ProtocolVersion != wire.ProtocolVersion || info.Implementation != "conclab" ||
		info.LanguageInfo.Name != "go" || info.LanguageInfo.Mimetype != "text/x-go" ||
		info.LanguageInfo.PygmentsLexer != "go" || info.LanguageInfo.CodemirrorMode != "go" ||
		info.SupportedFeatures == nil {
		t.Errorf("kernel_info = %s", rep.Content)
	}
	var states []string
	deadline := time.After(2 * time.Second)
	for len(states) < 2 {
		select {
		case m := <-c.iopubCh:
			if m.ParentHeader.MsgID == id && m.Header.MsgType == wire.Status {
				var s struct {
					ExecutionState string `json:"execution_state"`
				}
				_ = json.Unmarshal(m.Content, &s)
				states = append(states, s.ExecutionState)
			}
		case <-deadline:
			t.Fatalf("status messages for a control request: %v; want busy, idle", states)
		}
	}
	if states[0] != "busy" || states[1] != "idle" {
		t.Errorf("states = %v; want [busy idle]", states)
	}
}

func TestExecutionCountRules(t *testing.T) {
	_, _, c := startKernel(t)
	run := func(content map[string]any) execResult {
		t.Helper()
		return c.collect(c.send(c.shell, wire.ExecuteRequest, content, c.signer), 10*time.Second)
	}
	count := func(r execResult) float64 { return r.reply["execution_count"].(float64) }
	if r := run(map[string]any{"code": "1"}); count(r) != 1 {
		t.Fatalf("first count = %v", count(r))
	}
	r := run(map[string]any{"code": "2", "silent": true})
	if count(r) != 1 {
		t.Errorf("silent execute changed the count to %v", count(r))
	}
	for _, m := range r.iopub {
		if m.Header.MsgType == wire.ExecuteInput || m.Header.MsgType == wire.ExecuteResult {
			t.Errorf("silent execute published %s", m.Header.MsgType)
		}
	}
	if r := run(map[string]any{"code": "3", "store_history": false}); count(r) != 1 {
		t.Errorf("store_history=false changed the count to %v", count(r))
	}
	if r := run(map[string]any{"code": "4"}); count(r) != 2 {
		t.Errorf("next count = %v; want 2", count(r))
	}
	r = run(map[string]any{"code": "x := 6", "user_expressions": map[string]any{"double": "x * 2"}})
	ue, _ := r.reply["user_expressions"].(map[string]any)
	d, _ := ue["double"].(map[string]any)
	if d["status"] != "ok" || !strings.Contains(fmt.Sprint(d["data"]), "12") {
		t.Errorf("user_expressions = %v", r.reply["user_expressions"])
	}
}

func TestMalformedContentGetsErrorReply(t *testing.T) {
	_, _, c := startKernel(t)
	for _, typ := range []wire.MsgType{wire.ExecuteRequest, wire.CompleteRequest, wire.InspectRequest, wire.IsCompleteRequest, wire.HistoryRequest} {
		id := c.send(c.shell, typ, map[string]any{"code": 5, "cursor_pos": "x", "n": "y"}, c.signer)
		rep := c.wait(c.shellCh, id, typ.Reply(), 5*time.Second)
		if !strings.Contains(string(rep.Content), `"status":"error"`) {
			t.Errorf("%s with bad content: reply %s; want an error reply", typ, rep.Content)
		}
	}
	id := c.send(c.shell, "no_such_request", map[string]any{}, c.signer)
	if rep := c.wait(c.shellCh, id, "no_such_reply", 5*time.Second); !strings.Contains(string(rep.Content), "not supported") {
		t.Errorf("unknown request: %s", rep.Content)
	}
	if r := c.execute("1 + 1", 5*time.Second); r.reply["status"] != "ok" {
		t.Errorf("kernel unusable after malformed requests: %v", r.reply)
	}
}

// Every failed execute publishes an error output on iopub (ename, evalue,
// traceback) besides its error reply: a compile error naming an undefined
// identifier in a fresh kernel, malformed content, an execute_request on
// control.
func TestFailedExecutePublishesError(t *testing.T) {
	_, _, c := startKernel(t)
	r := c.execute("fmt.Println(undefinedThing)", 10*time.Second)
	var errs []map[string]any
	for _, m := range r.iopub {
		if m.Header.MsgType == wire.ExecuteError {
			var e map[string]any
			if err := json.Unmarshal(m.Content, &e); err != nil {
				t.Fatal(err)
			}
			errs = append(errs, e)
		}
	}
	want := "cell line 1: undefined: undefinedThing"
	if r.reply["status"] != "error" || r.reply["evalue"] != want || len(errs) != 1 || errs[0]["evalue"] != want || errs[0]["ename"] != "CompileError" {
		t.Errorf("undefined name: reply %v, iopub errors %v; want both %q", r.reply, errs, want)
	}
	for _, ch := range []struct {
		name    string
		content map[string]any
	}{{"shell", map[string]any{"code": 5}}, {"control", map[string]any{"code": "1 + 1"}}} {
		sock := c.shell
		if ch.name == "control" {
			sock = c.control
		}
		id := c.send(sock, wire.ExecuteRequest, ch.content, c.signer)
		e := c.wait(c.iopubCh, id, wire.ExecuteError, 5*time.Second)
		if !strings.Contains(string(e.Content), `"ename":"BadRequest"`) || !strings.Contains(string(e.Content), `"traceback":["BadRequest: `) {
			t.Errorf("execute_request refused on %s: iopub error %s; want a BadRequest error output", ch.name, e.Content)
		}
	}
}
