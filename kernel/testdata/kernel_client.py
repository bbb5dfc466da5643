"""Helpers for driving the conclab kernel through jupyter_client in tests:
run a cell and collect what it published. Import from the tests in this
directory (and from other suites: add kernel/testdata to sys.path).
"""
import time
from queue import Empty

from jupyter_client.manager import start_new_kernel


def start(**kwargs):
    """Starts a conclab kernel; returns (manager, client). The caller stops
    them with stop(km, kc)."""
    return start_new_kernel(kernel_name="conclab", **kwargs)


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=True)


class CellRun:
    """What one execute_request got: the shell reply and the iopub messages
    whose parent it is, in arrival order, up to the idle status."""

    def __init__(self, reply, msgs):
        self.reply = reply
        self.msgs = msgs

    @property
    def status(self):
        return self.reply["content"]["status"]

    def of_type(self, *types):
        return [m for m in self.msgs if m["msg_type"] in types]

    def error(self):
        """The iopub error message's content (None when there is none)."""
        errs = self.of_type("error")
        return errs[0]["content"] if errs else None

    def stdout(self):
        return "".join(m["content"]["text"] for m in self.of_type("stream") if m["content"]["name"] == "stdout")

    def result_text(self):
        rs = self.of_type("execute_result")
        return rs[0]["content"]["data"].get("text/plain") if rs else None


def run_cell(kc, code, timeout=60):
    """Runs code in the kernel of client kc and returns a CellRun. Fails
    (AssertionError) when the reply or the idle status does not come within
    timeout seconds."""
    msg_id = kc.execute(code)
    deadline = time.time() + timeout
    reply = None
    while reply is None:
        left = deadline - time.time()
        if left <= 0:
            raise AssertionError("no execute_reply within %s s for %r" % (timeout, code))
        try:
            m = kc.get_shell_msg(timeout=min(left, 1.0))
        except Empty:
            continue
        if m["parent_header"].get("msg_id") == msg_id:
            reply = m
    msgs = []
    while True:
        left = deadline - time.time()
        if left <= 0:
            raise AssertionError("no idle status within %s s for %r" % (timeout, code))
        try:
            m = kc.get_iopub_msg(timeout=min(left, 1.0))
        except Empty:
            continue
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        msgs.append(m)
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            return CellRun(reply, msgs)
