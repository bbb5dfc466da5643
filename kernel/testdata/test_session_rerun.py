"""Interactive sessions through jupyter_client, as people use them (issue 11):
re-running cells (imports, declarations, servers), go statements with every
argument form, comma-ok forms at the top level, a print flood with the
kernel's memory bounded, `$ cmd` lines interrupted or shut down with no
process left, and a Go fatal error reported with the cell that caused it.

Run with ../../.venv/bin/python -m unittest -v test_session_rerun (conclab
kernelspec on JUPYTER_PATH).
"""
import hashlib
import os
import socket
import tempfile
import time
import unittest
from queue import Empty

from jupyter_client.manager import start_new_kernel


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for %d" % pid)


def processes_with(argv):
    """Pids of the processes whose command line is exactly argv."""
    want = "\0".join(argv) + "\0"
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d) as f:
                cmd = f.read()
            with open("/proc/%s/stat" % d) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if cmd == want and state != "Z":
            pids.append(int(d))
    return pids


def crash_report_path(km):
    """The report file kernel/crash.go keeps for the kernel on km's connection."""
    ci = km.get_connection_info()
    key = ci["key"].decode() if isinstance(ci["key"], bytes) else ci["key"]
    h = hashlib.sha256(("%s|%s|%d" % (key, ci["ip"], ci["shell_port"])).encode()).hexdigest()[:16]
    return os.path.join(tempfile.gettempdir(), "conclab-kernel-crash-%s.txt" % h)


class Session(unittest.TestCase):
    def setUp(self):
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.km, self.kc = start_new_kernel(kernel_name="conclab", stderr=self.stderr)

    def tearDown(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)
        self.stderr.close()

    def run_cell(self, code, timeout=30):
        """Runs code; returns (reply content, stdout, stderr, results)."""
        out = {"stdout": "", "stderr": "", "result": ""}

        def hook(m):
            t, c = m["msg_type"], m["content"]
            if t == "stream":
                out[c["name"]] += c["text"]
            elif t == "execute_result":
                out["result"] += c["data"].get("text/plain", "")

        r = self.kc.execute_interactive(code, timeout=timeout, output_hook=hook)
        return r["content"], out["stdout"], out["stderr"], out["result"]

    def ok(self, code, want_stdout=None):
        c, so, se, res = self.run_cell(code)
        self.assertEqual(c["status"], "ok", "cell %r failed: %s: %s (stderr %r)" % (code, c.get("ename"), c.get("evalue"), se))
        if want_stdout is not None:
            self.assertEqual(so, want_stdout, "stdout of %r" % code)
        return so, res

    def test_reimports(self):
        cell = 'import "fmt"\nfmt.Print("a")'
        self.ok(cell, "a")
        self.ok(cell, "a")  # the same cell twice
        self.ok('import (\n\t"fmt"\n\t"strings"\n)\nfmt.Print(strings.ToUpper("b"))', "B")  # fmt in a second cell
        self.ok('import "strings"\nimport "os"\nfmt.Print(strings.Repeat("c", 2), os.Getpid() > 0)', "cctrue")
        self.ok('import s "strings"\nfmt.Print(s.ToLower("D"))', "d")  # a new alias
        self.ok('import s "strconv"\nfmt.Print(s.Itoa(7))', "7")  # the alias now names another package
        self.ok(cell, "a")

    def test_rerun_declarations(self):
        decl = 'const K = 2\nvar V = 3\ntype T struct{ A int }\nfunc (t T) Twice() int { return 2 * t.A }\nfunc F() int { return K * V }'
        for _ in range(3):
            self.ok(decl)
            self.ok('fmt.Print(F(), ";", T{4}.Twice())', "6;8")
        self.ok('x := 1')
        self.ok('x := "two"\nfmt.Print(x)', "two")  # defined again, with another type

    def test_servers_rerun(self):
        srv = ('import (\n\t"fmt"\n\t"net"\n\t"net/http"\n)\n'
               'ln, err := net.Listen("tcp", "127.0.0.1:0")\nif err != nil { panic(err) }\n'
               'mux := http.NewServeMux()\nmux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hi") })\n'
               'go http.Serve(ln, mux)\n'
               'resp, err := http.Get("http://" + ln.Addr().String() + "/")\nif err != nil { panic(err) }\n'
               'b, _ := io.ReadAll(resp.Body)\nresp.Body.Close()\nfmt.Print(string(b))')
        for _ in range(3):
            self.ok(srv, "hi")
        for _ in range(2):
            self.ok('go http.ListenAndServe("127.0.0.1:0", nil)\nfmt.Print("started")', "started")

    def test_taken_port_is_clear_error(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        try:
            for code in ['log.Fatal(http.ListenAndServe("127.0.0.1:%d", nil))' % port,
                         'err := http.ListenAndServe("127.0.0.1:%d", nil)\nif err != nil { panic(err) }' % port]:
                c, _, _, _ = self.run_cell(code)
                self.assertEqual(c["status"], "error")
                self.assertIn("address already in use", c["evalue"])
                self.assertNotIn("goroutine ", "\n".join(c["traceback"]))
            self.ok('fmt.Print("alive")', "alive")
        finally:
            s.close()

    def test_go_statement_forms(self):
        self.ok('import "sync"\nconst N = 3\ntype W struct{ n int }\n'
                'func (w W) Put(ch chan int, k int) { ch <- w.n + k }\n'
                'func put(ch chan int, v float64) { ch <- int(v) }\n'
                'func putF(ch chan int, f func() int) { ch <- f() }\n'
                'func putP(ch chan int, p *int) { if p == nil { ch <- -1 } else { ch <- *p } }\n'
                'ch := make(chan int, 16)\nw := W{10}')
        for code, want in [("go putP(ch, nil)", "-1"), ("go put(ch, N)", "3"), ("go put(ch, 2.5)", "2"),
                           ("go putF(ch, func() int { return 7 })", "7"), ("go w.Put(ch, 1)", "11"),
                           ("f := w.Put\ngo f(ch, 2)", "12"), ("go put(\n\tch,\n\t4,\n)", "4"),
                           ("go func(k int) { ch <- k }(5)", "5")]:
            for _ in range(2):
                self.ok(code + "\nfmt.Print(<-ch)", want)

    def test_comma_ok(self):
        self.ok('m := map[string]int{"k": 1}\nvar i interface{} = 3\nch := make(chan int, 4)\nch <- 5\nch <- 6')
        for code, want in [('v, ok := m["k"]\nfmt.Print(v, ok)', "1 true"),
                           ('v, ok := m["zz"]\nfmt.Print(v, ok)', "0 false"),
                           ('n, ok := i.(int)\nfmt.Print(n, ok)', "3 true"),
                           ('x, ok := <-ch\nfmt.Print(x, ok)', "5 true"),
                           ('if v, ok := m["k"]; ok { fmt.Print("if ", v) }', "if 1"),
                           ('for k := range m { if v, ok := m[k]; ok { fmt.Print("for ", v) } }', "for 1"),
                           ('func() { n, ok := i.(int); fmt.Print("lit ", n, ok) }()', "lit 3 true"),
                           ('fmt.Print("only this")', "only this")]:
            self.ok(code, want)
        self.ok('func f() (int, bool) { v, ok := m["k"]; return v, ok }\nfmt.Print(f())', "1 true")

    def errors_of(self, code, timeout=30):
        """Runs code; returns (reply content, the error outputs on iopub)."""
        errs = []

        def hook(m):
            if m["msg_type"] == "error":
                errs.append(m["content"])

        r = self.kc.execute_interactive(code, timeout=timeout, output_hook=hook)
        return r["content"], errs

    def test_later_cell_first_names_undefined(self):
        # A fresh kernel, a later cell run first: "undefined: x" naming the
        # missing identifier (yaegi said "invalid memory address or nil
        # pointer dereference", "constant definition loop", "incomplete type
        # res"), as an error reply AND an error output on iopub.
        loop = 'var failed []string\nfor i := 0; i < res.Summary.Len(); i++ {\n\tfailed = append(failed, "x")\n}'
        for code, want in [("x := res.Summary.Len()", "cell line 1: undefined: res"),
                           (loop, "cell line 2: undefined: res"),
                           (loop, "cell line 2: undefined: res"),  # no "incomplete type res" the second time
                           ('want := map[string]int{}\nvar failed []string\nfor i := 0; i < res.Summary.Len(); i++ {\n\t_ = want\n}\none := cpuFrame.Float("b", 0)',
                            "cell line 3: undefined: res (also undefined: cpuFrame)"),
                           ("fmt.Println(undefinedThing)", "cell line 1: undefined: undefinedThing"),
                           ("x := undefinedThing", "cell line 1: undefined: undefinedThing")]:
            c, errs = self.errors_of(code)
            self.assertEqual(c["status"], "error", code)
            self.assertEqual((c["ename"], c["evalue"]), ("CompileError", want), code)
            self.assertEqual(len(errs), 1, "error outputs of %r: %r" % (code, errs))
            self.assertEqual((errs[0]["ename"], errs[0]["evalue"]), ("CompileError", want), code)
            self.assertTrue(errs[0]["traceback"], code)
        # The earlier cell, then the later ones work.
        self.ok("type sum struct{ n int }\nfunc (s sum) Len() int { return s.n }\ntype result struct{ Summary sum }\nres := result{sum{2}}")
        self.ok(loop + "\nfmt.Print(len(failed))", "2")
        self.ok("x := res.Summary.Len()\nfmt.Print(x)", "2")

    def test_interrupt_burst_then_rerun(self):
        # notebooks/byo-server: a serialised handler (an interpreted closure
        # holding a sync.Mutex, called by compiled net/http) under a burst
        # from lab code; interrupting the burst must not leave the mutex
        # locked: the re-run works, twice.
        self.ok('import (\n\t"context"\n\t"net"\n\t"net/http"\n\t"sync"\n\t"time"\n'
                '\t"github.com/conclab/conclab/bench/frame"\n\t"github.com/conclab/conclab/bench/load"\n'
                '\t"github.com/conclab/conclab/kernel/cell"\n)\n'
                'wait := 60 * time.Millisecond\nvar mu sync.Mutex\n'
                'serialised := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {\n'
                '\tmu.Lock()\n\tdefer mu.Unlock()\n\ttime.Sleep(wait)\n\tfmt.Fprintln(w, "ok")\n})\n'
                'func serve(ctx context.Context, h http.Handler) (*frame.Frame, error) {\n'
                '\tln, err := net.Listen("tcp", "127.0.0.1:0")\n\tif err != nil {\n\t\treturn nil, err\n\t}\n'
                '\tsrv := &http.Server{Handler: h}\n\tgo func() { _ = srv.Serve(ln) }()\n\tdefer srv.Close()\n'
                '\tr, err := load.Run(ctx, load.Target{URL: "http://" + ln.Addr().String() + "/work"}, load.Burst{N: 10}, load.Options{Strategy: "one at a time", Workload: "sleep"})\n'
                '\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn r.Summary(), nil\n}')
        burst = 'b, err := serve(cell.Context(), serialised)\nif err != nil {\n\tpanic(err)\n}\nfmt.Print(b.Float("errors", 0))'
        msg_id = self.kc.execute(burst)
        time.sleep(0.3)
        self.km.interrupt_kernel()
        reply = self.kc.get_shell_msg(timeout=10)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        self.assertEqual((reply["content"]["status"], reply["content"].get("ename")), ("error", "Interrupted"))
        for _ in range(2):
            t0 = time.time()
            self.ok(burst, "0")
            self.assertLess(time.time() - t0, 10, "a burst of ten 60 ms serialised requests")

    def test_print_flood_bounded(self):
        pid = self.km.provisioner.process.pid
        msg_id = self.kc.execute('import "strings"\nz := strings.Repeat("z", 65536)\nfor { fmt.Print(z) }')
        t0 = time.time()
        peak, got, notices = 0, 0, 0
        while time.time() - t0 < 10:
            try:
                m = self.kc.get_iopub_msg(timeout=0.2)
                if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "stream":
                    if m["content"]["name"] == "stdout":
                        got += len(m["content"]["text"])
                    else:
                        notices += m["content"]["text"].count("truncated after 16 MiB")
            except Empty:
                pass
            peak = max(peak, rss_kib(pid))
        self.assertLess(peak, 300 * 1024, "kernel RSS peaked at %d KiB during the flood" % peak)
        t1 = time.time()
        self.km.interrupt_kernel()
        reply = self.kc.get_shell_msg(timeout=10)
        self.assertEqual(reply["content"]["ename"], "Interrupted")
        self.assertLess(time.time() - t1, 5)
        while True:  # drain the cell's output
            m = self.kc.get_iopub_msg(timeout=10)
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            if m["msg_type"] == "stream":
                if m["content"]["name"] == "stdout":
                    got += len(m["content"]["text"])
                else:
                    notices += m["content"]["text"].count("truncated after 16 MiB")
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
        self.assertEqual(got, 16 << 20, "stdout the flood delivered")
        self.assertEqual(notices, 1, "truncation notices")
        self.ok('fmt.Print("after")', "after")

    def test_shell_interrupt_leaves_no_process(self):
        argv = ["sleep", "60.4242"]
        msg_id = self.kc.execute("$ sleep 60.4242 & sleep 60.4242")
        deadline = time.time() + 10
        while len(processes_with(argv)) < 2 and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual(len(processes_with(argv)), 2, "both sleeps running")
        self.km.interrupt_kernel()
        reply = self.kc.get_shell_msg(timeout=10)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        self.assertEqual(reply["content"]["ename"], "Interrupted")
        deadline = time.time() + 3
        while processes_with(argv) and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual(processes_with(argv), [], "sleep processes left after the interrupt")
        self.ok('fmt.Print("alive")', "alive")

    def test_shutdown_kills_running_shell(self):
        argv = ["sleep", "61.4242"]
        km, kc = start_new_kernel(kernel_name="conclab")
        try:
            kc.execute("$ sleep 61.4242")
            deadline = time.time() + 10
            while not processes_with(argv) and time.time() < deadline:
                time.sleep(0.05)
            self.assertTrue(processes_with(argv), "sleep running")
            km.shutdown_kernel(now=False)
            deadline = time.time() + 3
            while processes_with(argv) and time.time() < deadline:
                time.sleep(0.05)
            self.assertEqual(processes_with(argv), [], "sleep left after the kernel shut down")
        finally:
            kc.stop_channels()
            if km.is_alive():
                km.shutdown_kernel(now=True)

    def test_no_process_outlives_a_killed_kernel(self):
        """A process that left the kernel's process groups (setsid, in the
        background) goes with the kernel, even when the kernel is killed
        (SIGKILL, as a fatal error ends it) and cannot clean up."""
        argv = ["sleep", "62.4242"]
        km, kc = start_new_kernel(kernel_name="conclab")
        try:
            c = kc.execute_interactive("$ setsid sleep 62.4242 >/dev/null 2>&1 &", timeout=30)["content"]
            self.assertEqual(c["status"], "ok", c)
            deadline = time.time() + 10
            while not processes_with(argv) and time.time() < deadline:
                time.sleep(0.05)
            self.assertTrue(processes_with(argv), "setsid sleep running")
            pid = km.provisioner.pid if getattr(km, "provisioner", None) else km.kernel.pid
            os.kill(pid, 9)  # SIGKILL: no Go code of the kernel runs after it
            deadline = time.time() + 5
            while processes_with(argv) and time.time() < deadline:
                time.sleep(0.05)
            left = processes_with(argv)
            for pid in left:
                os.kill(pid, 9)
            self.assertEqual(left, [], "sleep left after the kernel was killed")
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)

    def test_fatal_stack_overflow_and_out_of_memory(self):
        for code, want in [('func f(n int) int { return f(n+1) + 1 }\nf(0)', "fatal error: stack overflow"),
                           ('b := make([]byte, 1<<40)\nlen(b)', "fatal error: out of memory")]:
            err = tempfile.TemporaryFile(mode="w+")
            km, kc = start_new_kernel(kernel_name="conclab", stderr=err)
            try:
                kc.execute(code)
                deadline = time.time() + 60
                while km.is_alive() and time.time() < deadline:
                    time.sleep(0.1)
                self.assertFalse(km.is_alive(), "%r did not end the kernel" % code)
                lines = []
                deadline = time.time() + 5
                while not lines and time.time() < deadline:
                    time.sleep(0.1)
                    err.seek(0)
                    lines = [l for l in err.read().splitlines() if l.startswith("conclab kernel: the kernel process ended")]
                self.assertEqual(len(lines), 1, lines)
                self.assertIn(want, lines[0])
                self.assertIn("cell [1]", lines[0])
                with open(crash_report_path(km)) as f:
                    self.assertEqual(f.read().strip(), lines[0], "the report left for the next kernel")
            finally:
                if os.path.exists(crash_report_path(km)):
                    os.remove(crash_report_path(km))
                kc.stop_channels()
                km.shutdown_kernel(now=True)
                err.close()
                km.cleanup_resources()

    def test_fatal_error_reported(self):
        self.ok('x := 1')
        msg_id = self.kc.execute('m := map[int]int{}\nfor g := 0; g < 8; g++ {\n\tgo func() { for i := 0; ; i++ { m[i%100] = i } }()\n}\nfor { m[-1]++ }')
        deadline = time.time() + 30
        while self.km.is_alive() and time.time() < deadline:
            time.sleep(0.1)
        self.assertFalse(self.km.is_alive(), "a concurrent map write did not end the kernel")
        line = ""
        deadline = time.time() + 5
        while "fatal error" not in line and time.time() < deadline:
            time.sleep(0.1)
            self.stderr.seek(0)
            line = "\n".join(l for l in self.stderr.read().splitlines() if l.startswith("conclab kernel: the kernel process ended"))
        self.assertIn("fatal error: concurrent map", line)
        self.assertIn("cell [2]", line)
        self.assertEqual(len(line.splitlines()), 1, line)
        # The restarted kernel (same connection) shows it in its first cell.
        self.assertTrue(os.path.exists(crash_report_path(self.km)))
        self.km.restart_kernel(now=True)
        self.kc.wait_for_ready(timeout=30)
        c, so, se, _ = self.run_cell('fmt.Print("new")')
        self.assertEqual(so, "new")
        self.assertIn("previous kernel process", se)
        self.assertIn("fatal error: concurrent map", se)
        self.assertFalse(os.path.exists(crash_report_path(self.km)), "the report was taken")


if __name__ == "__main__":
    unittest.main()
