"""The cell idioms of issue 13 through jupyter_client: the error idiom (a
top-level `x, err := f()` fails the cell with the error's type and message,
run twice and out of order) and live displays (display.Open then
Handle.Update publish display_data then update_display_data with the same
display_id while the cell runs).

Run with ../../.venv/bin/python -m unittest -v test_cell_idioms (conclab
kernelspec on JUPYTER_PATH).
"""
import datetime
import unittest

from kernel_client import run_cell, start, stop

DECLARE = '''import "strconv"
func parse(s string) (int, error) { return strconv.Atoi(s) }'''
GOOD = 'n, err := parse("41")\nfmt.Println("n is", n+1)'
BAD = 'm, err := parse("4x")\nfmt.Println("not reached", m)'
ASSIGN = 'err = os.Chdir("/no/such/dir")\nfmt.Println("not reached")'


class CellIdioms(unittest.TestCase):
    def setUp(self):
        self.km, self.kc = start()

    def tearDown(self):
        stop(self.km, self.kc)

    def assert_fails(self, run, ename, evalue, line, src):
        self.assertEqual(run.status, "error")
        err = run.error()
        self.assertIsNotNone(err, "no iopub error")
        self.assertEqual(err["ename"], ename)
        self.assertEqual(err["evalue"], "cell line %d: %s" % (line, evalue))
        self.assertEqual(run.reply["content"]["ename"], ename)
        tb = "\n".join(err["traceback"])
        self.assertEqual(err["traceback"], ["%s: %s" % (ename, evalue), "  at cell line %d: %s" % (line, src)])
        self.assertNotIn("goroutine", tb)
        self.assertEqual(run.stdout(), "", "the cell went on after the failed check")

    def test_error_idiom_twice_and_out_of_order(self):
        self.assertEqual(run_cell(self.kc, DECLARE).status, "ok")
        bad = ('*strconv.NumError', 'strconv.Atoi: parsing "4x": invalid syntax', 1, 'm, err := parse("4x")')
        chdir = ('*fs.PathError', 'chdir /no/such/dir: no such file or directory', 1, 'err = os.Chdir("/no/such/dir")')
        for code in [BAD, BAD, GOOD, ASSIGN, BAD, GOOD, GOOD, ASSIGN]:
            run = run_cell(self.kc, code)
            if code == GOOD:
                self.assertEqual(run.status, "ok", run.error())
                self.assertEqual(run.stdout(), "n is 42\n")
            else:
                self.assert_fails(run, *(bad if code == BAD else chdir))
        # A cell that checks err itself keeps doing so.
        run = run_cell(self.kc, 'k, err := parse("x")\nif err != nil {\n\tfmt.Println("handled", k)\n}')
        self.assertEqual(run.status, "ok", run.error())
        self.assertEqual(run.stdout(), "handled 0\n")
        # A final (value, error) expression: the value, or the error.
        run = run_cell(self.kc, 'parse("7")')
        self.assertEqual((run.status, run.result_text()), ("ok", "7"))
        run = run_cell(self.kc, 'fmt.Print("")\nparse("y")')
        self.assertEqual(run.status, "error")
        self.assertEqual(run.error()["ename"], "*strconv.NumError")
        self.assertEqual(run.error()["traceback"][-1], '  at cell line 2: parse("y")')

    def test_panic_with_error_is_readable(self):
        run = run_cell(self.kc, 'x := 3\npanic(fmt.Errorf("step %d: %w", x, &os.PathError{Op: "open", Path: "f", Err: os.ErrNotExist}))')
        self.assertEqual(run.status, "error")
        err = run.error()
        self.assertEqual(err["ename"], "*fs.PathError")
        self.assertEqual(err["evalue"], "cell line 2: step 3: open f: file does not exist")
        self.assertNotIn("goroutine", "\n".join(err["traceback"]))

    def test_live_display_updates(self):
        run = run_cell(self.kc, '''h, err := display.Open(display.Text("step 0 of 5"))
for i := 1; i <= 5; i++ {
	time.Sleep(50 * time.Millisecond)
	if err := h.Update(display.Text(fmt.Sprintf("step %d of 5", i))); err != nil {
		panic(err)
	}
}''')
        self.assertEqual(run.status, "ok", run.error())
        shown = run.of_type("display_data", "update_display_data")
        self.assertEqual([m["msg_type"] for m in shown], ["display_data"] + ["update_display_data"] * 5)
        ids = {m["content"]["transient"]["display_id"] for m in shown}
        self.assertEqual(len(ids), 1, ids)
        self.assertTrue(next(iter(ids)))
        self.assertEqual([m["content"]["data"]["text/plain"] for m in shown], ["step %d of 5" % i for i in range(6)])
        # Published while the cell ran: before its reply, each after the last.
        dates = [m["header"]["date"] for m in shown]
        self.assertEqual(dates, sorted(dates))
        self.assertLess(dates[-1], run.reply["header"]["date"])
        # The cell sleeps 5 x 50 ms between the first display and the last update.
        self.assertGreaterEqual(dates[-1] - dates[0], datetime.timedelta(milliseconds=240), "updates not published as the cell ran")


if __name__ == "__main__":
    unittest.main()
