"""Jupyter server for the Galata tests: no token, a fixed root folder (so a restart finds the
same notebooks), and the figure server started by jupyter-server-proxy as for a user."""

import os

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 - `c` is the config object Jupyter passes in

c.ServerApp.root_dir = os.environ["FIGURE_CHAT_TEST_ROOT"]  # noqa: F821
c.ServerApp.port = int(os.environ.get("FIGURE_CHAT_TEST_PORT", "8888"))  # noqa: F821
# A JupyterHub single-user server runs under /user/<name>/ (playwright.baseurl.config.js).
c.ServerApp.base_url = os.environ.get("FIGURE_CHAT_TEST_BASE_URL", "/")  # noqa: F821
c.ServerApp.port_retries = 0  # noqa: F821
c.ServerApp.open_browser = False  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821 - CI runs as root

# Settings written by the tests that cannot mock them (Notebook 7) stay in the test runtime folder,
# never in the user's ~/.jupyter.
c.LabServerApp.user_settings_dir = os.path.join(  # noqa: F821
    os.path.dirname(os.environ["FIGURE_CHAT_TEST_ROOT"]), "user-settings"
)
# Notebook 7 (`jupyter notebook`, playwright.notebook.config.js) exposes `window.jupyterapp` too.
c.JupyterNotebookApp.expose_app_in_browser = True  # noqa: F821

# jupyter-server-mcp (the test extra installs it; it enables itself): on loopback, on a port the
# system picks unless FIGURE_CHAT_MCP_PORT names one, so that servers run side by side never
# collide on its default 3001. tests/mcp_client.py finds it by the server's pid.
c.MCPExtensionApp.mcp_port = int(os.environ.get("FIGURE_CHAT_MCP_PORT", "0"))  # noqa: F821
c.MCPServer.host = "127.0.0.1"  # noqa: F821
