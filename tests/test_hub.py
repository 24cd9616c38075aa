"""Figure Chat under a real JupyterHub (issue 33.3): ``jupyterhub`` from PyPI, its
``configurable-http-proxy`` from npm (node_modules/.bin), two users of a dummy authenticator and
local single-user servers from this checkout's environment (where the extension is installed).

- each user's figure server answers through ``/user/<name>/figure-chat/``;
- Bob gets no data from Alice's figure-chat routes, pictures or model route, with or without his
  own token;
- the administrator's endpoint and key (``c.Spawner.environment``) reach the figure server, the
  chat with no endpoint setting talks to it, and the key never reaches a browser;
- stopping Alice's server while her figure server streams an answer leaves none of her processes.

One Hub for the module; every port is loopback (9520-9529), the single-user servers' are random.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

requests = pytest.importorskip("requests")
pytest.importorskip("jupyterhub")

REPO = Path(__file__).resolve().parent.parent
CHP = REPO / "node_modules" / ".bin" / "configurable-http-proxy"
HUB_PORT = int(os.environ.get("FIGURE_CHAT_HUB_PORT", "9520"))
HUB = f"http://127.0.0.1:{HUB_PORT}"
KEY = "sk-hub-admin-0123456789abcdefXYZ"
SERVICE_TOKEN = "figure-chat-hub-test-service-token-0123456789"
# The Hub, its proxy and two single-user servers start on a loaded 2-core machine.
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 15.0

pytestmark = [
    pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for the users' processes"),
    pytest.mark.skipif(not CHP.exists(), reason="configurable-http-proxy is not installed (npm ci)"),
]


# ----------------------------------------------------------------------------------------------
# The administrator's model server: scripted, records what it receives.


@dataclass
class ScriptedModel:
    """An OpenAI-compatible endpoint: streams a short answer, or a slow one for ``[slow]``."""

    port: int
    received: list[dict] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedModel:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                model.received.append(
                    {"path": self.path, "authorization": self.headers.get("Authorization"), "body": body}
                )
                text = json.dumps(body.get("messages", [{}])[-1].get("content", ""))
                slow = "[slow]" in text
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for index in range(600 if slow else 3):
                    chunk = {"choices": [{"index": 0, "delta": {"content": f"word{index} "}}]}
                    self._chunk(f"data: {json.dumps(chunk)}\n\n")
                    if slow:
                        time.sleep(0.1)
                self._chunk("data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")

            def _chunk(self, text: str) -> None:
                data = text.encode()
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server:
            self.server.shutdown()
            self.server.server_close()


# ----------------------------------------------------------------------------------------------
# The users' processes, found by the JUPYTERHUB_USER their spawner gave them.


def user_processes(name: str) -> dict[int, str]:
    """Pid → command line of every process whose environment says it belongs to ``name``."""
    found = {}
    marker = f"JUPYTERHUB_USER={name}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in environ:
            found[int(entry.name)] = cmdline
    return found


def figure_servers(name: str) -> dict[int, str]:
    return {
        pid: cmd for pid, cmd in user_processes(name).items() if "figure-chat.cjs" in cmd and " serve " in cmd
    }


# ----------------------------------------------------------------------------------------------
# The Hub.


@dataclass
class Hub:
    process: subprocess.Popen
    home: Path
    model: ScriptedModel
    tokens: dict[str, str] = field(default_factory=dict)

    def api(self, method: str, path: str, **kwargs: object) -> requests.Response:
        headers = {"Authorization": f"token {SERVICE_TOKEN}"}
        return requests.request(method, f"{HUB}/hub/api{path}", headers=headers, timeout=30, **kwargs)

    def start_server(self, name: str) -> None:
        response = self.api("POST", f"/users/{name}/server")
        assert response.status_code in (201, 202), response.text
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.api("GET", f"/users/{name}").json().get("servers", {}).get("", {}).get("ready"):
            assert self.process.poll() is None, "the Hub exited"
            assert time.monotonic() < deadline, f"{name}'s server did not become ready"
            time.sleep(0.2)

    def stop_server(self, name: str) -> None:
        response = self.api("DELETE", f"/users/{name}/server")
        assert response.status_code in (202, 204), response.text
        deadline = time.monotonic() + START_TIMEOUT_S
        while self.api("GET", f"/users/{name}").json().get("servers", {}).get(""):
            assert time.monotonic() < deadline, f"{name}'s server did not stop"
            time.sleep(0.2)

    def get(self, user: str, path: str, token: str | None, **kwargs: object) -> requests.Response:
        headers = {"Authorization": f"token {token}"} if token else {}
        return requests.get(
            f"{HUB}/user/{user}/{path}", headers=headers, timeout=60, allow_redirects=False, **kwargs
        )

    def post(self, user: str, path: str, token: str | None, body: dict, **kwargs: object) -> requests.Response:
        # As the chat sends it: jupyter-server-proxy streams only what asks for an event stream.
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if token:
            headers["Authorization"] = f"token {token}"
        return requests.post(
            f"{HUB}/user/{user}/{path}",
            data=json.dumps(body),
            headers=headers,
            timeout=60,
            allow_redirects=False,
            **kwargs,
        )


def _config(tmp: Path, model: ScriptedModel) -> str:
    venv_bin = Path(sys.executable).parent
    return f"""
c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {HUB_PORT}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {HUB_PORT + 1}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{HUB_PORT + 2}"
c.ConfigurableHTTPProxy.command = [{str(CHP)!r}]
c.JupyterHub.db_url = "sqlite:///{tmp}/hub.sqlite"
c.JupyterHub.cookie_secret_file = "{tmp}/cookie_secret"
c.JupyterHub.pid_file = "{tmp}/hub.pid"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = {{"alice", "bob"}}
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{tmp}/home/{{username}}"
c.Spawner.cmd = [{str(venv_bin / "jupyterhub-singleuser")!r}]
# CI runs as root; the single-user servers are this checkout's environment.
c.Spawner.args = ["--ServerApp.allow_root=True"]
c.Spawner.environment = {{
    "FIGURE_CHAT_ENDPOINT": {model.url!r},
    "FIGURE_CHAT_API_KEY": {KEY!r},
    "PATH": {f"{venv_bin}:{os.environ.get('PATH', '')}"!r},
}}
c.Spawner.start_timeout = {int(START_TIMEOUT_S)}
c.Spawner.http_timeout = {int(START_TIMEOUT_S)}
c.JupyterHub.services = [{{"name": "figure-chat-test", "api_token": {SERVICE_TOKEN!r}}}]
c.JupyterHub.load_roles = [
    {{
        "name": "figure-chat-test",
        "scopes": ["admin:users", "admin:servers", "tokens"],
        "services": ["figure-chat-test"],
    }}
]
"""


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    tmp = tmp_path_factory.mktemp("hub")
    for name in ("alice", "bob"):
        (tmp / "home" / name).mkdir(parents=True)
        _write_picture(tmp / "home" / name / "picture.png")
    model = ScriptedModel(HUB_PORT + 3).start()
    (tmp / "jupyterhub_config.py").write_text(_config(tmp, model), encoding="utf-8")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("FIGURE_CHAT_", "OPENAI_", "JUPYTER", "JPY_"))
    }
    env["PATH"] = f"{CHP.parent}:{Path(sys.executable).parent}:{env.get('PATH', '')}"
    log = (tmp / "hub.log").open("wb")
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("jupyterhub")), "-f", str(tmp / "jupyterhub_config.py")],
        cwd=tmp,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    hub = Hub(process, tmp, model)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert process.poll() is None, (tmp / "hub.log").read_text(errors="replace")[-3000:]
            try:
                if hub.api("GET", "/").ok:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "the Hub did not start"
            time.sleep(0.2)
        for name in ("alice", "bob"):
            hub.api("POST", f"/users/{name}")
            hub.start_server(name)
            token = hub.api("POST", f"/users/{name}/tokens", json={"note": "figure-chat test"})
            assert token.ok, token.text
            hub.tokens[name] = token.json()["token"]
        yield hub
    finally:
        for name in ("alice", "bob"):
            try:
                hub.api("DELETE", f"/users/{name}/server")
            except requests.RequestException:
                pass
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        for name in ("alice", "bob"):
            for pid in user_processes(name):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        model.stop()
        log.close()
        shutil.rmtree(tmp / "home", ignore_errors=True)


def _write_picture(path: Path) -> None:
    from PIL import Image

    Image.new("RGB", (64, 48), (30, 120, 200)).save(path)


RECORD = {
    "image": "picture.png",
    "marks": [{"id": 1, "kind": "point", "x": 10, "y": 10, "r": 4, "caption": "a", "colour": "red"}],
    "lastId": 1,
}


def chat_request(text: str) -> dict:
    """What the chat sends with no endpoint setting: an empty endpoint."""
    return {
        "endpoint": "",
        "body": {"model": "scripted", "stream": True, "messages": [{"role": "user", "content": text}]},
    }


# ----------------------------------------------------------------------------------------------


def test_each_users_figure_server_answers_and_draws_under_their_prefix(hub: Hub):
    for name in ("alice", "bob"):
        response = hub.get(name, "figure-chat/version", hub.tokens[name])
        assert response.status_code == 200, response.text[:300]
        assert response.json()["name"] == "figure-chat"
        assert len(figure_servers(name)) == 1, user_processes(name)
        # A picture in the user's own folder, measured and drawn with a mark.
        info = hub.post(name, "figure-chat/picture-info", hub.tokens[name], {"address": "picture.png"})
        assert info.status_code == 200, info.text[:300]
        assert (info.json()["width"], info.json()["height"]) == (64, 48)
        body = {"address": "picture.png", "views": [{"kind": "map"}], "record": RECORD}
        render = hub.post(name, "figure-chat/render", hub.tokens[name], body)
        assert render.status_code == 200, render.text[:300]
        assert len(render.json()["views"]) == 1


def test_the_chat_with_no_setting_talks_to_the_admins_endpoint_with_its_key(hub: Hub):
    before = len(hub.model.received)
    response = hub.post("alice", "figure-chat/model", hub.tokens["alice"], chat_request("hello"))
    assert response.status_code == 200, response.text[:500]
    assert "word2" in response.text
    assert KEY not in response.text
    received = hub.model.received[before:]
    assert [r["path"] for r in received] == ["/v1/chat/completions"]
    assert received[0]["authorization"] == f"Bearer {KEY}"


def test_the_page_names_the_admins_endpoint_and_never_the_key(hub: Hub):
    page = hub.get("alice", "lab", hub.tokens["alice"])
    assert page.status_code == 200, page.status_code
    assert "figureChatServerEndpoint" in page.text
    assert hub.model.url in page.text
    assert KEY not in page.text
    for path in ("lab/api/settings/jupyterlab-figure-chat:plugin", "api/me"):
        response = hub.get("alice", path, hub.tokens["alice"])
        assert KEY not in response.text, path


@pytest.mark.parametrize(
    "method,route,body",
    [
        ("GET", "figure-chat/version", None),
        ("POST", "figure-chat/picture-info", {"address": "picture.png"}),
        ("POST", "figure-chat/render", {"address": "picture.png", "views": [{"kind": "map"}], "record": RECORD}),
        ("POST", "figure-chat/model", chat_request("spend alice's key")),
    ],
)
@pytest.mark.parametrize("as_bob", ["bob's token", "no token"])
def test_bob_gets_nothing_from_alices_figure_server(hub: Hub, method: str, route: str, body, as_bob: str):
    token = hub.tokens["bob"] if as_bob == "bob's token" else None
    before = len(hub.model.received)
    if method == "GET":
        response = hub.get("alice", route, token)
    else:
        response = hub.post("alice", route, token, body)
    # Without a token the Hub sends a browser to log in; with Bob's it refuses. Never data.
    allowed = (403, 404) if token else (302, 403, 404)
    assert response.status_code in allowed, (response.status_code, response.text[:300])
    assert '"figure-chat"' not in response.text
    assert KEY not in response.text
    assert len(hub.model.received) == before, "Bob's request reached the model with Alice's key"


def test_stopping_a_server_mid_answer_leaves_no_process(hub: Hub):
    assert hub.get("alice", "figure-chat/version", hub.tokens["alice"]).status_code == 200
    assert figure_servers("alice"), "alice's figure server is not running"
    streamed = threading.Event()

    def ask_slowly() -> None:
        try:
            with hub.post(
                "alice", "figure-chat/model", hub.tokens["alice"], chat_request("[slow] talk"), stream=True
            ) as response:
                seen = b""
                for chunk in response.iter_content(chunk_size=None):
                    seen += chunk
                    if b"word1" in seen:
                        streamed.set()
        except requests.RequestException:
            # configurable-http-proxy may keep the browser's side open after the server is gone
            # (the connection ends when the test does); what matters here is the processes.
            pass

    threading.Thread(target=ask_slowly, daemon=True).start()
    assert streamed.wait(30), "the slow answer never started streaming"
    hub.stop_server("alice")
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while user_processes("alice"):
        assert time.monotonic() < deadline, f"left behind: {user_processes('alice')}"
        time.sleep(0.2)
    # Bob's server is untouched.
    assert hub.get("bob", "figure-chat/version", hub.tokens["bob"]).status_code == 200
