"""bench/cpython's own Flask test app: /ready and /sleep?s= under gunicorn."""
import os
import time

from flask import Flask, jsonify, request

from _conclab import thread_name, wait_seconds

app = Flask(__name__)


@app.route("/ready")
def ready():
    return jsonify(ok=True, pid=os.getpid())


@app.route("/sleep")
def sleep():
    time.sleep(wait_seconds(request.args.get("s"), "CONCLAB_WAIT_S", 0.1))
    return jsonify(ok=True, pid=os.getpid(), thread=thread_name())


from _conclab import trace_flask  # noqa: E402

trace_flask(app)
