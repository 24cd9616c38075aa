"""The server side for real: a Jupyter server with jupyter-server-proxy starts the Node figure
server on a Unix socket and routes ``<base_url>figure-chat/<route>`` to it for authenticated users.

Only loopback is used. Each test is bounded in time; waits poll a state with a deadline.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import GATE_TIMEOUT, sse
from tornado.httpclient import HTTPRequest
from tornado.simple_httpclient import SimpleAsyncHTTPClient

import jupyterlab_figure_chat

REPO = Path(__file__).resolve().parent.parent

VALID_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" viewBox="0 0 120 80">'
    '<rect x="10" y="10" width="100" height="60" fill="#4477aa"/>'
    '<text x="60" y="45" text-anchor="middle" font-size="12">ok</text>'
    "</svg>"
)
HOSTILE_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    "<script>fetch('http://127.0.0.1:1/steal')</script>"
    "</svg>"
)

SECRET = "sk-test-secret"

STREAM_CHUNKS = [
    sse({"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": word}}]})
    for word in ("alpha ", "beta ", "gamma")
] + [sse("[DONE]")]


def bounded(seconds: float):
    """Fail (instead of hanging) a coroutine test that runs longer than ``seconds``."""

    def decorate(test):
        @functools.wraps(test)
        async def run(*args, **kwargs):
            await asyncio.wait_for(test(*args, **kwargs), seconds)

        return run

    return decorate


def expected_version() -> str:
    version = jupyterlab_figure_chat.__version__
    if version == "dev":  # a source tree whose _version.py was never generated
        version = json.loads((REPO / "package.json").read_text())["version"]
    return version


def model_request(endpoint: str) -> str:
    return json.dumps(
        {
            "endpoint": endpoint,
            "body": {
                "model": "fake-model",
                "messages": [{"role": "user", "content": "draw a box"}],
                "stream": True,
            },
        }
    )


async def post_json(jp_fetch, route: str, payload: dict, **kwargs):
    return await jp_fetch(
        "figure-chat",
        route,
        method="POST",
        body=json.dumps(payload),
        headers={"Content-Type": "application/json"},
        raise_error=False,
        **kwargs,
    )


async def stream_model(jp_fetch, model, received: bytearray | None = None):
    """POST figure-chat/model as the browser does, marking each chunk the client has seen."""
    received = bytearray() if received is None else received

    def on_chunk(data: bytes) -> None:
        received.extend(data)
        prefix = b""
        for index, chunk in enumerate(model.chunks):
            prefix += chunk
            if len(received) >= len(prefix) and bytes(received[: len(prefix)]) == prefix:
                model.seen(index)

    response = await jp_fetch(
        "figure-chat",
        "model",
        method="POST",
        body=model_request(model.endpoint),
        headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
        streaming_callback=on_chunk,
        raise_error=False,
        request_timeout=3 * GATE_TIMEOUT + 10,
    )
    return response, bytes(received)


# ----------------------------------------------------------------------------------------------
# /proc helpers (Linux): which sockets a process holds, and which of them listen.


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        match = re.fullmatch(r"socket:\[(\d+)\]", target)
        if match:
            inodes.add(match.group(1))
    return inodes


def _listening_inet_inodes() -> dict[str, str]:
    """inode → local address of every listening TCP socket (v4 and v6) in this network namespace."""
    listening = {}
    for table in ("tcp", "tcp6"):
        path = Path("/proc/net") / table
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A":  # TCP_LISTEN
                listening[fields[9]] = f"{table} {fields[1]}"
    return listening


def _listening_unix_paths() -> dict[str, str]:
    """inode → path of every listening (SO_ACCEPTCON) Unix socket that has a path."""
    listening = {}
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 8 and int(fields[3], 16) & 0x10000:
            listening[fields[6]] = fields[7]
    return listening


# ----------------------------------------------------------------------------------------------
# 1. Started by Jupyter, on a private Unix socket, never on TCP.


@bounded(30)
async def test_jupyter_starts_figure_server_on_private_unix_socket(jp_fetch, figure_server):
    assert figure_server.process is None, "the figure server starts on the first request, not before"

    response = await jp_fetch("figure-chat", "version")
    assert response.code == 200
    assert json.loads(response.body) == {"name": "figure-chat", "version": expected_version()}

    # The proxy was set up for a Unix socket, in a folder only this user can enter.
    path = figure_server.socket_path
    assert path, "jupyter-server-proxy has no unix_socket for figure-chat"
    assert figure_server.state.get("port") is None, "a TCP port was allocated for the figure server"
    info = os.stat(path)
    assert stat.S_ISSOCK(info.st_mode), f"{path} is not a socket"
    assert info.st_uid == os.getuid()
    assert stat.S_IMODE(info.st_mode) & 0o077 == 0, f"socket mode {oct(info.st_mode)}"
    folder = os.stat(os.path.dirname(path))
    assert folder.st_uid == os.getuid()
    assert stat.S_IMODE(folder.st_mode) == 0o700, f"socket folder mode {oct(folder.st_mode)}"

    # The supervised process is the Node figure server in `serve --socket` mode.
    pid = figure_server.pid
    assert pid
    if not sys.platform.startswith("linux"):
        pytest.skip("the listening-socket check reads /proc")
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert any(part.endswith(b"figure-chat.cjs") for part in cmdline), cmdline
    assert b"serve" in cmdline and b"--socket" in cmdline and path.encode() in cmdline

    held = _socket_inodes(pid)
    unix = _listening_unix_paths()
    assert path in {unix[inode] for inode in held if inode in unix}, (
        "the figure server process does not listen on the proxy's socket"
    )
    tcp = _listening_inet_inodes()
    assert not [tcp[inode] for inode in held if inode in tcp], "the figure server listens on TCP"


# ----------------------------------------------------------------------------------------------
# 2. No credentials, no figure server.


@bounded(30)
async def test_unauthenticated_requests_are_refused(
    jp_fetch, jp_http_port, jp_base_url, figure_server, fake_model
):
    model = fake_model(STREAM_CHUNKS)
    client = SimpleAsyncHTTPClient(force_instance=True)
    base = f"http://127.0.0.1:{jp_http_port}{jp_base_url}figure-chat/"

    def request(route: str, **kwargs) -> HTTPRequest:
        return HTTPRequest(base + route, follow_redirects=False, request_timeout=10, **kwargs)

    attempts = {
        "GET version, no token": request("version"),
        "GET version, wrong token": request("version", headers={"Authorization": "token not-the-token"}),
        "GET version, wrong token in URL": request("version?token=not-the-token"),
        "POST check-svg, no token": request(
            "check-svg", method="POST", body=json.dumps({"svg": VALID_SVG}),
            headers={"Content-Type": "application/json"},
        ),
        "POST model, no token": request(
            "model", method="POST", body=model_request(model.endpoint),
            headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
        ),
    }
    try:
        for label, req in attempts.items():
            response = await client.fetch(req, raise_error=False)
            assert response.code in (302, 403), f"{label}: {response.code}"
            if response.code == 302:
                assert "/login" in response.headers["Location"], f"{label}: {response.headers}"
            assert b'"figure-chat"' not in (response.body or b""), f"{label} reached the figure server"
    finally:
        client.close()

    # Nothing reached the figure server: it was never even started, and the model never called.
    assert figure_server.process is None
    assert model.requests == []

    # The same route with credentials does start it (so the check above can fail).
    response = await jp_fetch("figure-chat", "version")
    assert response.code == 200
    assert figure_server.process is not None


# ----------------------------------------------------------------------------------------------
# 3. The model route streams, chunk by chunk.


@bounded(30)
async def test_model_route_streams_chunks_as_they_arrive(jp_fetch, figure_server, fake_model):
    model = fake_model(STREAM_CHUNKS, gated=True)

    response, received = await stream_model(jp_fetch, model)

    assert response.code == 200, received[:500]
    assert response.headers["Content-Type"].startswith("text/event-stream")
    # Every chunk, in order, nothing added or lost.
    assert received == b"".join(STREAM_CHUNKS)
    # Streaming, not buffering: the model sent chunk i+1 only after the client had chunk i.
    assert model.gate_timeouts == [], (
        f"chunks {model.gate_timeouts} did not reach the client within {GATE_TIMEOUT} s while the "
        f"model waited: the proxy chain buffers ({model.events})"
    )
    assert model.events == [
        "sent 0", "client saw 0", "sent 1", "client saw 1", "sent 2", "client saw 2",
        "sent 3", "client saw 3",
    ]
    # The model got the browser's request, at the completions URL of the endpoint.
    [call] = model.requests
    assert call["path"] == "/v1/chat/completions"
    assert call["body"]["model"] == "fake-model"
    assert call["body"]["stream"] is True
    assert call["body"]["messages"] == [{"role": "user", "content": "draw a box"}]
    assert "Authorization" not in call["headers"], "no key configured, yet one was sent"


# ----------------------------------------------------------------------------------------------
# 4. check-svg through the proxy.


@bounded(30)
async def test_check_svg_route_accepts_valid_and_refuses_script(jp_fetch, figure_server):
    response = await post_json(jp_fetch, "check-svg", {"svg": VALID_SVG})
    assert response.code == 200, response.body
    result = json.loads(response.body)
    assert result["ok"] is True, result

    response = await post_json(jp_fetch, "check-svg", {"svg": HOSTILE_SVG})
    assert response.code == 200, response.body
    result = json.loads(response.body)
    assert result["ok"] is False, result
    assert "script" in json.dumps(result["error"]).lower(), result

    response = await post_json(jp_fetch, "check-svg", {"not-svg": 1})
    assert response.code == 400
    assert "check-svg" in json.loads(response.body)["error"]["message"]


# ----------------------------------------------------------------------------------------------
# 5. Killed, then restarted on the next requests.


@bounded(40)
async def test_figure_server_is_restarted_after_a_crash(jp_fetch, figure_server):
    response = await jp_fetch("figure-chat", "version")
    assert response.code == 200
    old_pid = figure_server.pid
    assert old_pid

    os.kill(old_pid, signal.SIGKILL)

    deadline = time.monotonic() + 30
    codes = []
    while True:
        response = await jp_fetch("figure-chat", "version", raise_error=False, request_timeout=5)
        codes.append(response.code)
        if response.code == 200:
            break
        # While it restarts, a request may fail, but cleanly: a server error, not a hang or a 4xx.
        assert response.code >= 500, (response.code, response.body[:300])
        assert time.monotonic() < deadline, f"not back within 30 s: {codes[-10:]}"
        await asyncio.sleep(0.1)

    assert json.loads(response.body)["name"] == "figure-chat"
    new_pid = figure_server.pid
    assert new_pid and new_pid != old_pid
    # The old process is gone (reaped), the new one serves the same private socket.
    assert not Path(f"/proc/{old_pid}").exists() or not sys.platform.startswith("linux")
    assert stat.S_ISSOCK(os.stat(figure_server.socket_path).st_mode)
    # And real work goes through again.
    response = await post_json(jp_fetch, "check-svg", {"svg": HOSTILE_SVG})
    assert response.code == 200
    assert json.loads(response.body)["ok"] is False


# ----------------------------------------------------------------------------------------------
# 6. The API key goes to the model, never to the client.


@pytest.mark.figure_chat_env(FIGURE_CHAT_API_KEY=SECRET)
@bounded(30)
async def test_api_key_reaches_the_model_and_never_the_client(
    jp_fetch, jp_serverapp, figure_server, fake_model, monkeypatch
):
    assert os.environ.get("FIGURE_CHAT_API_KEY") == SECRET
    seen = []  # everything the client gets back: status line, headers, bodies

    def record(response, body: bytes) -> None:
        seen.append(f"{response.code} {response.reason}")
        seen.extend(f"{name}: {value}" for name, value in response.headers.get_all())
        seen.append(body.decode("utf-8", "replace"))

    # A streamed answer. The key goes only to the server's own endpoint, which the figure server
    # reads from its environment when Jupyter starts it (on the first request).
    model = fake_model(STREAM_CHUNKS)
    monkeypatch.setenv("FIGURE_CHAT_ENDPOINT", model.endpoint)
    response, received = await stream_model(jp_fetch, model)
    assert response.code == 200
    assert received == b"".join(STREAM_CHUNKS)
    record(response, received)
    [call] = model.requests
    assert call["headers"].get("Authorization") == f"Bearer {SECRET}"
    jupyter_token = jp_serverapp.identity_provider.token
    assert jupyter_token not in json.dumps(call), "the Jupyter token was forwarded to the model"

    # The model refuses the key and echoes it: the error the client sees explains, without it.
    refusing = model
    refusing.status = 401
    refusing.error_body = json.dumps(
        {"error": {"message": f"Incorrect API key provided: {SECRET.upper()}"}}
    ).encode()
    response, received = await stream_model(jp_fetch, refusing)
    assert response.code == 401, received
    assert "FIGURE_CHAT_API_KEY" in received.decode()
    record(response, received)
    assert refusing.requests[-1]["headers"].get("Authorization") == f"Bearer {SECRET}"

    # The same request without streaming, and the other routes.
    response = await jp_fetch(
        "figure-chat", "model", method="POST", body=model_request(refusing.endpoint),
        headers={"Content-Type": "application/json"}, raise_error=False,
    )
    assert response.code == 401
    record(response, response.body)
    for route, payload in (("check-svg", {"svg": HOSTILE_SVG}), ("model", {"endpoint": "nope"})):
        response = await post_json(jp_fetch, route, payload)
        record(response, response.body)
    response = await jp_fetch("figure-chat", "version")
    record(response, response.body)

    leaks = [text for text in seen if "sk-test" in text.lower()]
    assert leaks == [], f"the API key reached the client: {leaks}"


# ----------------------------------------------------------------------------------------------
# 7. The console script.


def _figure_chat_program() -> str:
    beside = Path(sys.executable).with_name("figure-chat")
    return str(beside) if beside.exists() else "figure-chat"


@pytest.mark.parametrize(
    ("svg", "exit_code"), [(VALID_SVG, 0), (HOSTILE_SVG, 1)], ids=["valid", "script"]
)
def test_console_script_check_svg(svg, exit_code, tmp_path):
    program = _figure_chat_program()
    result = subprocess.run(
        [program, "check-svg", "-"],
        input=svg, capture_output=True, text=True, timeout=30, cwd=tmp_path,
    )
    assert result.returncode == exit_code, result.stderr
    if exit_code:
        assert "script" in result.stderr.lower()

    # From a file, with the JSON report.
    figure = tmp_path / "figure.svg"
    figure.write_text(svg)
    result = subprocess.run(
        [program, "check-svg", str(figure), "--json"],
        capture_output=True, text=True, timeout=30, cwd=tmp_path,
    )
    assert result.returncode == exit_code, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is (exit_code == 0), report


# ----------------------------------------------------------------------------------------------
# 8. Cross-site requests riding on the login cookie.


@pytest.mark.figure_chat_env(FIGURE_CHAT_API_KEY=SECRET)
@bounded(30)
async def test_cross_site_cookie_post_does_not_reach_the_model(
    jp_fetch, jp_http_port, jp_base_url, jp_serverapp, figure_server, fake_model
):
    model = fake_model(STREAM_CHUNKS)
    client = SimpleAsyncHTTPClient(force_instance=True)
    base = f"http://127.0.0.1:{jp_http_port}{jp_base_url}"
    try:
        # Log in as a browser does: the token once in the URL, a login cookie from then on.
        token = jp_serverapp.identity_provider.token
        response = await client.fetch(
            HTTPRequest(f"{base}api/status?token={token}", follow_redirects=False, request_timeout=10)
        )
        cookies = [c.split(";", 1)[0] for c in response.headers.get_list("Set-Cookie")]
        assert any(c.startswith("username-") for c in cookies), cookies
        cookie = "; ".join(cookies)

        # What a hostile page's <form enctype="text/plain" method="post"> sends: the body is
        # `name=value`, crafted so that it is still JSON.
        def cross_site(path: str, body: str) -> HTTPRequest:
            return HTTPRequest(
                base + path, method="POST", body=body, follow_redirects=False, request_timeout=10,
                headers={
                    "Cookie": cookie,
                    "Content-Type": "text/plain",
                    "Origin": "http://evil.example",
                    "Referer": "http://evil.example/page.html",
                    "Sec-Fetch-Site": "cross-site",
                    "Sec-Fetch-Mode": "navigate",
                },
            )

        # Control: Jupyter's own API refuses such a request (cross-origin, no XSRF token: 404 or
        # 403), while the same cookie from the same site is accepted, so the cookie is valid.
        response = await client.fetch(cross_site("api/contents", "{}"), raise_error=False)
        assert response.code in (403, 404), response.code
        response = await client.fetch(
            HTTPRequest(f"{base}api/status", headers={"Cookie": cookie}, request_timeout=10)
        )
        assert response.code == 200

        form_body = model_request(model.endpoint)[:-1] + ', "x": "=' + '"}'
        assert json.loads(form_body)["endpoint"] == model.endpoint
        response = await client.fetch(cross_site("figure-chat/model", form_body), raise_error=False)
    finally:
        client.close()
    assert model.requests == [], (
        f"a cross-site POST reached the model with {model.requests[0]['headers'].get('Authorization')!r}"
    )
    assert response.code in (400, 403, 404, 415), response.code


# ----------------------------------------------------------------------------------------------
# 9. Stop reaches the model through Jupyter (jupyter-server-proxy does not pass on a client that
#    goes away, so the chat cancels its request by id).


async def _open_model_stream(jp_http_port, jp_base_url, token: str, body: str):
    """POST figure-chat/model over a raw connection, as a browser tab would; returns the streams
    once the response has started."""
    reader, writer = await asyncio.open_connection("127.0.0.1", jp_http_port)
    payload = body.encode()
    writer.write(
        (
            f"POST {jp_base_url}figure-chat/model HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{jp_http_port}\r\n"
            f"Authorization: token {token}\r\n"
            "Content-Type: application/json\r\nAccept: text/event-stream\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n"
        ).encode()
        + payload
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    return reader, writer


@bounded(40)
async def test_stop_closes_the_model_connection_through_jupyter(
    jp_fetch, jp_http_port, jp_base_url, jp_serverapp, figure_server, fake_model
):
    model = fake_model(STREAM_CHUNKS[:1], endless=True)
    request_id = "stop-test-0123456789"
    body = json.loads(model_request(model.endpoint))
    body["id"] = request_id
    token = jp_serverapp.identity_provider.token
    reader, writer = await _open_model_stream(jp_http_port, jp_base_url, token, json.dumps(body))
    received = b""
    while b"alpha" not in received:
        received += await asyncio.wait_for(reader.read(4096), 10)

    # Stop: the tab drops its request and the chat asks for the cancel.
    writer.close()
    stopped = time.monotonic()
    response = await post_json(jp_fetch, "model-cancel", {"id": request_id})
    assert response.code == 200, response.body
    assert json.loads(response.body) == {"cancelled": True}

    await asyncio.wait_for(model.closed.wait(), 5)
    assert model.closed_at is not None
    assert model.closed_at - stopped < 1.0, f"closed {model.closed_at - stopped:.2f} s after Stop"


# ----------------------------------------------------------------------------------------------
# 10. Early refusals reach the browser as the figure server's JSON, not Jupyter's HTML 500.


@bounded(120)
async def test_early_refusals_arrive_as_json_through_jupyter(jp_fetch, figure_server):
    body = b"x" * (2 * 1024 * 1024)
    cases = [
        ("check-svg", "text/plain", 415),  # wrong type: refused before the body is read
        ("no-such-route", "application/json", 404),
    ]
    statuses: dict[int, int] = {}
    for attempt in range(20):
        route, content_type, expected = cases[attempt % len(cases)]
        response = await jp_fetch(
            "figure-chat", route, method="POST", body=body,
            headers={"Content-Type": content_type}, raise_error=False, request_timeout=30,
        )
        statuses[response.code] = statuses.get(response.code, 0) + 1
        assert response.code == expected, (attempt, response.code, response.body[:200])
        assert json.loads(response.body)["error"]["message"]
    assert statuses == {415: 10, 404: 10}


@pytest.mark.figure_chat_env(FIGURE_CHAT_API_KEY=SECRET)
@bounded(30)
async def test_key_without_endpoint_says_what_to_set(jp_fetch, figure_server, fake_model):
    model = fake_model(STREAM_CHUNKS)
    response, received = await stream_model(jp_fetch, model)
    assert response.code == 500, received
    error = json.loads(received)["error"]
    assert error["code"] == "no-server-endpoint"
    assert "Set FIGURE_CHAT_ENDPOINT" in error["message"]
    assert SECRET not in received.decode()
    assert model.requests == []


@pytest.mark.figure_chat_env(FIGURE_CHAT_API_KEY=SECRET)
@bounded(30)
async def test_endpoint_from_jupyter_config_gets_the_key(
    jp_fetch, jp_serverapp, figure_server, fake_model
):
    model = fake_model(STREAM_CHUNKS)
    # c.FigureChat.endpoint, read when Jupyter starts the figure server (on the first request).
    jp_serverapp.config.FigureChat.endpoint = model.endpoint
    other = fake_model(STREAM_CHUNKS)
    response, received = await stream_model(jp_fetch, other)
    assert response.code == 200, received
    assert other.requests == [], "the browser's endpoint on another origin got the key"
    [call] = model.requests
    assert call["headers"].get("Authorization") == f"Bearer {SECRET}"


def test_endpoint_variable_wins_over_jupyter_config(jp_serverapp, figure_chat_env, monkeypatch):
    from jupyterlab_figure_chat import proxy

    jp_serverapp.config.FigureChat.endpoint = "http://127.0.0.1:9/from-config/v1"
    assert proxy._environment()["FIGURE_CHAT_ENDPOINT"] == "http://127.0.0.1:9/from-config/v1"
    # The variable is inherited by the figure server as it is; the config does not override it.
    monkeypatch.setenv("FIGURE_CHAT_ENDPOINT", "http://127.0.0.1:9/from-env/v1")
    assert "FIGURE_CHAT_ENDPOINT" not in proxy._environment()
    assert "FIGURE_CHAT_FONT_DIR" in proxy._environment()
