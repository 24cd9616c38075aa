"""Start the figure server from the Jupyter server, through jupyter-server-proxy.

The figure server listens on a Unix socket in a private temporary folder (no TCP port), and is
reachable only as ``<base_url>figure-chat/…`` for authenticated users. If it crashes, the
supervisor restarts it; it never exits 0 on its own, so a clean exit is never mistaken for done.

The model endpoint that the API key belongs to comes from the Jupyter server too: the
``FIGURE_CHAT_ENDPOINT`` environment variable, or ``c.FigureChat.endpoint`` in the Jupyter
server's configuration (the variable wins). The figure server inherits the Jupyter server's
environment, so the key variables reach it as they are.
"""

from __future__ import annotations

import os

from traitlets import Unicode
from traitlets.config import Configurable

from .runtime import node_executable, server_environment, server_script


class FigureChat(Configurable):
    """Figure Chat settings that belong to the Jupyter server, not to the browser."""

    endpoint = Unicode(
        "",
        config=True,
        help=(
            "The model server's OpenAI-compatible /v1 base (for example "
            "https://api.openai.com/v1). The API key (FIGURE_CHAT_API_KEY or OPENAI_API_KEY) is "
            "sent only there. The FIGURE_CHAT_ENDPOINT environment variable overrides it."
        ),
    )


def _configured_endpoint() -> str:
    """``c.FigureChat.endpoint`` from the running Jupyter server's configuration, if set."""
    try:
        from jupyter_server.serverapp import ServerApp

        if ServerApp.initialized():
            return FigureChat(config=ServerApp.instance().config).endpoint.strip()
    except Exception:  # noqa: BLE001 - no server configuration: nothing configured
        pass
    return ""


def _environment() -> dict[str, str]:
    """The figure server's environment on top of the Jupyter server's own."""
    env = server_environment()
    endpoint = _configured_endpoint()
    if endpoint and not os.environ.get("FIGURE_CHAT_ENDPOINT"):
        env["FIGURE_CHAT_ENDPOINT"] = endpoint
    return env


def _jupyter_settings() -> tuple[str, bool]:
    """The Jupyter root and whether hidden files are hidden, from the running server."""
    import os

    try:
        from jupyter_server.serverapp import ServerApp

        if ServerApp.initialized():
            app = ServerApp.instance()
            allow_hidden = bool(getattr(app.contents_manager, "allow_hidden", False))
            return str(app.root_dir), not allow_hidden
    except Exception:  # noqa: BLE001 - fall back to the working folder, as Jupyter does
        pass
    return os.getcwd(), True


def _command(unix_socket: str) -> list[str]:
    root, hide_hidden = _jupyter_settings()
    return [
        node_executable(),
        server_script(),
        "serve",
        "--socket",
        unix_socket,
        "--root",
        root,
        "--hide-hidden" if hide_hidden else "--show-hidden",
    ]


def setup_figure_server() -> dict:
    """The jupyter-server-proxy entry point for ``figure-chat``."""
    return {
        "command": _command,
        "environment": _environment,
        "unix_socket": True,
        "timeout": 30,
        "absolute_url": False,
        "new_browser_tab": False,
        "launcher_entry": {"enabled": False},
    }
