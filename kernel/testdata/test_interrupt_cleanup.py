"""An interrupt leaves nothing behind (issue 25): through jupyter_client, with
real processes, checking /proc and the listening ports (leaks.py) and the
goroutines by their eval label (every goroutine a cell starts, compiled or
interpreted, carries the label of the cell's evaluation).

Within a second of an interrupt every process, port and goroutine the cell
started is gone, whatever context the cell passed: `$ sleep 60`; a process
started with exec.Command; bench.Run given context.Background() with a
prefork and a process-pool strategy; a server started with no context at
all (http.ListenAndServe) and goroutines in loops. Starting and stopping a
gunicorn-style prefork server twenty times leaves no child. What earlier
cells started runs on.

Run with ../../.venv/bin/python -m unittest -v test_interrupt_cleanup
(conclab kernelspec on JUPYTER_PATH).
"""
import tempfile
import time
import unittest

from jupyter_client.manager import start_new_kernel

import leaks

# Declared once per kernel: the goroutines of each eval label, and the label
# of the cell calling myLabel.
HELPERS = r'''import (
	"bytes"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
)

var labelRE = regexp.MustCompile(`# labels: \{"conclab_eval":"(\d+)"\}`)

func goroutineGroups() []string {
	var b bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&b, 1)
	return strings.Split(b.String(), "\n\n")
}

func goroutinesOf(label string) int {
	n := 0
	for _, g := range goroutineGroups() {
		if m := labelRE.FindStringSubmatch(g); m != nil && m[1] == label {
			k, _ := strconv.Atoi(strings.Fields(g)[0])
			n += k
		}
	}
	return n
}

func myLabel() string {
	for _, g := range goroutineGroups() {
		if strings.Contains(g, "runtime/pprof.writeGoroutine") {
			if m := labelRE.FindStringSubmatch(g); m != nil {
				return m[1]
			}
		}
	}
	return ""
}'''

WITHIN = 1.0  # seconds from the interrupt request


class InterruptCleanup(unittest.TestCase):
    def setUp(self):
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.km, self.kc = start_new_kernel(kernel_name="conclab", stderr=self.stderr)
        self.pid = self.km.provisioner.pid
        self.ok(HELPERS)

    def tearDown(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)
        self.stderr.close()

    def run_cell(self, code, timeout=60):
        out = {"stdout": "", "result": ""}

        def hook(m):
            t, c = m["msg_type"], m["content"]
            if t == "stream" and c["name"] == "stdout":
                out["stdout"] += c["text"]
            elif t == "execute_result":
                out["result"] += c["data"].get("text/plain", "")

        r = self.kc.execute_interactive(code, timeout=timeout, output_hook=hook)
        return r["content"], out["stdout"], out["result"]

    def ok(self, code, timeout=60):
        c, so, res = self.run_cell(code, timeout)
        self.assertEqual(c["status"], "ok", "cell %r failed: %s: %s" % (code, c.get("ename"), c.get("evalue")))
        return so, res

    def state(self):
        d = leaks.descendants(self.pid)
        return d, leaks.listening_ports([self.pid] + d)

    def interrupt_when(self, code, ready, timeout=30):
        """Runs code (which prints "label N" first), waits until ready()
        holds, interrupts it; returns (label, time of the interrupt)."""
        label = None
        msg_id = self.kc.execute(code)
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                m = self.kc.get_iopub_msg(timeout=0.1)
            except Exception:
                m = None
            if m and m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "stream" \
                    and m["content"]["text"].startswith("label "):
                label = m["content"]["text"].split()[1]
            if label and ready():
                break
        else:
            self.fail("the cell did not get going: label %r, ready %r" % (label, ready()))
        at = time.time()
        self.km.interrupt_kernel()
        reply = self.kc.get_shell_msg(timeout=10)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        self.assertEqual(reply["content"]["ename"], "Interrupted", reply["content"])
        return label, at

    def assert_clean(self, before, at, label, what):
        """Nothing the cell started is left within WITHIN of the interrupt
        at `at`: no process, no listening port beyond before's, no goroutine
        with the cell's label."""
        procs_before, ports_before = before
        while True:
            procs, ports = self.state()
            left_procs = [p for p in procs if p not in procs_before]
            left_ports = [p for p in ports if p not in ports_before]
            if not left_procs and not left_ports or time.time() - at > WITHIN:
                break
            time.sleep(0.02)
        self.assertEqual(leaks.describe(left_procs), [], "%s: processes left %.2fs after the interrupt" % (what, time.time() - at))
        self.assertEqual(left_ports, [], "%s: ports still listening %.2fs after the interrupt" % (what, time.time() - at))
        # The goroutines: counted by a cell, which runs once the reply came.
        _, res = self.ok("goroutinesOf(%s)" % repr(label).replace("'", '"'))
        elapsed = time.time() - at
        self.assertEqual(res, "0", "%s: goroutines of the interrupted cell (label %s) left" % (what, label))
        self.assertLess(elapsed, WITHIN + 1.0, "%s: the check itself took too long" % what)

    def test_shell_sleep(self):
        argv = ["sleep", "60.2525"]
        before = self.state()
        label, at = self.interrupt_when('fmt.Println("label", myLabel())\n$ sleep 60.2525',
                                        lambda: any(leaks.cmdline(p) == " ".join(argv) for p in leaks.descendants(self.pid)))
        self.assert_clean(before, at, label, "$ sleep 60")
        self.ok('fmt.Print("alive")')

    def test_exec_command(self):
        before = self.state()
        code = 'fmt.Println("label", myLabel())\ncmd := exec.Command("sh", "-c", "sleep 61.2525 & sleep 61.2626")\ncmd.Start()\nselect {}'
        label, at = self.interrupt_when(code, lambda: len(self.state()[0]) >= 3)
        self.assert_clean(before, at, label, "exec.Command")

    def test_bench_run_background_context(self):
        """bench.Run given context.Background() (the form docs/strategies.md
        shows) with a prefork and a process-pool strategy."""
        before = self.state()
        code = '''fmt.Println("label", myLabel())
strategies, err := bench.Presets("/sync-sleep", "gunicorn 2w x 5t", "ProcessPool")
res, err := bench.Run(context.Background(), bench.Experiment{
	Strategies: strategies,
	Workload:   bench.Steps(bench.Sleep(time.Second)),
	Load:       load.Burst{N: 50},
})
res'''
        label, at = self.interrupt_when(code, lambda: len(self.state()[0]) >= 2 and len(self.state()[1]) > len(before[1]), timeout=60)
        self.assert_clean(before, at, label, "bench.Run(context.Background(), ...)")

    def test_server_without_context_and_goroutine_loops(self):
        before = self.state()
        code = '''fmt.Println("label", myLabel())
go http.ListenAndServe("127.0.0.1:0", nil)
ln, err := net.Listen("tcp", "127.0.0.1:0")
go http.Serve(ln, nil)
for range 3 {
	go func() {
		for {
			time.Sleep(5 * time.Millisecond)
		}
	}()
}
ch := make(chan int)
go func() { <-ch }()
go func() {
	n := 0
	for {
		n++
	}
}()
tick := time.NewTicker(time.Millisecond)
go func() {
	for range tick.C {
	}
}()
select {}'''
        label, at = self.interrupt_when(code, lambda: len(self.state()[1]) >= len(before[1]) + 2)
        self.assert_clean(before, at, label, "servers with no context, goroutine loops")

    def test_prefork_start_stop_twenty_times(self):
        before = self.state()
        self.ok('''st, err := bench.Presets("gunicorn 2w x 5t")
for range 20 {
	srv, err := bench.Serve(context.Background(), st[0], bench.Steps(bench.Sleep(time.Millisecond)))
	if err != nil {
		panic(err)
	}
	srv.Close()
}''', timeout=120)
        procs, ports = self.state()
        self.assertEqual(leaks.describe([p for p in procs if p not in before[0]]), [], "prefork children left after 20 starts and Close")
        self.assertEqual([p for p in ports if p not in before[1]], [], "ports left after 20 starts and Close")
        # Stopped by an interrupt instead, a few times.
        for i in range(3):
            label, at = self.interrupt_when('''fmt.Println("label", myLabel())
srv, err := bench.Serve(context.Background(), st[0], bench.Steps(bench.Sleep(time.Millisecond)))
select {}''', lambda: len(self.state()[0]) >= 2)
            self.assert_clean(before, at, label, "prefork server stopped by interrupt %d" % (i + 1))

    def test_earlier_cells_run_on(self):
        """What a finished cell started is not the next cell's: it runs on
        through an interrupt of a later cell."""
        self.ok('''count := 0
go func() {
	for {
		time.Sleep(2 * time.Millisecond)
		count++
	}
}()
srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "up") }))''')
        before = self.state()
        label, at = self.interrupt_when('fmt.Println("label", myLabel())\ntime.Sleep(time.Hour)', lambda: True)
        self.assert_clean(before, at, label, "time.Sleep")
        so, _ = self.ok('''c1 := count
time.Sleep(100 * time.Millisecond)
resp, err := http.Get(srv.URL)
body, err := io.ReadAll(resp.Body)
fmt.Print(count > c1, " ", string(body))''')
        self.assertEqual(so, "true up", "the earlier cell's goroutine and server after another cell's interrupt")


if __name__ == "__main__":
    unittest.main()
