// Package kernel is conclab's Jupyter kernel: it speaks the Jupyter
// messaging protocol (5.5) over ZeroMQ (github.com/go-zeromq/zmq4, pure Go)
// and runs cells in an eval.Session.
//
// Sockets: heartbeat echoes; shell requests are handled one at a time (an
// execute blocks later shell requests, as the protocol expects); control is
// served by its own goroutine, so interrupt_request, shutdown_request and
// kernel_info_request work while a cell runs (a page reconnecting to a busy
// kernel learns what it is talking to at once); stdin carries input_request
// when a cell reads os.Stdin; comm traffic (comm.go, package kernel/comm)
// and kernel subshells (subshell.go) are served beside the cells, each on
// a goroutine of its own; iopub (an XPUB socket, iopub.go) carries
// iopub_welcome, status (busy/idle around every request, with the request
// as parent), execute_input, streams (sent while the cell runs), results,
// display data and errors.
//
// Every incoming message's HMAC-SHA256 is verified in constant time with the
// connection key; a message that fails is logged and dropped, never handled.
// Sockets bind only to the connection file's ip.
package kernel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/go-zeromq/zmq4"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
	"github.com/conclab/conclab/kernel/cellout"
	"github.com/conclab/conclab/kernel/comm"
	"github.com/conclab/conclab/kernel/eval"
	"github.com/conclab/conclab/kernel/wire"
)

// Options configure a kernel.
type Options struct {
	// Log receives the kernel's own diagnostics (dropped messages, socket
	// errors). Nil discards them.
	Log io.Writer
	// Dir is the working directory of the eval session ("" keeps the current).
	Dir string
	// Version is reported as implementation_version.
	Version string
	// NoCrashWatch disables the crash watcher (see crash.go): a Go fatal
	// error then ends the process with the runtime's report only.
	NoCrashWatch bool
	// Symbols are the packages linked into the interpreter besides the
	// standard library (see eval.Symbols); the command passes its tables.
	Symbols eval.Symbols
}

// Kernel is a running kernel. Create it with Start, then call Run.
type Kernel struct {
	ci      ConnectionInfo
	signer  *wire.Signer
	session string
	opts    Options
	log     *log.Logger

	shell, control, stdin, iopub, hb zmq4.Socket
	sockCtx                          context.Context
	sockStop                         context.CancelFunc

	ev             *eval.Session
	restorePublish func()
	crash          *crashNotes // nil without a crash watcher
	prevCrash      string      // the crash report of the previous kernel on this connection

	pubMu sync.Mutex // serialises iopub sends
	// statusMu orders the status messages around the running execute
	// (running) and the requests served beside it (status.go).
	statusMu sync.Mutex
	running  *wire.Msg
	// topics is how many IOPub topics have a subscriber, as the
	// subscription watcher last saw (iopub.go).
	topics atomic.Int32

	mu         sync.Mutex
	parent     *wire.Msg // request whose output is being produced
	allowStdin bool
	cancelCell context.CancelFunc
	count      int
	history    []histEntry
	histSess   int
	// abortPending is set when a cell failed with stop_on_error.
	abortPending bool
	abortBefore  time.Time

	stdinMsgs chan *wire.Msg
	// commQ holds comm traffic sent without a subshell_id (comm.go);
	// subshells are the JEP 91 subshells by id (subshell.go).
	commQ     chan *wire.Msg
	subMu     sync.Mutex
	subshells map[string]*subshell
	// execMu lets one execute_request run at a time (the main shell's or
	// a subshell's).
	execMu       sync.Mutex
	restoreComm  func()
	restoreFlush func()

	done      chan struct{}
	doneOnce  sync.Once
	closeOnce sync.Once
	wg        sync.WaitGroup
}

type histEntry struct {
	line   int
	input  string
	output string
}

// Start validates the connection, binds the five sockets and starts an eval
// session. The caller must call Run (which closes everything when it returns)
// or Close.
func Start(ctx context.Context, ci ConnectionInfo, opts Options) (*Kernel, error) {
	if err := ci.Validate(); err != nil {
		return nil, err
	}
	signer, err := wire.NewSigner(ci.SignatureScheme, ci.Key)
	if err != nil {
		return nil, err
	}
	if err := ci.checkPorts(); err != nil {
		return nil, err
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	k := &Kernel{
		ci: ci, signer: signer, session: wire.NewID(), opts: opts,
		log:       log.New(logw, "conclab kernel: ", log.LstdFlags),
		stdinMsgs: make(chan *wire.Msg, 4),
		commQ:     make(chan *wire.Msg, subshellQueue),
		done:      make(chan struct{}),
		histSess:  int(time.Now().Unix() % 1_000_000),
	}
	k.sockCtx, k.sockStop = context.WithCancel(context.WithoutCancel(ctx))
	zl := log.New(logw, "zmq4: ", log.LstdFlags)
	k.shell = zmq4.NewRouter(k.sockCtx, zmq4.WithLogger(zl))
	k.control = zmq4.NewRouter(k.sockCtx, zmq4.WithLogger(zl))
	k.stdin = zmq4.NewRouter(k.sockCtx, zmq4.WithLogger(zl))
	k.iopub = zmq4.NewXPub(k.sockCtx, zmq4.WithLogger(zl))
	k.hb = zmq4.NewRep(k.sockCtx, zmq4.WithLogger(zl))
	for _, b := range []struct {
		name string
		s    zmq4.Socket
		port int
	}{{"shell", k.shell, ci.ShellPort}, {"control", k.control, ci.ControlPort}, {"stdin", k.stdin, ci.StdinPort},
		{"iopub", k.iopub, ci.IOPubPort}, {"hb", k.hb, ci.HBPort}} {
		if err := b.s.Listen(ci.endpoint(b.port)); err != nil {
			k.closeSockets()
			return nil, fmt.Errorf("%s port %d on %s: %v", b.name, b.port, ci.IP, unwrapAll(err))
		}
	}
	if !opts.NoCrashWatch {
		report := crashReportPath(ci)
		k.prevCrash = takeCrashReport(report)
		if k.crash, err = startCrashWatch(report, os.Stderr); err != nil {
			k.log.Printf("%v (fatal errors are reported by the Go runtime only)", err)
		}
	}
	k.ev, err = eval.New(eval.Options{
		Stdout:               &streamWriter{k: k, name: "stdout"},
		Stderr:               &streamWriter{k: k, name: "stderr"},
		Dir:                  opts.Dir,
		Input:                k.input,
		CaptureProcessOutput: true,
		OwnProcess:           true,
		Symbols:              opts.Symbols,
	})
	if err != nil {
		k.crash.close()
		k.closeSockets()
		return nil, err
	}
	k.restorePublish = display.SetPublisher(publisher{k})
	k.restoreComm = comm.SetTransport(commTransport{k})
	k.restoreFlush = display.SetFlusher(k.ev.Flush)
	return k, nil
}

func unwrapAll(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}

// Run serves the sockets until ctx is done or a shutdown_request arrives,
// then closes the kernel. It returns nil on a requested shutdown.
func (k *Kernel) Run(ctx context.Context) error {
	// No "starting" status: nobody is subscribed yet, and a subscriber's
	// first message is its iopub_welcome (iopub.go).
	go k.watchSubscriptions()
	k.wg.Add(6)
	go k.serveHeartbeat()
	go k.serveComms()
	go k.serve(k.control, "control")
	shellQ := make(chan queued, 1024)
	go k.readShell(shellQ)
	go k.serveShell(shellQ)
	go k.serveStdin()
	select {
	case <-ctx.Done():
	case <-k.done:
	}
	k.Close()
	return nil
}

// Close stops the kernel: the running cell is cancelled, sockets and the
// session are closed. Safe to call twice.
func (k *Kernel) Close() error {
	k.closeOnce.Do(func() {
		k.Interrupt()
		k.doneOnce.Do(func() { close(k.done) })
		if k.restorePublish != nil {
			k.restorePublish()
			k.restoreComm()
			k.restoreFlush()
		}
		// Give the last replies a moment to leave before closing sockets.
		time.Sleep(50 * time.Millisecond)
		k.closeSockets()
		if k.ev != nil {
			k.ev.Close()
		}
		k.crash.close()
		waitTimeout(&k.wg, 2*time.Second)
	})
	return nil
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) {
	c := make(chan struct{})
	go func() { wg.Wait(); close(c) }()
	select {
	case <-c:
	case <-time.After(d):
	}
}

func (k *Kernel) closeSockets() {
	for _, s := range []zmq4.Socket{k.shell, k.control, k.stdin, k.iopub, k.hb} {
		if s != nil {
			s.Close()
		}
	}
	k.sockStop()
}

// Interrupt cancels the running cell, if any (interrupt_request, SIGINT),
// and tells the work started outside cells (cell.OnInterrupt: a widget's
// run).
func (k *Kernel) Interrupt() {
	k.mu.Lock()
	c := k.cancelCell
	k.mu.Unlock()
	if c != nil {
		c()
	}
	cell.Interrupted()
}

// Done is closed when the kernel stops.
func (k *Kernel) Done() <-chan struct{} { return k.done }

func (k *Kernel) stopping() bool {
	select {
	case <-k.done:
		return true
	default:
		return false
	}
}

func (k *Kernel) serveHeartbeat() {
	defer k.wg.Done()
	for {
		m, err := k.hb.Recv()
		if err != nil {
			if k.stopping() {
				return
			}
			k.log.Printf("heartbeat recv: %v", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err := k.hb.Send(m); err != nil && !k.stopping() {
			k.log.Printf("heartbeat send: %v", err)
		}
	}
}

// recv reads and verifies one message; bad messages are logged and nil.
func (k *Kernel) recv(s zmq4.Socket, name string) (*wire.Msg, error) {
	zm, err := s.Recv()
	if err != nil {
		return nil, err
	}
	m, err := wire.Decode(zm.Frames, k.signer)
	if err != nil {
		if errors.Is(err, wire.ErrBadSignature) {
			k.log.Printf("%s: dropped a message with an invalid signature", name)
		} else {
			k.log.Printf("%s: dropped a malformed message: %v", name, err)
		}
		return nil, nil
	}
	return m, nil
}

func (k *Kernel) serve(s zmq4.Socket, name string) {
	defer k.wg.Done()
	for {
		m, err := k.recv(s, name)
		if err != nil {
			if k.stopping() {
				return
			}
			k.log.Printf("%s recv: %v", name, err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if m == nil {
			continue
		}
		k.handle(s, name, m)
		if k.stopping() {
			return
		}
	}
}

// readShell queues verified shell requests, so that after a failed cell
// the requests already sent can be aborted (stop_on_error).
func (k *Kernel) readShell(q chan<- queued) {
	defer k.wg.Done()
	defer close(q)
	for {
		m, err := k.recv(k.shell, "shell")
		if err != nil {
			if k.stopping() {
				return
			}
			k.log.Printf("shell recv: %v", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if m == nil {
			continue
		}
		// Subshell traffic and comm traffic are served apart from the
		// cells (subshell.go, comm.go).
		if id := m.Header.SubshellID; id != nil && *id != "" {
			k.toSubshell(*id, m)
			continue
		}
		if isComm(m.Header.MsgType) {
			select {
			case k.commQ <- m:
			case <-k.done:
				return
			}
			continue
		}
		select {
		case q <- queued{m: m, at: time.Now()}:
		case <-k.done:
			return
		}
	}
}

// queued is a shell request and when it arrived.
type queued struct {
	m  *wire.Msg
	at time.Time
}

func (k *Kernel) serveShell(q <-chan queued) {
	defer k.wg.Done()
	for it := range q {
		k.handle(k.shell, "shell", it.m)
		if k.stopping() {
			return
		}
		if cutoff, ok := k.takeAbort(); ok {
			k.abortQueued(q, cutoff)
		}
	}
}

// abortQueued answers the execute requests that arrived before cutoff (the
// end of a cell that failed with stop_on_error) with status "aborted",
// without running them, as ipykernel does for the requests already queued.
// Other requests are handled normally; it returns at the first request that
// arrived after cutoff (handled normally) or when the queue is empty.
func (k *Kernel) abortQueued(q <-chan queued, cutoff time.Time) {
	for {
		select {
		case it, ok := <-q:
			if !ok {
				return
			}
			m := it.m
			if it.at.After(cutoff) {
				k.handle(k.shell, "shell", m)
				if c, again := k.takeAbort(); again {
					cutoff = c
					continue
				}
				return
			}
			if m.Header.MsgType != wire.ExecuteRequest {
				k.handle(k.shell, "shell", m)
				continue
			}
			k.publishStatus(m, "busy")
			k.mu.Lock()
			count := k.count
			k.mu.Unlock()
			k.reply(k.shell, m, map[string]any{"status": "aborted", "execution_count": count})
			k.publishStatus(m, "idle")
		default:
			return
		}
	}
}

func (k *Kernel) takeAbort() (cutoff time.Time, ok bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	cutoff, ok = k.abortBefore, k.abortPending
	k.abortPending = false
	return cutoff, ok
}

func (k *Kernel) serveStdin() {
	defer k.wg.Done()
	for {
		m, err := k.recv(k.stdin, "stdin")
		if err != nil {
			if k.stopping() {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if m == nil || m.Header.MsgType != wire.InputReply {
			continue
		}
		select {
		case k.stdinMsgs <- m:
		default:
			k.log.Printf("stdin: dropped an unexpected input_reply")
		}
	}
}

// handle dispatches one request, wrapped in busy/idle status.
func (k *Kernel) handle(s zmq4.Socket, channel string, m *wire.Msg) {
	if !m.Header.MsgType.IsRequest() {
		k.log.Printf("%s: ignored %s", channel, m.Header.MsgType)
		return
	}
	k.beginStatus(m, m.Header.MsgType == wire.ExecuteRequest && channel != "control")
	defer func() {
		if r := recover(); r != nil {
			// A bug in the kernel must not leave the client waiting forever.
			k.log.Printf("%s: internal error handling %s: %v", channel, m.Header.MsgType, r)
			k.reply(s, m, map[string]any{"status": "error", "ename": "KernelError",
				"evalue": fmt.Sprint(r), "traceback": []string{fmt.Sprint(r)}})
		}
		k.endStatus(m)
	}()
	switch m.Header.MsgType {
	case wire.KernelInfoRequest:
		k.reply(s, m, k.kernelInfo())
	case wire.ExecuteRequest:
		if channel == "control" {
			// Control must stay free for interrupt and shutdown; code runs on shell.
			k.replyError(s, m, "BadRequest", errors.New("execute_request on the control channel is not served: send it on shell"))
			return
		}
		k.execute(s, m)
	case wire.CompleteRequest:
		k.complete(s, m)
	case wire.InspectRequest:
		k.inspect(s, m)
	case wire.IsCompleteRequest:
		var c struct {
			Code string `json:"code"`
		}
		if err := m.Decode(&c); err != nil {
			k.replyError(s, m, "BadRequest", err)
			return
		}
		status, indent := eval.IsComplete(c.Code)
		r := map[string]any{"status": status}
		if status == "incomplete" {
			r["indent"] = indent
		}
		k.reply(s, m, r)
	case wire.HistoryRequest:
		k.historyReply(s, m)
	case wire.CommInfoRequest:
		k.commInfo(s, m)
	case wire.CreateSubshellRequest, wire.DeleteSubshellRequest, wire.ListSubshellRequest:
		if channel != "control" {
			k.replyError(s, m, "BadRequest", fmt.Errorf("%s is served on the control channel", m.Header.MsgType))
			return
		}
		k.subshellRequest(s, m)
	case wire.InterruptRequest:
		k.Interrupt()
		k.reply(s, m, map[string]any{"status": "ok"})
	case wire.ShutdownRequest:
		var c struct {
			Restart bool `json:"restart"`
		}
		_ = m.Decode(&c)
		k.Interrupt()
		k.reply(s, m, map[string]any{"status": "ok", "restart": c.Restart})
		k.doneOnce.Do(func() { close(k.done) })
	default:
		k.log.Printf("%s: unsupported request %s", channel, m.Header.MsgType)
		k.reply(s, m, map[string]any{"status": "error", "ename": "NotImplemented",
			"evalue": string(m.Header.MsgType) + " is not supported by conclab", "traceback": []string{}})
	}
}

func (k *Kernel) kernelInfo() map[string]any {
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       wire.ProtocolVersion,
		"implementation":         "conclab",
		"implementation_version": k.opts.Version,
		"language_info": map[string]any{
			"name":               "go",
			"version":            strings.TrimPrefix(runtime.Version(), "go"),
			"mimetype":           "text/x-go",
			"file_extension":     ".go",
			"pygments_lexer":     "go",
			"codemirror_mode":    "go",
			"nbconvert_exporter": "script",
		},
		"banner": fmt.Sprintf("conclab %s: Go %s interpreted by yaegi, with the lab's packages linked in", k.opts.Version,
			strings.TrimPrefix(runtime.Version(), "go")),
		"help_links": []map[string]string{
			{"text": "Go", "url": "https://go.dev/doc/"},
			{"text": "Go standard library", "url": "https://pkg.go.dev/std"},
			{"text": "yaegi", "url": "https://github.com/traefik/yaegi"},
		},
		// Protocol 5.5 (JEP 92): the optional features really served.
		"supported_features": supportedFeatures(),
		"debugger":           false, // deprecated by supported_features; kept for 5.4 clients
	}
}

// supportedFeatures are the optional protocol features (JEP 92) the kernel
// serves: kernel subshells (subshell.go); not the debugger.
func supportedFeatures() []string { return []string{"kernel subshells"} }

func (k *Kernel) send(s zmq4.Socket, m *wire.Msg) {
	frames, err := wire.Encode(m, k.signer)
	if err != nil {
		k.log.Printf("encode %s: %v", m.Header.MsgType, err)
		return
	}
	if err := s.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil && !k.stopping() {
		k.log.Printf("send %s: %v", m.Header.MsgType, err)
	}
}

func (k *Kernel) reply(s zmq4.Socket, req *wire.Msg, content any) {
	r, err := wire.NewReply(req, req.Header.MsgType.Reply(), k.session, content)
	if err != nil {
		k.log.Printf("reply: %v", err)
		return
	}
	k.send(s, r)
}

// replyError replies with an error; for an execute_request the error is
// also published on iopub, as for every failed execute.
func (k *Kernel) replyError(s zmq4.Socket, req *wire.Msg, ename string, err error) {
	tb := []string{ename + ": " + err.Error()}
	if req.Header.MsgType == wire.ExecuteRequest {
		k.publish(req, wire.ExecuteError, map[string]any{"ename": ename, "evalue": err.Error(), "traceback": tb})
	}
	k.reply(s, req, map[string]any{"status": "error", "ename": ename, "evalue": err.Error(), "traceback": tb})
}

// publish sends an iopub message caused by parent (nil for none).
func (k *Kernel) publish(parent *wire.Msg, t wire.MsgType, content any) {
	m, err := wire.NewReply(parent, t, k.session, content)
	if err != nil {
		k.log.Printf("publish: %v", err)
		return
	}
	m.Identities = [][]byte{[]byte("kernel." + k.session + "." + string(t))}
	k.pubMu.Lock()
	defer k.pubMu.Unlock()
	k.send(k.iopub, m)
}

func (k *Kernel) publishStatus(parent *wire.Msg, state string) {
	k.publish(parent, wire.Status, map[string]any{"execution_state": state})
}

func (k *Kernel) currentParent() *wire.Msg {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.parent
}

var pagerRE = regexp.MustCompile(`^\s*\??\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\?\s*$`)

type executeRequest struct {
	Code            string         `json:"code"`
	Silent          bool           `json:"silent"`
	StoreHistory    *bool          `json:"store_history"`
	UserExpressions map[string]any `json:"user_expressions"`
	AllowStdin      *bool          `json:"allow_stdin"`
	StopOnError     *bool          `json:"stop_on_error"`
}

func (k *Kernel) execute(s zmq4.Socket, m *wire.Msg) {
	var req executeRequest
	if err := m.Decode(&req); err != nil {
		k.replyError(s, m, "BadRequest", err)
		return
	}
	store := !req.Silent && (req.StoreHistory == nil || *req.StoreHistory)
	// One cell at a time: an execute on a subshell waits for the cell
	// running on the main shell (subshell.go).
	k.execMu.Lock()
	defer k.execMu.Unlock()
	onMain := m.Header.SubshellID == nil || *m.Header.SubshellID == ""
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k.mu.Lock()
	if store {
		k.count++
	}
	count := k.count
	k.parent = m
	cell.SetSession(m.Header.Session) // charts send their library once per front-end session
	k.allowStdin = req.AllowStdin == nil || *req.AllowStdin
	k.cancelCell = cancel
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.cancelCell = nil
		k.allowStdin = false
		k.mu.Unlock()
	}()
	defer func() {
		// A bug in the kernel: the execute still fails visibly, with an
		// error output as every failed execute has.
		if r := recover(); r != nil {
			k.log.Printf("shell: internal error handling execute_request: %v", r)
			ev := fmt.Sprintf("the kernel failed on this cell: %v (a conclab bug: please report it with the cell)", r)
			tb := []string{"KernelError: " + ev}
			k.publish(m, wire.ExecuteError, map[string]any{"ename": "KernelError", "evalue": ev, "traceback": tb})
			k.reply(s, m, map[string]any{"status": "error", "execution_count": count, "ename": "KernelError", "evalue": ev,
				"traceback": tb, "user_expressions": map[string]any{}, "payload": []any{}})
		}
	}()
	if !req.Silent {
		k.publish(m, wire.ExecuteInput, map[string]any{"code": req.Code, "execution_count": count})
	}

	// `name?` pages the documentation of name.
	if sm := pagerRE.FindStringSubmatch(req.Code); sm != nil && strings.Contains(req.Code, "?") {
		doc, found := k.ev.Inspect(sm[1], len(sm[1]))
		if !found {
			doc = "no documentation found for " + sm[1]
		}
		k.record(store, count, req.Code, "")
		k.reply(s, m, map[string]any{"status": "ok", "execution_count": count, "user_expressions": map[string]any{},
			"payload": []map[string]any{{"source": "page", "data": map[string]any{"text/plain": doc}, "start": 0}}})
		return
	}

	if prev := k.takePrevCrash(); prev != "" && !req.Silent {
		k.publish(m, wire.Stream, map[string]any{"name": "stderr", "text": "[the previous kernel process on this connection ended] " + prev + "\n"})
	}
	k.crash.note(cellNote(count, req.Code))
	res, err := k.ev.Eval(ctx, req.Code)
	k.crash.note(noteIdle)
	output := ""
	if err == nil && res.HasValue {
		if t, ok := res.Data.Data[display.MIMETypeText].(string); ok {
			output = t
		}
	}
	k.record(store, count, req.Code, output)
	if err != nil {
		eo := cellout.ErrorOf(err)
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			eo = cellout.Interrupted("Interrupted", "the cell was interrupted")
		}
		ename, evalue, tb := eo.EName, eo.EValue, eo.Traceback
		if onMain && (req.StopOnError == nil || *req.StopOnError) {
			k.mu.Lock()
			k.abortPending = true
			k.abortBefore = time.Now()
			k.mu.Unlock()
		}
		k.publish(m, wire.ExecuteError, map[string]any{"ename": ename, "evalue": evalue, "traceback": tb})
		k.reply(s, m, map[string]any{"status": "error", "execution_count": count, "ename": ename, "evalue": evalue,
			"traceback": tb, "user_expressions": map[string]any{}, "payload": []any{}})
		return
	}
	if d, ok := cellout.Result(res); ok && !req.Silent {
		b := cellout.BundleOf(d)
		k.publish(m, wire.ExecuteResult, map[string]any{"execution_count": count, "data": b.Data, "metadata": b.Metadata})
	}
	k.reply(s, m, map[string]any{"status": "ok", "execution_count": count,
		"user_expressions": k.userExpressions(req.UserExpressions), "payload": []any{}})
}

func (k *Kernel) takePrevCrash() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	p := k.prevCrash
	k.prevCrash = ""
	return p
}

// userExpressions evaluates each expression after the cell, as the protocol
// specifies, returning its bundle or error.
func (k *Kernel) userExpressions(exprs map[string]any) map[string]any {
	out := map[string]any{}
	for name, x := range exprs {
		code, _ := x.(string)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := k.ev.Eval(ctx, code)
		cancel()
		if err != nil {
			eo := cellout.ErrorOf(err)
			out[name] = map[string]any{"status": "error", "ename": eo.EName, "evalue": eo.EValue, "traceback": eo.Traceback}
			continue
		}
		d, _ := cellout.Result(res)
		b := cellout.BundleOf(d)
		out[name] = map[string]any{"status": "ok", "data": b.Data, "metadata": b.Metadata}
	}
	return out
}

func (k *Kernel) record(store bool, count int, input, output string) {
	if !store {
		return
	}
	k.mu.Lock()
	k.history = append(k.history, histEntry{line: count, input: input, output: output})
	k.mu.Unlock()
}

func orEmpty(m display.MIMEMap) display.MIMEMap {
	if m == nil {
		return display.MIMEMap{}
	}
	return m
}

func (k *Kernel) complete(s zmq4.Socket, m *wire.Msg) {
	var c struct {
		Code      string `json:"code"`
		CursorPos *int   `json:"cursor_pos"`
	}
	if err := m.Decode(&c); err != nil {
		k.replyError(s, m, "BadRequest", err)
		return
	}
	pos := utf8.RuneCountInString(c.Code)
	if c.CursorPos != nil && *c.CursorPos >= 0 && *c.CursorPos <= pos {
		pos = *c.CursorPos
	}
	matches, start, end := k.ev.Complete(c.Code, pos)
	if matches == nil {
		matches = []string{}
	}
	k.reply(s, m, map[string]any{"status": "ok", "matches": matches, "cursor_start": start, "cursor_end": end, "metadata": map[string]any{}})
}

func (k *Kernel) inspect(s zmq4.Socket, m *wire.Msg) {
	var c struct {
		Code      string `json:"code"`
		CursorPos *int   `json:"cursor_pos"`
	}
	if err := m.Decode(&c); err != nil {
		k.replyError(s, m, "BadRequest", err)
		return
	}
	pos := utf8.RuneCountInString(c.Code)
	if c.CursorPos != nil && *c.CursorPos >= 0 && *c.CursorPos <= pos {
		pos = *c.CursorPos
	}
	doc, found := k.ev.Inspect(c.Code, pos)
	data := map[string]any{}
	if found {
		data["text/plain"] = doc
	}
	k.reply(s, m, map[string]any{"status": "ok", "found": found, "data": data, "metadata": map[string]any{}})
}

func (k *Kernel) historyReply(s zmq4.Socket, m *wire.Msg) {
	var c struct {
		Output         bool   `json:"output"`
		HistAccessType string `json:"hist_access_type"`
		Session        int    `json:"session"`
		Start          int    `json:"start"`
		Stop           int    `json:"stop"`
		N              int    `json:"n"`
		Pattern        string `json:"pattern"`
		Unique         bool   `json:"unique"`
	}
	if err := m.Decode(&c); err != nil {
		k.replyError(s, m, "BadRequest", err)
		return
	}
	k.mu.Lock()
	all := append([]histEntry(nil), k.history...)
	k.mu.Unlock()
	var sel []histEntry
	switch c.HistAccessType {
	case "range":
		if c.Session == 0 || c.Session == k.histSess || c.Session < 0 {
			for _, h := range all {
				if h.line >= c.Start && (c.Stop <= 0 || h.line < c.Stop) {
					sel = append(sel, h)
				}
			}
		}
	case "search":
		re := globRE(c.Pattern)
		seen := map[string]bool{}
		for i := len(all) - 1; i >= 0; i-- {
			h := all[i]
			if !re.MatchString(h.input) || (c.Unique && seen[h.input]) {
				continue
			}
			seen[h.input] = true
			sel = append([]histEntry{h}, sel...)
			if c.N > 0 && len(sel) == c.N {
				break
			}
		}
	default: // tail
		sel = all
		if c.N > 0 && len(sel) > c.N {
			sel = sel[len(sel)-c.N:]
		}
	}
	out := make([]any, 0, len(sel))
	for _, h := range sel {
		if c.Output {
			out = append(out, []any{k.histSess, h.line, []any{h.input, h.output}})
		} else {
			out = append(out, []any{k.histSess, h.line, h.input})
		}
	}
	k.reply(s, m, map[string]any{"status": "ok", "history": out})
}

// globRE turns a history search glob (* and ?) into an anchored regexp.
func globRE(p string) *regexp.Regexp {
	if p == "" {
		p = "*"
	}
	var b strings.Builder
	b.WriteString("(?s)^")
	for _, r := range p {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// input sends an input_request for the running cell and waits for the reply.
func (k *Kernel) input(prompt string, password bool) (string, error) {
	k.mu.Lock()
	parent, allowed, cancel := k.parent, k.allowStdin, k.cancelCell
	k.mu.Unlock()
	if parent == nil || !allowed || cancel == nil {
		return "", errors.New("stdin is not available: the front end does not allow input for this request")
	}
	for len(k.stdinMsgs) > 0 { // drop stale replies
		<-k.stdinMsgs
	}
	r, err := wire.NewReply(parent, wire.InputRequest, k.session, map[string]any{"prompt": prompt, "password": password})
	if err != nil {
		return "", err
	}
	k.send(k.stdin, r)
	// Wait for the reply; an interrupt or shutdown ends the wait.
	for {
		select {
		case m := <-k.stdinMsgs:
			var c struct {
				Value string `json:"value"`
			}
			if err := m.Decode(&c); err != nil {
				return "", err
			}
			return c.Value, nil
		case <-k.done:
			return "", io.EOF
		case <-time.After(100 * time.Millisecond):
			k.mu.Lock()
			still := k.cancelCell != nil && k.parent == parent
			k.mu.Unlock()
			if !still {
				return "", io.EOF
			}
		}
	}
}

// streamWriter publishes what a cell writes as stream messages, keeping
// incomplete UTF-8 sequences for the next write.
type streamWriter struct {
	k    *Kernel
	name string
	mu   sync.Mutex
	text cellout.Text
}

func (w *streamWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.text.Next(p)
	if t != "" && display.CaptureStream(w.name, t) {
		return len(p), nil // an Output widget took it
	}
	if t != "" {
		w.k.publish(w.k.currentParent(), wire.Stream, map[string]any{"name": w.name, "text": t})
	}
	return len(p), nil
}

// publisher sends display calls of cells to iopub.
type publisher struct{ k *Kernel }

func (p publisher) Display(d display.Data) error {
	b := cellout.BundleOf(d)
	content := map[string]any{"data": b.Data, "metadata": b.Metadata, "transient": orEmpty(d.Transient)}
	p.k.publish(p.k.currentParent(), wire.DisplayData, content)
	return nil
}

func (p publisher) Update(id string, d display.Data) error {
	t := orEmpty(d.Transient)
	t["display_id"] = id
	b := cellout.BundleOf(d)
	content := map[string]any{"data": b.Data, "metadata": b.Metadata, "transient": t}
	p.k.publish(p.k.currentParent(), wire.UpdateDisplayData, content)
	return nil
}

func (p publisher) Clear(wait bool) error {
	p.k.publish(p.k.currentParent(), wire.ClearOutput, map[string]any{"wait": wait})
	return nil
}

var _ display.Publisher = publisher{}
