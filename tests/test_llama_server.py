"""A real llama.cpp ``llama-server`` behind Jupyter and the figure server (issue 8, item 9).

The server is built from the llama-cpp-python sdist by ``scripts/build-llama-server.sh`` (which
``scripts/test.sh`` runs; the build is cached outside the clone), and serves a tiny model the test
writes itself (``llama_tiny_model.py``: designed weights, so it writes "Here is the figure." and,
under ``tool_choice: "required"``, a native ``present_svg`` call). No model is downloaded.
Requests go the way the browser's go: ``POST <base_url>figure-chat/model`` on Jupyter, through the
figure server, to the real server on loopback.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from llama_tiny_model import token_id, write_tiny_model

LLAMA_VERSION = os.environ.get("LLAMA_CPP_PYTHON_VERSION", "0.3.36")
CACHE = Path(
    os.environ.get("FIGURE_CHAT_LLAMA_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "figure-chat/llama-server"
)
BINARY = CACHE / LLAMA_VERSION / "llama-server"
TEMPLATE = CACHE / LLAMA_VERSION / "qwen2.5.jinja"
FIXTURES = Path(__file__).resolve().parents[1] / "src/__tests__/fixtures/servers"

PRESENT_SVG = {
    "type": "function",
    "function": {
        "name": "present_svg",
        "description": "Show a static SVG figure inline",
        "parameters": {
            "type": "object",
            "properties": {"svg": {"type": "string"}, "alt": {"type": "string"}},
            "required": ["svg", "alt"],
        },
    },
}


def _skip_reason() -> str | None:
    if BINARY.is_file() and TEMPLATE.is_file():
        return None
    recorded = CACHE / "skip-reason"
    if recorded.is_file():
        return f"llama-server was not built: {recorded.read_text().strip()}"
    return f"llama-server {LLAMA_VERSION} is not built; run bash scripts/build-llama-server.sh"


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def _running_llama_server(folder: Path, context: int):
    """The real server on 127.0.0.1 serving the tiny model, with two slots sharing ``context``
    tokens and context shift on (see ``src/__tests__/helpers/llama-server.ts``); yields its
    ``/v1`` endpoint and stops it afterwards."""
    model = write_tiny_model(folder / "tiny.gguf", TEMPLATE.read_text())
    port = _free_port()
    log_path = folder / "server.log"
    log = log_path.open("wb")
    process = subprocess.Popen(
        [str(BINARY), "-m", str(model), "--host", "127.0.0.1", "--port", str(port),
         "--jinja", "-c", str(context), "-np", "2", "--context-shift",
         # One thread: see src/__tests__/helpers/llama-server.ts (spin-waiting threads on a
         # loaded machine made each token 50–400 ms).
         "-n", "256", "-t", "1", "-tb", "1", "--seed", "1"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"llama-server exited: {log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama-server did not become healthy within 60 s")
            time.sleep(0.2)
        yield f"{url}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory):
    """The real server for a tool round; stopped after the module."""
    with _running_llama_server(tmp_path_factory.mktemp("llama"), 4096) as endpoint:
        yield endpoint


async def _model(jp_fetch, endpoint: str, body: dict):
    return await jp_fetch(
        "figure-chat",
        "model",
        method="POST",
        body=json.dumps({"endpoint": endpoint, "body": body}),
        headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
        raise_error=False,
        request_timeout=120,
    )


def _events(raw: bytes) -> list[str]:
    text = raw.decode("utf-8")
    return [line[len("data: "):] for line in text.splitlines() if line.startswith("data: ")]


def _deltas(raw: bytes) -> list[dict]:
    out = []
    for payload in _events(raw):
        if payload == "[DONE]":
            continue
        chunk = json.loads(payload)
        out += [choice.get("delta", {}) for choice in chunk.get("choices", [])]
    return out


async def test_streams_text_repeatably(jp_fetch, figure_server, llama_server):
    body = {"model": "tiny", "messages": [{"role": "user", "content": "Say something"}],
            "stream": True, "max_tokens": 12, "seed": 3}
    first = await _model(jp_fetch, llama_server, body)
    assert first.code == 200, first.body
    assert first.headers["Content-Type"].startswith("text/event-stream")
    events = _events(first.body)
    assert events[-1] == "[DONE]"
    text = "".join(delta.get("content") or "" for delta in _deltas(first.body))
    assert len([d for d in _deltas(first.body) if d.get("content")]) >= 2
    assert text == "Here is the figure."
    again = await _model(jp_fetch, llama_server, body)
    assert "".join(d.get("content") or "" for d in _deltas(again.body)) == text


async def test_required_tool_choice_streams_a_native_tool_call(jp_fetch, figure_server, llama_server):
    body = {"model": "tiny", "messages": [{"role": "user", "content": "Draw a box"}],
            "stream": True, "seed": 3, "tools": [PRESENT_SVG], "tool_choice": "required"}
    response = await _model(jp_fetch, llama_server, body)
    assert response.code == 200, response.body
    assert _events(response.body)[-1] == "[DONE]"
    deltas = _deltas(response.body)
    assert "".join(d.get("content") or "" for d in deltas) == "Here is the figure."
    parts = [part for d in deltas for part in d.get("tool_calls") or []]
    assert {part.get("index") for part in parts} == {0}
    ids = {part["id"] for part in parts if part.get("id")}
    assert len(ids) == 1 and len(next(iter(ids))) == 32
    assert [part["function"]["name"] for part in parts if part["function"].get("name")] == ["present_svg"]
    arguments = "".join(part["function"].get("arguments") or "" for part in parts)
    assert json.loads(arguments) == {
        "svg": "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'>"
               "<rect width='8' height='8' fill='teal'/></svg>",
        "alt": "a tiny figure",
    }
    finish = [c.get("finish_reason") for p in _events(response.body)[:-1]
              for c in json.loads(p).get("choices", [])]
    assert finish[-1] == "tool_calls"


async def test_mid_stream_error_passes_through_with_the_partial_text(
    jp_fetch, figure_server, tmp_path
):
    # Two completions that never end fill their 512-token slots; with context shift on,
    # llama-server then writes `data: {"error":…}` and closes without [DONE]
    # (tools/server/server-context.cpp, pre_decode: "context shift cannot be used for shared prompt").
    with _running_llama_server(tmp_path, 1024) as endpoint:
        body = {"model": "tiny", "messages": [{"role": "user", "content": "Keep going"}],
                "stream": True, "n": 2, "ignore_eos": True, "max_tokens": 4000,
                "logit_bias": {str(token_id("<tool_call>")): -100}}
        response = await _model(jp_fetch, endpoint, body)
    assert response.code == 200
    events = _events(response.body)
    assert "[DONE]" not in events
    assert json.loads(events[-1]) == {"error": {
        "code": 500, "message": "context shift cannot be used for shared prompt", "type": "server_error"}}
    # Both completions streamed their text before the error, each under its own index.
    texts = {0: "", 1: ""}
    for payload in events[:-1]:
        for choice in json.loads(payload).get("choices", []):
            texts[choice["index"]] += choice.get("delta", {}).get("content") or ""
    assert all(text.count("Here is the figure.\n") > 10 for text in texts.values()), texts


async def test_image_refusal_is_the_recorded_500(jp_fetch, figure_server, llama_server):
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    body = {"model": "tiny", "stream": True, "max_tokens": 4, "messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}}]}]}
    response = await _model(jp_fetch, llama_server, body)
    assert response.code == 500
    message = json.loads(response.body)["error"]["message"]
    # The figure server quotes the real server's message, the one the chat's replay fixture holds.
    recorded = (FIXTURES / "llama.cpp-b5500.image-refused.http").read_bytes().decode().split("\r\n\r\n", 1)[1]
    assert json.loads(recorded)["error"]["message"] in message
    # The fallback the chat then makes (the same turn as text) is answered.
    text_only = {**body, "messages": [{"role": "user", "content": "What is this? (views as text)"}]}
    answered = await _model(jp_fetch, llama_server, text_only)
    assert answered.code == 200
    assert _events(answered.body)[-1] == "[DONE]"
