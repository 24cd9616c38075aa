"""The server extension's part for other agents: the calls service the MCP tools use, and the
channel through which JupyterLab pages take the calls on the notebooks they have open."""

from __future__ import annotations

from typing import Any

from jupyter_server.utils import url_path_join

from . import calls
from .pages import PageChannel, Pages

#: Where a page's end of the channel connects (not under `figure-chat/`, which is the figure
#: server's, proxied).
CHANNEL_PATH = "api/figure-chat/agent-calls"


def setup_agent_calls(serverapp: Any) -> None:
    """Install the calls service and the page channel (no MCP package is imported here)."""
    pages = Pages()
    calls.install(serverapp, pages)
    route = url_path_join(serverapp.web_app.settings["base_url"], CHANNEL_PATH)
    serverapp.web_app.add_handlers(".*$", [(route, PageChannel, {"pages": pages})])
