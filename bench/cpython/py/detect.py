"""Reports the interpreter, the CPU count and which of the lab's modules
import, as one JSON object (used by bench/cpython.Detect)."""
import importlib
import json
import os
import platform
import sys

MODULES = {
    # module: distribution name for importlib.metadata
    "fastapi": "fastapi", "uvicorn": "uvicorn", "starlette": "starlette",
    "anyio": "anyio", "PIL": "Pillow", "aiohttp": "aiohttp", "httpx": "httpx",
    "requests": "requests", "multipart": "python-multipart", "flask": "Flask",
    "gunicorn": "gunicorn", "pymysql": "PyMySQL", "aiomysql": "aiomysql",
}


def main():
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover - Python < 3.8
        metadata = None
    found, missing = {}, {}
    for mod, dist in MODULES.items():
        try:
            m = importlib.import_module(mod)
        except Exception as e:  # noqa: BLE001 - any import failure counts
            missing[mod] = "%s: %s" % (type(e).__name__, e)
            continue
        ver = getattr(m, "__version__", "")
        if metadata is not None:
            try:
                ver = metadata.version(dist)
            except Exception:  # noqa: BLE001
                pass
        found[mod] = str(ver)
    print(json.dumps({
        "executable": sys.executable,
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "cpus": os.cpu_count() or 0,
        "found": found,
        "missing": missing,
    }))


if __name__ == "__main__":
    main()
