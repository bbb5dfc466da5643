"""Behaviour of the conclab kernel through jupyter_client that the
conformance suite does not cover: interrupt by message and by SIGINT with
state kept, output streamed while a cell runs, stdin input_request, restart,
kernel_info on the control channel while a long cell runs (protocol 5.5).

Run with ../../.venv/bin/python -m unittest -v test_kernel_behaviour (conclab
kernelspec on JUPYTER_PATH).
"""
import os
import signal
import time
import unittest
from queue import Empty

from jupyter_client.manager import start_new_kernel


class KernelBehaviour(unittest.TestCase):
    def setUp(self):
        self.km, self.kc = start_new_kernel(kernel_name="conclab")

    def tearDown(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)

    def iopub_until_idle(self, msg_id, timeout=10):
        msgs = []
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                m = self.kc.get_iopub_msg(timeout=0.5)
            except Empty:
                continue
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            msgs.append((time.time(), m))
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                return msgs
        self.fail("no idle for %s" % msg_id)

    def interrupt_case(self, how):
        self.kc.execute_interactive("state := 41", timeout=10)
        msg_id = self.kc.execute("n := 0\nfor { n++ }")
        time.sleep(0.5)
        t0 = time.time()
        if how == "message":
            self.km.interrupt_kernel()  # interrupt_mode: message -> interrupt_request on control
        else:
            os.kill(self.km.provisioner.process.pid, signal.SIGINT)
        reply = self.kc.get_shell_msg(timeout=5)
        msgs = self.iopub_until_idle(msg_id)
        idle_at = msgs[-1][0]
        self.assertEqual(reply["content"]["status"], "error")
        self.assertEqual(reply["content"]["ename"], "Interrupted")
        self.assertLess(idle_at - t0, 1.0, "idle more than 1 s after the interrupt")
        r = self.kc.execute_interactive("state + 1", timeout=10, output_hook=self.collect)
        self.assertEqual(r["content"]["status"], "ok")
        self.assertIn("42", self.results)

    results = ""

    def collect(self, m):
        if m["msg_type"] == "execute_result":
            self.results += m["content"]["data"].get("text/plain", "")

    def test_interrupt_by_message(self):
        self.interrupt_case("message")

    def test_interrupt_by_sigint(self):
        self.interrupt_case("signal")

    def test_streams_while_running(self):
        msg_id = self.kc.execute('fmt.Println("first")\ntime.Sleep(1500 * time.Millisecond)\nfmt.Println("second")')
        msgs = self.iopub_until_idle(msg_id)
        streams = [(t, m["content"]["text"]) for t, m in msgs if m["msg_type"] == "stream"]
        self.assertEqual([s for _, s in streams], ["first\n", "second\n"])
        self.assertGreater(streams[1][0] - streams[0][0], 1.0, "first line was not sent before the sleep")

    def test_input_request(self):
        msg_id = self.kc.execute('import "bufio"\nline, _ := bufio.NewReader(os.Stdin).ReadString(\'\\n\')\nstrings.ToUpper(line)', allow_stdin=True)
        req = self.kc.get_stdin_msg(timeout=5)
        self.assertEqual(req["msg_type"], "input_request")
        self.kc.input("gopher")
        reply = self.kc.get_shell_msg(timeout=5)
        self.assertEqual(reply["content"]["status"], "ok")
        msgs = self.iopub_until_idle(msg_id)
        results = [m["content"]["data"]["text/plain"] for _, m in msgs if m["msg_type"] == "execute_result"]
        self.assertEqual(results, ["GOPHER\n"])

    def test_kernel_info_on_control_while_cell_runs(self):
        """Protocol 5.5: a page reconnecting to a busy kernel asks for
        kernel_info on control and is answered while the cell runs; the
        shell's copy of the request waits behind the cell."""
        exec_id = self.kc.execute('time.Sleep(time.Minute)')
        while True:  # the cell has started once its execute_input is out
            m = self.kc.get_iopub_msg(timeout=10)
            if m["parent_header"].get("msg_id") == exec_id and m["msg_type"] == "execute_input":
                break
        shell_id = self.kc.kernel_info()
        ctl = self.kc.session.msg("kernel_info_request", {})
        self.kc.control_channel.send(ctl)
        reply = self.kc.control_channel.get_msg(timeout=10)
        self.assertEqual(reply["parent_header"]["msg_id"], ctl["header"]["msg_id"])
        self.assertEqual(reply["msg_type"], "kernel_info_reply")
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertEqual(reply["content"]["protocol_version"], "5.5")
        self.assertIsInstance(reply["content"]["supported_features"], list)
        self.assertEqual(reply["content"]["language_info"]["name"], "go")
        # Nothing on shell yet: the cell runs, the shell kernel_info waits.
        with self.assertRaises(Empty):
            self.kc.get_shell_msg(timeout=0.5)
        self.km.interrupt_kernel()
        first = self.kc.get_shell_msg(timeout=10)
        second = self.kc.get_shell_msg(timeout=10)
        self.assertEqual((first["parent_header"]["msg_id"], first["content"]["status"]), (exec_id, "error"))
        self.assertEqual((second["parent_header"]["msg_id"], second["msg_type"]), (shell_id, "kernel_info_reply"))

    def test_restart(self):
        self.kc.execute_interactive("gone := 1", timeout=10)
        self.km.restart_kernel(now=False)
        self.kc.wait_for_ready(timeout=30)
        r = self.kc.execute_interactive("gone", timeout=10)
        self.assertEqual(r["content"]["status"], "error")  # fresh state after restart


if __name__ == "__main__":
    unittest.main()
