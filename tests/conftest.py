"""Fixtures for the server-side tests: a real Jupyter server with jupyter-server-proxy enabled,
access to the proxy's state for the ``figure-chat`` process, and a scripted OpenAI-compatible
model endpoint on loopback.

Every figure server a test starts is killed when the test ends (jupyter-server-proxy does not
stop its processes when a test's Jupyter server goes away), so tests stay independent.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from tornado.httpserver import HTTPServer
from tornado.testing import bind_unused_port
from tornado.web import Application, RequestHandler

pytest_plugins = ["pytest_jupyter.jupyter_server"]

PROXY_NAME = "figure-chat"

#: How long the scripted model waits for the test to see a chunk before it gives up on that gate.
GATE_TIMEOUT = 8.0

# Environment variables that would change what the figure server sends upstream.
_KEY_VARIABLES = (
    "FIGURE_CHAT_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "FIGURE_CHAT_ENDPOINT",
    "FIGURE_CHAT_MODEL_TIMEOUT",
    "FIGURE_CHAT_MODEL_IDLE_TIMEOUT",
    "FIGURE_CHAT_MODEL_MAX_DURATION",
    "FIGURE_CHAT_MODEL_MAX_BYTES",
    "FIGURE_CHAT_MAX_INFLIGHT_BYTES",
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "figure_chat_env(**variables): environment of the Jupyter server (and so of the figure "
        "server it starts), set before the Jupyter server starts",
    )


@pytest.fixture
def figure_chat_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict:
    """Clear API keys inherited from the developer's shell; apply a test's ``figure_chat_env`` marker."""
    for name in _KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    marker = request.node.get_closest_marker("figure_chat_env")
    variables = dict(marker.kwargs) if marker else {}
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    return variables


@pytest.fixture
def jp_server_config(figure_chat_env: dict) -> dict:
    """jupyter-server-proxy as a server extension (that is what starts the figure server).

    Depends on ``figure_chat_env`` so the environment is in place before the server starts.
    """
    return {
        "ServerApp": {
            "jpserver_extensions": {"jupyter_server_proxy": True},
            # CI runs the tests as root.
            "allow_root": True,
        }
    }


def _rules(router: Any):
    for rule in getattr(router, "rules", []):
        if hasattr(rule.target, "rules"):
            yield from _rules(rule.target)
        else:
            yield rule


def proxy_state(serverapp: Any, name: str = PROXY_NAME) -> dict:
    """The mutable state jupyter-server-proxy keeps for the named supervised process.

    It holds ``unix_socket`` (once a request has been routed) and ``proc`` (a simpervisor
    ``SupervisedProcess`` once the process has been started).
    """
    suffix = f"/{name}/(.*)$"
    for rule in _rules(serverapp.web_app.default_router):
        kwargs = rule.target_kwargs or {}
        regex = getattr(rule.matcher, "regex", None)
        if "state" in kwargs and regex is not None and regex.pattern.endswith(suffix):
            return kwargs["state"]
    raise AssertionError(
        f"jupyter-server-proxy has no supervised process {name!r}: is the "
        "jupyter_serverproxy_servers entry point of jupyterlab-figure-chat installed?"
    )


@dataclass
class FigureServer:
    """The figure server as jupyter-server-proxy manages it in the test's Jupyter server."""

    serverapp: Any

    @property
    def state(self) -> dict:
        return proxy_state(self.serverapp)

    @property
    def process(self) -> Any:
        proc = self.state.get("proc")
        return proc if hasattr(proc, "pid") else None

    @property
    def pid(self) -> int | None:
        proc = self.process
        if proc is None or proc.proc is None:
            return None
        return proc.pid

    @property
    def socket_path(self) -> str | None:
        return self.state.get("unix_socket")

    async def stop(self) -> None:
        proc = self.process
        if proc is not None and not getattr(proc, "_killed", True):
            try:
                await asyncio.wait_for(proc.kill(), 10)
            except Exception:  # noqa: BLE001 - already gone, mid-restart: kill by pid below
                proc._killed = True  # never restart it from here on
                pid = self.pid
                if pid:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
        path = self.socket_path
        if path:
            folder = os.path.dirname(path)
            if os.path.basename(folder).startswith("jupyter-server-proxy-"):
                shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def figure_server(jp_serverapp, http_server_client, jp_asyncio_loop):
    """Handle on the figure server of this test's Jupyter server; kills it afterwards."""
    handle = FigureServer(jp_serverapp)
    yield handle
    jp_asyncio_loop.run_until_complete(handle.stop())


def sse(payload: Any) -> bytes:
    return f"data: {payload if isinstance(payload, str) else json.dumps(payload)}\n\n".encode()


@dataclass
class FakeModel:
    """A scripted OpenAI-compatible Chat Completions endpoint.

    It streams ``chunks``. With ``gated``, after each chunk but the last it waits (at most
    ``GATE_TIMEOUT`` s) until the test calls ``seen(i)``, i.e. until the chunk has come out of
    the proxy chain at the client; a chain that buffers never lets the client see it, so the gate
    times out and is recorded in ``gate_timeouts``. With ``endless``, it never finishes the
    answer, as a local model still generating; ``closed_at`` is when its client hung up.
    """

    chunks: list[bytes]
    gated: bool = False
    status: int = 200
    error_body: bytes = b""
    port: int = 0
    requests: list[dict] = field(default_factory=list)
    gate_timeouts: list[int] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    gates: list[asyncio.Event] = field(default_factory=list)
    endless: bool = False
    closed_at: float | None = None
    closed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def seen(self, index: int) -> None:
        if not self.gates[index].is_set():
            self.events.append(f"client saw {index}")
            self.gates[index].set()


class _Completions(RequestHandler):
    def initialize(self, model: FakeModel) -> None:
        self.model = model

    def on_connection_close(self) -> None:
        if self.model.closed_at is None:
            self.model.closed_at = time.monotonic()
        self.model.closed.set()

    async def post(self) -> None:
        model = self.model
        model.requests.append(
            {
                "path": self.request.path,
                "headers": dict(self.request.headers.get_all()),
                "body": json.loads(self.request.body or b"null"),
            }
        )
        if model.status != 200:
            self.set_status(model.status)
            self.set_header("Content-Type", "application/json")
            self.finish(model.error_body)
            return
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        gated = model.gated
        for index, chunk in enumerate(model.chunks):
            self.write(chunk)
            model.events.append(f"sent {index}")
            await self.flush()
            if gated and index < len(model.chunks) - 1:
                try:
                    await asyncio.wait_for(model.gates[index].wait(), GATE_TIMEOUT)
                except asyncio.TimeoutError:
                    model.gate_timeouts.append(index)
                    gated = False  # fail the test, but do not hang it
        if model.endless:
            await model.closed.wait()
            return
        self.finish()


@pytest.fixture
def fake_model(jp_asyncio_loop):
    """Factory: ``fake_model(chunks, gated=False, status=200, error_body=b"")`` on 127.0.0.1."""
    servers: list[HTTPServer] = []

    def start(chunks: list[bytes], **options: Any) -> FakeModel:
        model = FakeModel(chunks=list(chunks), **options)
        model.gates = [asyncio.Event() for _ in model.chunks]
        sock, port = bind_unused_port()  # 127.0.0.1 only
        model.port = port
        server = HTTPServer(
            Application([(r"/v1/chat/completions", _Completions, {"model": model})])
        )
        server.add_sockets([sock])
        servers.append(server)
        return model

    yield start
    for server in servers:
        server.stop()
        try:
            jp_asyncio_loop.run_until_complete(
                asyncio.wait_for(server.close_all_connections(), 5)
            )
        except (asyncio.TimeoutError, RuntimeError):
            pass
