"""conclab's JupyterLab server: the JupyterLab 3.6 front end built into
./build by scripts/setup.d/50-jupyterlab.sh, served by Debian's
jupyterlab-server (LabServerApp) on Debian's jupyter-server 1.x.

Run it through scripts/jupyterlab.sh, which installs the conclab kernelspec
into a private prefix, sets the Jupyter paths and the token, and passes the
server options (port, root dir). Every other argument is a jupyter-server
option (--ServerApp.xxx=...).

Environment:
  CONCLAB_LAB_STATE   directory for user settings and workspaces
                      (default: ../.cache/jupyterlab/state)
"""

import getpass
import json
import os
import sys

from jupyter_server.base.handlers import APIHandler
from jupyterlab_server import LabServerApp
from tornado import web
from tornado.ioloop import IOLoop

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "build")
STATE = os.environ.get("CONCLAB_LAB_STATE") or os.path.join(HERE, "..", ".cache", "jupyterlab", "state")

with open(os.path.join(HERE, "package.json"), encoding="utf-8") as f:
    VERSION = json.load(f)["version"]


def _jupyter_server_extension_points():
    return [{"module": __name__, "app": ConclabLab}]


class IdentityHandler(APIHandler):
    """GET /api/me: who the user is. JupyterLab 3.6's front end asks for it
    (it is jupyter-server 2's identity API, which 1.x lacks; without it the
    page logs a 404). One local user, allowed everything."""

    @web.authenticated
    def get(self):
        name = getpass.getuser()
        self.finish(json.dumps({
            "identity": {"username": name, "name": name, "display_name": name,
                         "initials": name[:1].upper(), "avatar_url": None, "color": None},
            "permissions": {},
        }))


class ConclabLab(LabServerApp):
    """JupyterLab at /lab, with no other server extensions loaded."""

    name = __name__
    extension_url = "/lab"
    default_url = "/lab"
    load_other_extensions = False
    app_name = "JupyterLab (conclab)"
    app_version = VERSION
    static_dir = BUILD
    schemas_dir = os.path.join(BUILD, "schemas")
    themes_dir = os.path.join(BUILD, "themes")
    app_settings_dir = os.path.join(BUILD, "application_settings")
    templates_dir = os.path.join(HERE, "templates")
    user_settings_dir = os.path.join(STATE, "user_settings")
    workspaces_dir = os.path.join(STATE, "workspaces")

    def initialize_handlers(self):
        super().initialize_handlers()
        self.handlers.append((r"/api/me", IdentityHandler))

    def initialize_settings(self):
        super().initialize_settings()
        # No terminals: this server is for notebooks.
        self.serverapp.web_app.settings["terminals_available"] = False
        IOLoop.current().add_callback(self._announce)

    def _announce(self):
        s = self.serverapp
        host = s.ip if s.ip and s.ip not in ("0.0.0.0", "::") else "127.0.0.1"
        url = "http://%s:%d%slab" % (host, s.port, s.base_url)
        if s.token:
            url += "?token=" + s.token
        # The line scripts/jupyterlab.sh and the tests look for.
        print("JupyterLab %s (conclab) is at %s" % (VERSION, url), flush=True)


def main():
    if not os.path.isfile(os.path.join(BUILD, "bundle.js")):
        sys.exit("conclab_lab: %s has no bundle.js: run scripts/setup.sh (it builds JupyterLab)" % BUILD)
    ConclabLab.launch_instance()


if __name__ == "__main__":
    main()
