"""The Figure Chat server extension: visible in ``jupyter server extension list``, and a start-up
check that the installed pieces fit together.

jupyter-server-proxy starts the figure server only on the first request, so without this check a
wheel built for another platform (or a labextension left over from another version) shows up only
as a failing chat in the browser. Here the server log says it once, at start-up, in one line.
"""

from __future__ import annotations

import asyncio
import json
import platform
from dataclasses import dataclass
from pathlib import Path

from . import runtime

LABEXTENSION_NAME = "jupyterlab-figure-chat"
# Node's start-up and the loading of its native modules take well under a second; a slow shared
# machine gets a generous bound before the check gives up.
PROBE_TIMEOUT_S = 60.0
# Loads the native modules the way the figure server does, from its bundled node_modules: sharp,
# resvg, and @napi-rs/image (the PNG encoder of vision views).
_LOAD_NATIVE = "require('sharp'); require('@resvg/resvg-js'); require('@napi-rs/image');"


@dataclass(frozen=True)
class StartupReport:
    """What the start-up check found: ``ok`` and one line for the server log."""

    ok: bool
    line: str
    #: The figure server's version, when it answered.
    server_version: str | None = None


def labextension_version(paths: list[str] | None = None) -> str | None:
    """The version of the first installed Figure Chat labextension JupyterLab would load."""
    if paths is None:
        from jupyter_core.paths import jupyter_path

        paths = jupyter_path("labextensions")
    for folder in paths:
        meta = Path(folder) / LABEXTENSION_NAME / "package.json"
        if meta.is_file():
            try:
                version = json.loads(meta.read_text(encoding="utf-8")).get("version")
            except (OSError, ValueError):
                continue
            return version if isinstance(version, str) else None
    return None


async def _run(command: list[str], cwd: Path) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), PROBE_TIMEOUT_S)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
        return -1, "", f"no answer within {PROBE_TIMEOUT_S:.0f} s"
    return process.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # Node's own stack trace ends with its version; the cause is the first `Error:` line.
    for line in lines:
        if "Error" in line and ":" in line:
            return line
    return lines[-1] if lines else "no message"


def _platform_name() -> str:
    return f"{platform.system()} {platform.machine()}"


async def check_installation(
    server_dir: Path | None = None, labextension: str | None = None
) -> StartupReport:
    """Start the bundled Node with its native modules; compare the versions of the two halves."""
    server_dir = server_dir or runtime.SERVER_DIR
    fix = "reinstall jupyterlab-figure-chat with pip so it picks the wheel built for this platform"
    try:
        node = runtime.node_executable()
    except runtime.FigureServerMissing as error:
        return StartupReport(False, f"Figure Chat cannot start its figure server: {error}")
    script = server_dir / runtime.SERVER_SCRIPT.name
    if not script.is_file():
        return StartupReport(
            False,
            f"Figure Chat cannot start its figure server: {script} is missing; {fix} "
            "(or run `npm run build:server` in a source checkout).",
        )
    try:
        code, _, err = await _run([node, "-e", _LOAD_NATIVE], server_dir)
    except OSError as error:
        return StartupReport(
            False,
            f"Figure Chat cannot start its figure server on {_platform_name()}: "
            f"the bundled Node ({node}) does not run ({error}); {fix}.",
        )
    if code != 0:
        return StartupReport(
            False,
            f"Figure Chat cannot start its figure server on {_platform_name()}: "
            f"its native modules (sharp, resvg, @napi-rs/image) do not load ({_last_line(err)}); {fix}.",
        )
    code, out, err = await _run([node, str(script), "--version"], server_dir)
    server_version = out.strip()
    if code != 0 or not server_version:
        return StartupReport(
            False,
            f"Figure Chat cannot start its figure server on {_platform_name()}: "
            f"`figure-chat --version` failed ({_last_line(err)}); {fix}.",
        )
    if labextension is None:
        labextension = labextension_version()
    if labextension is None:
        return StartupReport(
            False,
            f"Figure Chat's labextension is not installed (figure server {server_version}); "
            "reinstall jupyterlab-figure-chat with pip.",
            server_version,
        )
    if labextension != server_version:
        return StartupReport(
            False,
            f"Figure Chat's labextension ({labextension}) and figure server ({server_version}) "
            "are different versions; reinstall jupyterlab-figure-chat with pip (and remove any "
            "other copy of the labextension from `jupyter labextension list`).",
            server_version,
        )
    return StartupReport(
        True,
        f"Figure Chat {server_version}: labextension and figure server match; "
        f"Node, sharp and resvg start on {_platform_name()}.",
        server_version,
    )


def _publish_server_endpoint(serverapp) -> None:  # noqa: ANN001 - Jupyter's ServerApp
    """Put the server's model endpoint (never the key) in the page config, for the Settings editor."""
    from .proxy import FigureChat, server_endpoint

    configured = FigureChat(config=serverapp.config).endpoint.strip()
    page_config = serverapp.web_app.settings.setdefault("page_config_data", {})
    page_config["figureChatServerEndpoint"] = json.dumps(server_endpoint(configured=configured))


def _load_jupyter_server_extension(serverapp) -> None:  # noqa: ANN001 - Jupyter's ServerApp
    """Publish the server's endpoint; run the check in the background, so it never delays the start.

    The check's result goes into the page config too: the browser reads the figure server's
    version there instead of asking the figure server, which would start it for every user who
    opens JupyterLab (at JupyterHub scale, ~100 MB each for users who never chat; issue 33).
    """
    log = serverapp.log
    _publish_server_endpoint(serverapp)
    # Calls from other agents (MCP, ./mcp): their service, and the channel to the pages.
    from .mcp.server import setup_agent_calls

    setup_agent_calls(serverapp)

    async def report() -> None:
        try:
            result = await check_installation()
        except Exception as error:  # noqa: BLE001 - a check must never take the server down
            log.warning("Figure Chat: the start-up check itself failed: %s", error)
            return
        (log.info if result.ok else log.error)(result.line)
        page_config = serverapp.web_app.settings.setdefault("page_config_data", {})
        page_config["figureChatCheck"] = json.dumps(
            {"ok": result.ok, "line": result.line, "version": result.server_version}
        )

    serverapp.io_loop.add_callback(report)
