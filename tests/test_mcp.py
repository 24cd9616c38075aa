"""Figure Chat's tools over MCP, for real: a Jupyter server with jupyter-server-mcp (which finds the
tools through this package's entry point) and the ``mcp`` client over streamable HTTP, on notebooks
no page has open (the server writes them through the contents manager)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from PIL import Image

from mcp_client import mcp_session

pytest.importorskip("jupyter_server_mcp")

SPECS = {
    tool["name"]: tool
    for tool in json.loads(
        (Path(__file__).resolve().parent.parent / "jupyterlab_figure_chat" / "tool_specs.json").read_text("utf-8")
    )["tools"]
}
TOOL_NAMES = ["present_svg", "vision_mark", "vision_update", "vision_show", "vision_list"]

FIGURE = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" viewBox="0 0 120 60">'
    '<rect x="4" y="4" width="112" height="52" fill="#3b82f6"/></svg>'
)
HOSTILE = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'


@pytest.fixture
def jp_server_config(figure_chat_env: dict) -> dict:
    return {
        "ServerApp": {
            "jpserver_extensions": {"jupyterlab_figure_chat": True, "jupyter_server_mcp": True},
            "allow_root": True,
        },
        # Port 0: the system picks a free loopback port, so parallel runs never collide.
        "MCPExtensionApp": {"mcp_port": 0},
        "MCPServer": {"host": "127.0.0.1"},
    }


@pytest.fixture
def mcp_url(jp_serverapp, jp_asyncio_loop) -> Any:
    """The MCP endpoint of the test's Jupyter server (its extension started as `jupyter lab` does)."""
    manager = jp_serverapp.extension_manager
    jp_asyncio_loop.run_until_complete(manager.start_extension("jupyter_server_mcp"))
    (app,) = manager.extension_apps["jupyter_server_mcp"]
    yield f"http://127.0.0.1:{app.mcp_server_instance.port}/mcp"
    jp_asyncio_loop.run_until_complete(app.stop_extension())


def _png(path: Path, size: tuple[int, int] = (400, 300)) -> bytes:
    image = Image.new("RGB", size, (20, 120, 60))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    path.write_bytes(buffer.getvalue())
    return buffer.getvalue()


def _notebook(path: Path, picture: bytes | None = None) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["other"] = {"kept": True}
    code = nbformat.v4.new_code_cell("plot()")
    code.id = "plotcell"
    if picture is not None:
        code.outputs = [
            nbformat.v4.new_output("display_data", data={"image/png": base64.b64encode(picture).decode("ascii")})
        ]
    notebook.cells = [nbformat.v4.new_markdown_cell("# Report"), code]
    nbformat.write(notebook, str(path))
    return notebook


def _conversation(path: Path) -> dict:
    return nbformat.read(str(path), as_version=4).metadata.get("figure_chat")


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def _images(result: Any) -> list[tuple[str, bytes]]:
    return [(block.mime_type, base64.b64decode(block.data)) for block in result.content if block.type == "image"]


async def test_the_tools_are_listed_with_the_chat_tools_schemas(mcp_url):
    async with mcp_session(mcp_url) as session:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert TOOL_NAMES == [name for name in listed if name in TOOL_NAMES]
    for name in TOOL_NAMES:
        tool, spec = listed[name], SPECS[name]
        assert tool.description == spec["description"]
        schema = tool.input_schema
        properties = dict(schema["properties"])
        assert properties.pop("notebook")["type"] == "string"
        # The chat tool's schema, property by property: the same zod schemas, exported.
        assert properties == spec["parameters"]["properties"]
        assert schema["required"] == ["notebook", *spec["parameters"].get("required", [])]


async def test_present_svg_on_a_closed_notebook_is_stored_and_returns_its_png(mcp_url, jp_root_dir: Path):
    path = jp_root_dir / "reports" / "run.ipynb"
    path.parent.mkdir()
    _notebook(path)
    async with mcp_session(mcp_url, name="Claude Code") as session:
        result = await session.call_tool(
            "present_svg", {"notebook": "reports/run.ipynb", "svg": FIGURE, "alt": "A blue box"}
        )
    assert not result.is_error, _text(result)
    assert _text(result) == "SVG presented inline: A blue box"
    ((mime, png),) = _images(result)
    assert mime == "image/png"
    assert Image.open(io.BytesIO(png)).size == (240, 120)  # drawn at 2×, as a Figure's PNG
    stored = nbformat.read(str(path), as_version=4)
    assert stored.metadata["other"] == {"kept": True}
    assistant, tool = stored.metadata["figure_chat"]["messages"]
    assert stored.metadata["figure_chat"]["version"] == 1
    assert assistant["role"] == "assistant" and assistant["status"] == "completed"
    assert assistant["agent"] == {"name": "Claude Code", "via": "mcp"}
    (call,) = assistant["tool_calls"]
    # The SVG lives only in the call's arguments; no `notebook` there, no PNG anywhere.
    assert call["name"] == "present_svg" and call["arguments"] == {"svg": FIGURE, "alt": "A blue box"}
    assert tool == {
        "id": tool["id"],
        "role": "tool",
        "tool_call_id": call["id"],
        "status": "completed",
        "content": "SVG presented inline: A blue box",
        "created": tool["created"],
    }
    assert "base64" not in path.read_text("utf-8") and "iVBOR" not in path.read_text("utf-8")


async def test_a_hostile_svg_is_an_error_and_the_file_is_unchanged(mcp_url, jp_root_dir: Path):
    path = jp_root_dir / "run.ipynb"
    _notebook(path)
    before = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    async with mcp_session(mcp_url) as session:
        result = await session.call_tool("present_svg", {"notebook": "run.ipynb", "svg": HOSTILE, "alt": "x"})
    assert result.is_error
    assert _text(result).startswith("Tool error: SVG contains <script>")
    assert not _images(result)
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime


async def test_vision_mark_on_a_workspace_picture_returns_a_view_and_folds(mcp_url, jp_root_dir: Path):
    (jp_root_dir / "pics").mkdir()
    _png(jp_root_dir / "pics" / "board.png")
    path = jp_root_dir / "run.ipynb"
    _notebook(path)
    async with mcp_session(mcp_url) as session:
        first = await session.call_tool(
            "vision_mark",
            {"notebook": "run.ipynb", "image": "pics/board.png", "marks": [{"at": "40,50", "caption": "a"}]},
        )
        # No image: the picture last used in the conversation, as in the chat; numbering goes on.
        second = await session.call_tool(
            "vision_mark", {"notebook": "run.ipynb", "marks": [{"at": "100,100,200,180"}], "view": "none"}
        )
        listed = await session.call_tool("vision_list", {"notebook": "run.ipynb"})
    assert not first.is_error, _text(first)
    ((mime, jpeg),) = _images(first)
    assert mime == "image/jpeg" and jpeg[:3] == b"\xff\xd8\xff"
    assert Image.open(io.BytesIO(jpeg)).width >= 400
    assert not second.is_error and not _images(second)
    assert "#1" in _text(listed) and "#2" in _text(listed)
    messages = _conversation(path)["messages"]
    assert [m["role"] for m in messages] == ["assistant", "tool"] * 3
    assert messages[1]["picture"]["address"] == "pics/board.png"
    assert messages[1]["picture"]["width"] == 400


async def test_vision_mark_on_a_cell_output(mcp_url, jp_root_dir: Path):
    path = jp_root_dir / "cells.ipynb"
    _notebook(path, picture=_png(jp_root_dir / "unused.png", (200, 100)))
    async with mcp_session(mcp_url) as session:
        result = await session.call_tool(
            "vision_mark", {"notebook": "cells.ipynb", "image": "cell:plotcell/0", "marks": [{"at": "10,10"}]}
        )
        missing = await session.call_tool(
            "vision_mark", {"notebook": "cells.ipynb", "image": "cell:plotcell/3", "marks": [{"at": "10,10"}]}
        )
    assert not result.is_error, _text(result)
    assert [mime for mime, _ in _images(result)] == ["image/jpeg"]
    assert _conversation(path)["messages"][1]["picture"]["address"] == "cell:plotcell/0"
    assert missing.is_error and "no image output at index 3" in _text(missing)
    assert len(_conversation(path)["messages"]) == 2


@pytest.mark.parametrize(
    "notebook, reason",
    [
        ("../outside.ipynb", 'through ".."'),
        ("/etc/passwd.ipynb", "absolute path"),
        (".hidden/run.ipynb", "hidden"),
        ("link/run.ipynb", "outside the Jupyter root"),
        ("missing.ipynb", 'No notebook "missing.ipynb"'),
        ("run.txt", "not a notebook"),
    ],
)
async def test_notebooks_outside_the_root_are_refused(mcp_url, jp_root_dir: Path, tmp_path_factory, notebook, reason):
    outside = tmp_path_factory.mktemp("outside")
    _notebook(outside / "run.ipynb")
    (jp_root_dir / "link").symlink_to(outside, target_is_directory=True)
    (jp_root_dir / ".hidden").mkdir()
    _notebook(jp_root_dir / ".hidden" / "run.ipynb")
    before = (outside / "run.ipynb").read_bytes()
    async with mcp_session(mcp_url) as session:
        result = await session.call_tool("present_svg", {"notebook": notebook, "svg": FIGURE, "alt": "x"})
    assert result.is_error and reason in _text(result), _text(result)
    assert (outside / "run.ipynb").read_bytes() == before
    assert "figure_chat" not in nbformat.read(str(jp_root_dir / ".hidden" / "run.ipynb"), as_version=4).metadata


@pytest.mark.parametrize(
    "image, reason",
    [
        ("../secret.png", "pictures must lie inside the Jupyter root"),
        ("/etc/hosts", "is an absolute path"),
        ("link/secret.png", "leads outside the Jupyter root (through a symlink)"),
        (".hidden.png", "is in a hidden file or folder"),
    ],
)
async def test_pictures_outside_the_root_are_refused(mcp_url, jp_root_dir: Path, tmp_path_factory, image, reason):
    outside = tmp_path_factory.mktemp("pictures")
    _png(outside / "secret.png")
    _png(jp_root_dir.parent / "secret.png")
    _png(jp_root_dir / ".hidden.png")
    (jp_root_dir / "link").symlink_to(outside, target_is_directory=True)
    path = jp_root_dir / "run.ipynb"
    _notebook(path)
    before = path.read_bytes()
    async with mcp_session(mcp_url) as session:
        result = await session.call_tool("vision_mark", {"notebook": "run.ipynb", "image": image, "marks": [{"at": "1,1"}]})
    assert result.is_error, _text(result)
    # The figure server's own refusal, as the chat's model reads it.
    assert _text(result).startswith("Tool error: ") and reason in _text(result), _text(result)
    assert not _images(result)
    assert path.read_bytes() == before


async def test_a_file_changed_on_disk_during_the_call_is_not_overwritten(mcp_url, jp_root_dir: Path, monkeypatch):
    from jupyterlab_figure_chat.mcp import calls

    path = jp_root_dir / "run.ipynb"
    _notebook(path)
    service = calls.service()
    run = service._run

    async def run_then_someone_saves(header: dict) -> Any:
        answer = await run(header)
        notebook = nbformat.read(str(path), as_version=4)
        notebook.cells.append(nbformat.v4.new_markdown_cell("written meanwhile"))
        nbformat.write(notebook, str(path))
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 2_000_000_000))
        return answer

    monkeypatch.setattr(service, "_run", run_then_someone_saves)
    async with mcp_session(mcp_url) as session:
        result = await session.call_tool("present_svg", {"notebook": "run.ipynb", "svg": FIGURE, "alt": "x"})
    assert result.is_error and "changed on disk" in _text(result)
    stored = nbformat.read(str(path), as_version=4)
    assert stored.cells[-1].source == "written meanwhile"
    assert "figure_chat" not in stored.metadata


async def test_concurrent_calls_on_one_notebook_keep_every_mark(mcp_url, jp_root_dir: Path):
    _png(jp_root_dir / "board.png")
    path = jp_root_dir / "run.ipynb"
    _notebook(path)

    async def mark(index: int) -> Any:
        async with mcp_session(mcp_url, name=f"agent-{index}") as session:
            return await session.call_tool(
                "vision_mark",
                {"notebook": "run.ipynb", "image": "board.png", "marks": [{"at": f"{index + 1},{index + 1}"}], "view": "none"},
            )

    results = await asyncio.gather(*(mark(index) for index in range(8)))
    assert not any(result.is_error for result in results), [_text(r) for r in results]
    async with mcp_session(mcp_url) as session:
        listed = _text(await session.call_tool("vision_list", {"notebook": "run.ipynb"}))
    numbers = [line.split()[0] for line in listed.splitlines() if line.startswith("#")]
    assert numbers == [f"#{n}" for n in range(1, 9)], listed
    assert len(_conversation(path)["messages"]) == 2 * 9


async def test_the_page_channel_refuses_unauthenticated_pages(mcp_url, jp_http_port, jp_base_url, jp_ws_fetch):
    from tornado.httpclient import HTTPClientError
    from tornado.websocket import websocket_connect

    url = f"ws://127.0.0.1:{jp_http_port}{jp_base_url}api/figure-chat/agent-calls"
    with pytest.raises(HTTPClientError) as refused:
        await websocket_connect(url)
    assert refused.value.code == 403
    # With the server's token, a page connects (and so may become a notebook's writer).
    socket = await jp_ws_fetch("api", "figure-chat", "agent-calls")
    socket.close()
