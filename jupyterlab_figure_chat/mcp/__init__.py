"""Figure Chat's tools for other agents, over MCP (``docs/user/mcp.md``).

``jupyter-server-mcp`` (the MCP server inside Jupyter that Jupyter AI v3 runs) reads the
``jupyter_server_mcp.tools`` entry point of this package: :data:`TOOLS` names the five tools. Only
it imports :mod:`.tools` (and so FastMCP); without it nothing here is loaded.
"""

from __future__ import annotations

#: The tools as jupyter-server-mcp loads them (``module:function``), in the chat's order.
TOOLS = [
    f"jupyterlab_figure_chat.mcp.tools:{name}"
    for name in ("present_svg", "vision_mark", "vision_update", "vision_show", "vision_list")
]
