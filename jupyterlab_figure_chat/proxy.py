"""Start the figure server from the Jupyter server, through jupyter-server-proxy.

The figure server listens on a Unix socket in a private temporary folder (no TCP port), and is
reachable only as ``<base_url>figure-chat/…`` for authenticated users. If it crashes, the
supervisor restarts it; it never exits 0 on its own, so a clean exit is never mistaken for done.
"""

from __future__ import annotations

from .runtime import node_executable, server_environment, server_script


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
        "environment": server_environment,
        "unix_socket": True,
        "timeout": 30,
        "absolute_url": False,
        "new_browser_tab": False,
        "launcher_entry": {"enabled": False},
    }
