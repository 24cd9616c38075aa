"""The server extension's part for other agents: the calls service the MCP tools use, and the
channel through which JupyterLab pages take the calls on the notebooks they have open."""

from __future__ import annotations

from typing import Any

from . import calls


def setup_agent_calls(serverapp: Any) -> None:
    """Install the calls service for this server (no MCP package is imported here)."""
    calls.install(serverapp)
