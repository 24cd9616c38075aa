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
from urllib.parse import urlsplit

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
    if endpoint and not os.environ.get("FIGURE_CHAT_ENDPOINT", "").strip():
        env["FIGURE_CHAT_ENDPOINT"] = endpoint
        # So the figure server's messages name where the endpoint really came from.
        env["FIGURE_CHAT_ENDPOINT_SOURCE"] = "config"
    return env


OPENAI_DEFAULT_ENDPOINT = "https://api.openai.com/v1"


def server_endpoint(environ: dict[str, str] | None = None, configured: str | None = None) -> dict:
    """The Jupyter server's model endpoint and where it came from, for the browser to show.

    The same rule as the figure server's ``serverModelConfig`` (src/server/model/endpoint.ts):
    ``FIGURE_CHAT_ENDPOINT``, else ``c.FigureChat.endpoint``, else, with only ``OPENAI_API_KEY``,
    ``OPENAI_BASE_URL`` or OpenAI's endpoint. It goes into the page, so it carries whether a key
    is set, never the key, and an endpoint with a user name, password, query or fragment (where a
    secret could hide) is not shown.
    """
    env = os.environ if environ is None else environ
    if configured is None:
        configured = _configured_endpoint()
    has_key = bool(env.get("FIGURE_CHAT_API_KEY") or env.get("OPENAI_API_KEY"))
    endpoint, source = env.get("FIGURE_CHAT_ENDPOINT", "").strip(), "FIGURE_CHAT_ENDPOINT"
    if not endpoint and configured:
        endpoint, source = configured, "c.FigureChat.endpoint"
    if not endpoint and not env.get("FIGURE_CHAT_API_KEY") and env.get("OPENAI_API_KEY"):
        base = env.get("OPENAI_BASE_URL", "").strip()
        endpoint, source = (base, "OPENAI_BASE_URL") if base else (OPENAI_DEFAULT_ENDPOINT, "OPENAI_API_KEY")
    if endpoint:
        parts = urlsplit(endpoint)
        if parts.username or parts.password or parts.query or parts.fragment or "#" in endpoint:
            endpoint = "(not shown: it carries credentials, a query or a fragment)"
        else:
            endpoint = endpoint.rstrip("/")
    return {"endpoint": endpoint or None, "source": source if endpoint else None, "hasKey": has_key}


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
