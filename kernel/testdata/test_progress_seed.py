"""bench.Run's live progress in a real kernel: the cells below (a burst on
the quickstart's four endpoints, shortened) run in order through
jupyter_client, and the cell that calls bench.Run must publish, while it
runs, a
display_data with a transient display_id whose text/plain has one line per
strategy, then at least one update_display_data with the same display_id,
all before the cell's execute_reply, the last update's lines all marked
done.

Run with ../../.venv/bin/python -m unittest -v test_progress_seed (conclab
kernelspec on JUPYTER_PATH).
"""
import os
import re
import unittest

from kernel_client import run_cell, start, stop

# The test's own cells, not a lesson's: lessons are rewritten, this contract
# is the kernel's. Four endpoints, /async-block one request at a time (0.4 s
# in all), so the run lasts long enough for updates.
CELLS = [
    'import (\n\t"time"\n\n\t"github.com/conclab/conclab/bench"\n\t"github.com/conclab/conclab/bench/load"\n'
    '\t"github.com/conclab/conclab/kernel/cell"\n)',
    'strategies, err := bench.Presets("/sync-sleep", "/async-block", "/async-ok", "/offload")',
    'res, err := bench.Run(cell.Context(), bench.Experiment{Name: "progress", Strategies: strategies,\n'
    '\tWorkload: bench.Steps(bench.Sleep(100 * time.Millisecond)), Load: load.Burst{N: 4}})',
    'res.Summary.Select("strategy", "count", "errors")',
]


class ProgressSeed(unittest.TestCase):
    def setUp(self):
        self.km, self.kc = start(env=dict(os.environ))

    def tearDown(self):
        stop(self.km, self.kc)

    def test_quickstart_run_cell_shows_live_progress(self):
        cells = CELLS
        runs = [i for i, src in enumerate(cells) if "bench.Run(" in src]
        presets = re.search(r"bench\.Presets\(([^)]*)\)", "\n".join(cells))
        self.assertIsNotNone(presets, "the bench.Run cell names its strategies with bench.Presets")
        labels = re.findall(r'"([^"]*)"', presets.group(1))
        self.assertGreater(len(labels), 1, labels)
        for i, src in enumerate(cells):
            run = run_cell(self.kc, src, timeout=120)
            self.assertEqual(run.status, "ok", "cell %d failed: %s" % (i + 1, run.error()))
            if i != runs[0]:
                continue
            shown = run.of_type("display_data", "update_display_data")
            self.assertTrue(shown, "the bench.Run cell published no display")
            first = shown[0]
            self.assertEqual(first["msg_type"], "display_data")
            display_id = first["content"].get("transient", {}).get("display_id")
            self.assertTrue(display_id, "the progress display has no transient display_id")
            progress = [m for m in shown if m["content"].get("transient", {}).get("display_id") == display_id]
            updates = progress[1:]
            self.assertTrue(updates, "no update_display_data for display %s" % display_id)
            self.assertEqual({m["msg_type"] for m in updates}, {"update_display_data"})

            def lines(m):
                return m["content"]["data"]["text/plain"].split("\n")

            for m in progress:
                got = lines(m)
                self.assertEqual(len(got), len(labels), got)
                for k, (line, label) in enumerate(zip(got, labels)):
                    self.assertTrue(line.startswith("[%d/%d] %s  " % (k + 1, len(labels), label)), line)
            last = lines(updates[-1])
            self.assertTrue(all(line.endswith("  done") for line in last), last)
            self.assertFalse(all(line.endswith("  done") for line in lines(first)), "the first display is already final")
            # Published while the cell ran: in order, before its reply.
            dates = [m["header"]["date"] for m in progress]
            self.assertEqual(dates, sorted(dates))
            self.assertLess(dates[-1], run.reply["header"]["date"])


if __name__ == "__main__":
    unittest.main()
