"""Jupyter server for the Galata tests: no token, a fixed root folder (so a restart finds the
same notebooks), and the figure server started by jupyter-server-proxy as for a user."""

import os

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 - `c` is the config object Jupyter passes in

c.ServerApp.root_dir = os.environ["FIGURE_CHAT_TEST_ROOT"]  # noqa: F821
c.ServerApp.port = int(os.environ.get("FIGURE_CHAT_TEST_PORT", "8888"))  # noqa: F821
c.ServerApp.port_retries = 0  # noqa: F821
c.ServerApp.open_browser = False  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821 - CI runs as root
