"""conclab's framework calibration app (Flask under gunicorn gthread): an
endpoint that does nothing, so a request's CPU is the stack's own —
gunicorn's parsing, its gthread worker's hand-off and response writing, and
Flask's dispatch and JSON response.
"""
from flask import Flask, jsonify

app = Flask(__name__)


@app.route('/ready', methods=['GET'])
def ready():
    return jsonify(ok=True)


@app.route('/nothing', methods=['GET'])
def nothing():
    return jsonify(ok=True)


from _conclab import trace_flask  # noqa: E402

trace_flask(app)
