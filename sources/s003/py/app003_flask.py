"""Source 003's Flask app, served by gunicorn (workers x threads).

/test-flask runs the handler chosen by CONCLAB_MODE: "io" waits
CONCLAB_WAIT_S seconds with time.sleep (the source's 10 s), "cpu" computes
sum(x**2 for x in list(range(CONCLAB_N))) (the source's 10,000,000).
/io and /cpu are the two handlers by name; ?s= and ?n= override per request.
Each handler prints start-time / finish-time lines as the source does.
"""
import datetime
import os
import time

from flask import Flask, jsonify, request

from _conclab import env_int, env_str, sum_of_squares, thread_name, wait_seconds

app = Flask(__name__)


def _io():
    print(f'start-time - {datetime.datetime.now()}')
    time.sleep(wait_seconds(request.args.get("s"), "CONCLAB_WAIT_S", 10.0))
    print(f'finish-time - {datetime.datetime.now()}')
    return 'Done!'


def _cpu():
    print(f'start-time - {datetime.datetime.now()}')
    n = int(request.args.get("n") or env_int("CONCLAB_N", 10_000_000))
    sum_of_squares(n)
    print(f'finish-time - {datetime.datetime.now()}')
    return 'Done!'


@app.route('/ready', methods=['GET'])
def ready():
    return jsonify(ok=True, pid=os.getpid())


@app.route('/test-flask', methods=['GET'])
def test():
    return _cpu() if env_str("CONCLAB_MODE", "io") == "cpu" else _io()


@app.route('/io', methods=['GET'])
def io():
    _io()
    return jsonify(ok=True, pid=os.getpid(), thread=thread_name())


@app.route('/cpu', methods=['GET'])
def cpu():
    _cpu()
    return jsonify(ok=True, pid=os.getpid(), thread=thread_name())


# Per-request traces when CONCLAB_TRACE_DIR is set (not part of the source).
from _conclab import trace_flask  # noqa: E402

trace_flask(app)
