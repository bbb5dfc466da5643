"""papermill parameters for Go notebooks run by the conclab kernel.

papermill injects a cell setting a notebook's parameters, written by a
translator for the notebook's language; it ships none for Go. This package
registers one for the language "go" (the conclab kernelspec's language).

The cell it writes is, byte for byte, what `conclab run -p` writes for the
same names and values (notebook.ParametersCell in Go):

    // Parameters
    import "github.com/conclab/conclab/notebook/params"

    params.Set(
    	params.Value("vus", &vus, "40"),
    	params.Value("think", &think, "500ms"),
    )

Every value travels as text and the kernel converts it to the type of the
variable the parameters cell declared (package notebook/params): "40" to an
int, "500ms" to a time.Duration, "false" to a bool. papermill's own typed
values become that text: True/False -> true/false, None -> null, numbers as
Python writes them, lists and dicts as JSON.

How it is registered: papermill 2.7 loads the entry points of the
"papermill.engine" group when it starts, and has no group for translators.
This package's entry point is an engine, "conclab" (papermill's default
nbclient engine, unchanged: `papermill -k conclab` is not needed), and
loading it registers GoTranslator.
"""
import json
import re

from papermill.engines import NBClientEngine
from papermill.exceptions import PapermillException
from papermill.models import Parameter
from papermill.translators import Translator, papermill_translators

PARAMS_IMPORT = "github.com/conclab/conclab/notebook/params"

# Go's keywords (go/token), which cannot name a variable.
_GO_KEYWORDS = frozenset(
    "break case chan const continue default defer else fallthrough for func go goto if "
    "import interface map package range return select struct switch type var".split()
)


def go_quote(s):
    """s as a Go interpreted string literal: backslash, double quote and
    control characters (U+0000-U+001F, U+007F) escaped, everything else as
    is (notebook.Quote in Go does the same)."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif o < 0x20 or o == 0x7F:
            out.append("\\x%02x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def value_text(val):
    """The text a papermill value travels as."""
    if val is None:
        return "null"
    if isinstance(val, bool):
        return "true" if val else "false"
    if isinstance(val, (int, float)):
        return repr(val)
    if isinstance(val, str):
        return val
    if isinstance(val, (list, dict)):
        return json.dumps(val)
    return str(val)


def check_name(name):
    if not isinstance(name, str) or not name.isidentifier() or name in _GO_KEYWORDS or name == "_":
        raise PapermillException("parameter name %r is not a Go identifier" % (name,))


class GoTranslator(Translator):
    """papermill's translator for Go (the conclab kernel)."""

    @classmethod
    def comment(cls, cmt_str):
        return ("// " + cmt_str).strip()

    @classmethod
    def codify(cls, parameters, comment="Parameters"):
        lines = [cls.comment(comment), 'import "%s"' % PARAMS_IMPORT, "", "params.Set("]
        for name, val in parameters.items():
            check_name(name)
            lines.append("\tparams.Value(%s, &%s, %s)," % (go_quote(name), name, go_quote(value_text(val))))
        lines.append(")")
        return "\n".join(lines)

    # name := value // help   or   var name [T] = value // help
    _DECL = re.compile(
        r"^\s*(?:var\s+)?(?P<name>[^\W\d]\w*)\s*(?:(?P<type>[^=:]+?)\s*)?(?::=|=)\s*(?P<value>.*?)\s*(?://\s*(?P<help>.*))?$"
    )

    @classmethod
    def _infer(cls, declared, value):
        if declared:
            return declared.strip()
        if re.fullmatch(r"-?\d[\d_]*", value):
            return "int"
        if re.fullmatch(r"-?\d[\d_]*\.\d*(e[-+]?\d+)?|-?\d+e[-+]?\d+", value):
            return "float64"
        if value in ("true", "false"):
            return "bool"
        if value.startswith(('"', "`")):
            return "string"
        if re.search(r"\btime\.(Nanosecond|Microsecond|Millisecond|Second|Minute|Hour)\b", value):
            return "time.Duration"
        return "None"

    @classmethod
    def inspect(cls, parameters_cell):
        """The parameters a Go parameters cell declares, one per line
        (`papermill --help-notebook`); lines it cannot read are skipped."""
        out = []
        for line in parameters_cell["source"].splitlines():
            if line.strip().startswith(("//", "import", "const", ")")) or not line.strip():
                continue
            m = cls._DECL.match(line)
            if not m:
                continue
            out.append(Parameter(
                name=m.group("name"),
                inferred_type_name=cls._infer(m.group("type"), m.group("value")),
                default=m.group("value"),
                help=m.group("help") or "",
            ))
        return out


class ConclabEngine(NBClientEngine):
    """papermill's nbclient engine, unchanged: registered as an entry point
    so that papermill loads this module (see the module's doc)."""


papermill_translators.register("go", GoTranslator)
