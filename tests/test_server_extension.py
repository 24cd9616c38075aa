"""The server extension's start-up check, for real: the bundled Node loads sharp and resvg and
`figure-chat --version` answers; a broken native module or a mismatched labextension gives one
clear line; a Jupyter server with the extension enabled logs the result once."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import time
from pathlib import Path

import pytest

from jupyterlab_figure_chat import _jupyter_server_extension_points, runtime
from jupyterlab_figure_chat.extension import check_installation, labextension_version

REPO = Path(__file__).resolve().parent.parent
VERSION = json.loads((REPO / "package.json").read_text(encoding="utf-8"))["version"]


def _labextensions(tmp_path: Path, version: str) -> list[str]:
    folder = tmp_path / "labextensions" / "jupyterlab-figure-chat"
    folder.mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps({"version": version}), encoding="utf-8")
    return [str(tmp_path / "labextensions")]


def test_extension_point_names_the_module():
    assert _jupyter_server_extension_points() == [{"module": "jupyterlab_figure_chat.extension"}]


def test_labextension_version_reads_the_first_installed(tmp_path: Path):
    assert labextension_version(_labextensions(tmp_path, "9.9.9")) == "9.9.9"
    assert labextension_version([str(tmp_path / "nowhere")]) is None


async def test_check_passes_for_the_built_package():
    report = await check_installation(labextension=VERSION)
    assert report.ok, report.line
    assert f"Figure Chat {VERSION}: labextension and figure server match" in report.line


async def test_check_names_a_version_mismatch():
    report = await check_installation(labextension="0.0.1")
    assert not report.ok
    assert f"labextension (0.0.1) and figure server ({VERSION}) are different versions" in report.line


@pytest.mark.parametrize("binaries", ["@resvg/resvg-js-*/*.node", "@napi-rs/image-*/*.node"])
async def test_check_names_a_native_module_that_cannot_load(tmp_path: Path, binaries: str):
    # A copy of the bundled figure server with one native module's binary not a binary for this
    # machine, as when a wheel for another platform is installed.
    server = tmp_path / "figure_server"
    shutil.copytree(runtime.SERVER_DIR, server, symlinks=True)
    natives = list((server / "node_modules").glob(binaries))
    assert natives, f"the built figure server bundles no {binaries}"
    for native in natives:
        native.write_bytes(b"\0" * 64)
    report = await check_installation(server_dir=server, labextension=VERSION)
    assert not report.ok
    assert "its native modules (sharp, resvg, @napi-rs/image) do not load" in report.line
    assert "reinstall jupyterlab-figure-chat with pip" in report.line
    assert "\n" not in report.line


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"jupyterlab_figure_chat": True}}}


async def test_the_running_server_logs_the_check_once(jp_serverapp, caplog):
    caplog.set_level(logging.INFO)
    assert "jupyterlab_figure_chat" in jp_serverapp.extension_manager.extensions
    deadline = time.monotonic() + 60
    while not [r for r in caplog.records if "Figure Chat" in r.getMessage()]:
        assert time.monotonic() < deadline, "no start-up line from the Figure Chat server extension"
        await asyncio.sleep(0.1)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Figure Chat")]
    assert len(lines) == 1, lines
    # The browser reads the result here, so it never starts the figure server just to check it.
    page_config = jp_serverapp.web_app.settings["page_config_data"]
    deadline = time.monotonic() + 10
    while "figureChatCheck" not in page_config:
        assert time.monotonic() < deadline, "the check's result is not in the page config"
        await asyncio.sleep(0.05)
    check = json.loads(page_config["figureChatCheck"])
    assert check["version"] == VERSION and check["line"] == lines[0]
