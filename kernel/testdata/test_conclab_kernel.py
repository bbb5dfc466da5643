"""Jupyter's conformance suite (jupyter_kernel_test 0.7) against the conclab kernel.

Run with ../../.venv/bin/python -m unittest -v test_conclab_kernel, after
`conclab install --prefix DIR` and with JUPYTER_PATH=DIR/share/jupyter.
Every test method of the suite has a non-empty sample, so none is skipped;
IopubWelcomeTests runs with support_iopub_welcome (protocol 5.5's XPUB IOPub).
The samples import the packages they use, several of them the same ones
("fmt", "os", "display"): the suite runs them all in one kernel, so each
re-import must be a no-op.
"""
import unittest

import jupyter_kernel_test


class ConclabKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = "conclab"
    language_name = "go"
    file_extension = ".go"

    code_hello_world = 'import "fmt"\nfmt.Println("hello, world")'
    code_stderr = 'import (\n\t"fmt"\n\t"os"\n)\nfmt.Fprintln(os.Stderr, "to stderr")'

    completion_samples = [
        {"text": "strings.ToUpp", "matches": {"ToUpper", "ToUpperSpecial"}},
        {"text": "fmt.Sprintl", "matches": {"Sprintln"}},
        {"text": "display.Markd", "matches": {"Markdown", "Markdowner"}},
    ]

    complete_code_samples = ["x := 1", "func f() int { return 1 }", "$ ls", 'fmt.Println("}")']
    incomplete_code_samples = ["func f() {", "xs := []int{1,", "s := `raw", "y := 1 +"]
    invalid_code_samples = ["x := )", "}", "x := 1 ]", "func f() { return 1 +* }"]

    code_page_something = "strings.ToUpper?"

    code_generate_error = 'import "fmt"\npanic(fmt.Sprint("boom"))'

    code_execute_result = [
        {"code": "6*7", "result": "42"},
        {"code": '"go" + "pher"', "result": "gopher"},
        {"code": 'import "github.com/conclab/conclab/display"\ndisplay.HTML("<b>bold</b>")', "mime": "text/html", "result": "<b>bold</b>"},
        {"code": 'import "fmt"\nfmt.Sprint(42)', "result": "42"},
    ]

    code_display_data = [
        {"code": 'import "github.com/conclab/conclab/display"\nDisplay(display.HTML("<i>shown</i>"))', "mime": "text/html"},
        {"code": 'import "github.com/conclab/conclab/display"\ndisplay.Display(display.Markdown("*md*"))', "mime": "text/markdown"},
        {"code": 'import (\n\t"image"\n\t"github.com/conclab/conclab/display"\n)\ndisplay.Display(display.Image(image.NewRGBA(image.Rect(0, 0, 8, 8))))', "mime": "image/png"},
    ]

    code_history_pattern = "6*?"
    supported_history_operations = ("tail", "range", "search")

    code_inspect_sample = "strings.ToUpper"

    code_clear_output = 'import "github.com/conclab/conclab/display"\ndisplay.Clear(true)'

    def test_kernel_info_5_5(self):
        """Protocol 5.5's kernel_info: the version, and supported_features
        (a list: optional features the kernel really serves)."""
        self.flush_channels()
        self.kc.kernel_info()
        reply = self.kc.get_shell_msg(timeout=jupyter_kernel_test.TIMEOUT)
        self.assertEqual(reply["header"]["version"], "5.5")
        self.assertEqual(reply["content"]["protocol_version"], "5.5")
        self.assertIsInstance(reply["content"]["supported_features"], list)


class ConclabIopubWelcomeTests(jupyter_kernel_test.IopubWelcomeTests):
    kernel_name = "conclab"
    support_iopub_welcome = True


if __name__ == "__main__":
    unittest.main()
