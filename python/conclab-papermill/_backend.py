"""A PEP 517 build backend with nothing but the standard library, for this
one small pure-Python package: pip builds its wheel without setuptools'
bdist_wheel (which needs the `wheel` package) and without the network.

It reads name, version, requires-python and entry points from
pyproject.toml's [project] table and packages every .py file of the
package directory named after the project.
"""
import base64
import hashlib
import os
import tomllib
import zipfile

_HERE = os.path.dirname(os.path.abspath(__file__))


def _project():
    with open(os.path.join(_HERE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _names(project):
    dist = project["name"].replace("-", "_")
    return dist, "%s-%s" % (dist, project["version"])


def _metadata(project):
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + project["version"]]
    if "description" in project:
        lines.append("Summary: " + project["description"])
    if "requires-python" in project:
        lines.append("Requires-Python: " + project["requires-python"])
    return "\n".join(lines) + "\n"


def _entry_points(project):
    out = []
    for group, eps in project.get("entry-points", {}).items():
        out.append("[%s]" % group)
        out.extend("%s = %s" % (name, target) for name, target in eps.items())
        out.append("")
    return "\n".join(out)


def _dist_info(project):
    """The .dist-info files other than RECORD, as {name: text}."""
    return {
        "METADATA": _metadata(project),
        "WHEEL": "Wheel-Version: 1.0\nGenerator: conclab _backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        "entry_points.txt": _entry_points(project),
    }


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    project = _project()
    _, stem = _names(project)
    info = os.path.join(metadata_directory, stem + ".dist-info")
    os.makedirs(info, exist_ok=True)
    for name, text in _dist_info(project).items():
        with open(os.path.join(info, name), "w", encoding="utf-8") as f:
            f.write(text)
    return stem + ".dist-info"


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    package, stem = _names(project)
    files = []
    pkg_dir = os.path.join(_HERE, package)
    for name in sorted(os.listdir(pkg_dir)):
        if name.endswith(".py"):
            with open(os.path.join(pkg_dir, name), "rb") as f:
                files.append(("%s/%s" % (package, name), f.read()))
    for name, text in _dist_info(project).items():
        files.append(("%s.dist-info/%s" % (stem, name), text.encode("utf-8")))
    record_path = "%s.dist-info/RECORD" % stem
    record = "\n".join([_record_line(p, d) for p, d in files] + [record_path + ",,"]) + "\n"
    wheel_name = stem + "-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as z:
        for p, d in files:
            z.writestr(p, d)
        z.writestr(record_path, record)
    return wheel_name
