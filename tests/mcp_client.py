"""A real MCP client (the ``mcp`` SDK over streamable HTTP), as an agent would use it: for
tests/test_mcp*.py, bench/mcp.py and ui-tests/tests/mcp.spec.ts.

As a program: ``python tests/mcp_client.py URL TOOL 'JSON ARGUMENTS' [--name CLIENT]`` prints the
call's result as JSON (``isError``, and each content block's type, text or mimeType and size).
URL may be ``pid:<PID>``: the MCP server of the Jupyter server with that process id, as it
published itself in Jupyter's runtime folder (so a server on a port the system picked is found).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation


@asynccontextmanager
async def mcp_session(url: str, name: str = "test-agent") -> AsyncIterator[ClientSession]:
    """An initialized MCP session with the server at ``url``, introducing itself as ``name``."""
    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, client_info=Implementation(name=name, version="1.0")) as session:
            await session.initialize()
            yield session


def summary(result: Any) -> dict[str, Any]:
    """A call result as plain JSON: ``isError`` and its content blocks (images by type and size)."""
    blocks = []
    for block in result.content:
        if block.type == "text":
            blocks.append({"type": "text", "text": block.text})
        elif block.type == "image":
            blocks.append({"type": "image", "mimeType": block.mime_type, "bytes": len(base64.b64decode(block.data))})
        else:
            blocks.append({"type": block.type})
    return {"isError": bool(result.is_error), "content": blocks}


def server_url(url: str) -> str:
    """``url``, or for ``pid:<PID>`` the URL in that Jupyter server's MCP runtime file."""
    if not url.startswith("pid:"):
        return url
    from jupyter_core.paths import jupyter_runtime_dir

    info = Path(jupyter_runtime_dir()) / f"jpserver-mcp-{int(url[4:])}.json"
    return str(json.loads(info.read_text("utf-8"))["url"])


async def _main(args: argparse.Namespace) -> int:
    async with mcp_session(server_url(args.url), args.name) as session:
        result = await session.call_tool(args.tool, json.loads(args.arguments))
    print(json.dumps(summary(result)))
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("url")
    parser.add_argument("tool")
    parser.add_argument("arguments")
    parser.add_argument("--name", default="test-agent")
    sys.exit(asyncio.run(_main(parser.parse_args())))
