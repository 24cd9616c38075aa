"""Running an agent's tool call on a notebook, with one writer per notebook.

A call names a notebook. If a JupyterLab page has it open (./pages), that page is its writer: the
call goes to it, and it applies the call to its document model through the chat's own session
code. Otherwise the server is: it reads the file through the contents manager, runs the call with
the chat's own handlers in the figure program (``figure-chat kernel``'s ``agent`` op: the figure
server's picture confinement, SVG checks and rendering, the vision records' fold), and writes the
turn back through the contents manager — refusing if the file changed on disk meanwhile. Calls on
one notebook run one at a time, so concurrent calls never lose a turn or share a mark number.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
from dataclasses import dataclass, field
from typing import Any

from jupyter_core.utils import ensure_async

from ..errors import FigureChatError
from ..program import FigureProgram
from .paths import AgentCallError, notebook_path

#: How long a call may take before the agent is told it timed out (the program is restarted).
CALL_TIMEOUT_S = 120.0

#: Largest notebook (its cells and conversation as JSON) a call reads, as the figure server's
#: request-body limit (MAX_BODY_BYTES): a notebook's `cell:` pictures travel inside it.
MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024

#: The stored conversation's metadata key and format version (SPEC 4.1).
METADATA_KEY = "figure_chat"
TRANSCRIPT_VERSION = 1


@dataclass(frozen=True)
class AgentImage:
    """An image the agent gets back: a vision view's model copy (JPEG) or a figure's PNG."""

    mime: str
    data: bytes
    width: int
    height: int


@dataclass
class AgentResult:
    """What a call gave: its text, its images, and whether it failed (nothing was written then)."""

    text: str
    failed: bool = False
    images: list[AgentImage] = field(default_factory=list)


class AgentCalls:
    """The calls of other agents on this Jupyter server's notebooks."""

    def __init__(self, serverapp: Any, pages: Any = None) -> None:
        self._serverapp = serverapp
        self._locks: dict[str, asyncio.Lock] = {}
        #: Per notebook: the modification time and content of the file as this server last had it.
        self._written: dict[str, tuple[Any, Any]] = {}
        self._program: FigureProgram | None = None
        #: The page channel (./pages), which knows the notebooks open in JupyterLab pages.
        self.pages = pages

    @property
    def contents_manager(self) -> Any:
        return self._serverapp.contents_manager

    def _lock(self, path: str) -> asyncio.Lock:
        lock = self._locks.get(path)
        if lock is None:
            lock = self._locks[path] = asyncio.Lock()
        return lock

    async def call(self, notebook: Any, name: str, arguments: dict[str, Any], agent: str) -> AgentResult:
        """Run one call; AgentCallError for a refusal before the tool ran."""
        path = notebook_path(notebook, self.contents_manager)
        call = {"name": name, "arguments": arguments, "agent": {"name": agent, "via": "mcp"}}
        async with self._lock(path):
            page = self.pages.page_for(path) if self.pages is not None else None
            if page is None:
                return await self._call_closed(path, call)
            result = await page.call(path, call)
            if name == "present_svg" and not result.failed and not result.images:
                # The page has no PNG of a figure; the figure program draws the one the agent sees.
                answer, png = await self._run({"op": "figure", "svg": arguments.get("svg"), "alt": arguments.get("alt")})
                result.images.append(AgentImage("image/png", png, int(answer["pngWidth"]), int(answer["pngHeight"])))
            return result

    # -- the closed notebook: the server writes the file -------------------------------------

    async def _read(self, path: str, content: bool) -> dict[str, Any]:
        manager = self.contents_manager
        try:
            return await ensure_async(manager.get(path, content=content, type="notebook"))
        except Exception as error:  # noqa: BLE001 - the manager's HTTPError, or a broken file
            status = getattr(error, "status_code", None)
            if status == 404:
                raise AgentCallError(f'No notebook "{path}" under the Jupyter root.') from error
            reason = getattr(error, "log_message", None) or str(error)
            raise AgentCallError(f'The notebook "{path}" cannot be read: {reason}') from error

    async def _load(self, path: str) -> tuple[dict[str, Any], Any]:
        """The notebook's file model (its ``last_modified``) and its content. The content this
        server last wrote is kept, and used again while the file's modification time says nobody
        saved it since: then a stat replaces reading and validating the whole file."""
        known = self._written.pop(path, None)
        if known is not None:
            model = await self._read(path, content=False)
            if model.get("last_modified") == known[0]:
                return model, known[1]
        model = await self._read(path, content=True)
        return model, model["content"]

    async def _call_closed(self, path: str, call: dict[str, Any]) -> AgentResult:
        model, notebook = await self._load(path)
        metadata = notebook.setdefault("metadata", {})
        header = {
            "op": "agent",
            "call": call,
            "root": self._root(),
            "hideHidden": not getattr(self.contents_manager, "allow_hidden", False),
            "cells": notebook.get("cells", []),
            "conversation": metadata.get(METADATA_KEY),
        }
        answer, payload = await self._run(header)
        result = _result(answer, payload)
        messages = answer.get("messages") or []
        if result.failed or not messages:
            self._written[path] = (model.get("last_modified"), notebook)
            return result
        stored = metadata.get(METADATA_KEY)
        if not isinstance(stored, dict):
            stored = {"version": TRANSCRIPT_VERSION, "messages": []}
        # Written back with every field it had (readers keep what they do not know).
        metadata[METADATA_KEY] = {**stored, "messages": [*stored.get("messages", []), *messages]}
        await self._write(path, model, notebook)
        return result

    def _root(self) -> str:
        root = getattr(self.contents_manager, "root_dir", None) or self._serverapp.root_dir
        return os.path.realpath(root)

    async def _run(self, header: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        encoded = json.dumps(header)
        if len(encoded) > MAX_NOTEBOOK_BYTES:
            raise AgentCallError(
                f"The notebook is {len(encoded) // 1048576} MiB as JSON, more than the "
                f"{MAX_NOTEBOOK_BYTES // 1048576} MiB a call reads; clear large outputs first."
            )
        if self._program is None:
            # Its own figure program, started on the first call and closed with the server.
            self._program = FigureProgram()
            atexit.register(self._program.close)
        program = self._program
        try:
            return await asyncio.wait_for(asyncio.to_thread(program.request, header), CALL_TIMEOUT_S)
        except asyncio.TimeoutError as error:
            # Closing the program ends the request the thread still waits on.
            await asyncio.to_thread(program.close)
            raise AgentCallError(f"The call took longer than {CALL_TIMEOUT_S:.0f} s and was stopped; nothing was written.") from error
        except FigureChatError as error:
            raise AgentCallError(str(error)) from error

    async def _write(self, path: str, before: dict[str, Any], notebook: Any) -> None:
        # The modification time (from a stat, to the microsecond): any save since the read moved it.
        now = await self._read(path, content=False)
        changed = now.get("last_modified") != before.get("last_modified")
        if changed:
            raise AgentCallError(
                f'The notebook "{path}" changed on disk while the call ran; nothing was written. Call again.'
            )
        try:
            saved = await ensure_async(
                self.contents_manager.save({"type": "notebook", "format": "json", "content": notebook}, path)
            )
            self._written[path] = (saved.get("last_modified"), notebook)
        except Exception as error:  # noqa: BLE001 - the manager's HTTPError: say why, as text
            reason = getattr(error, "log_message", None) or str(error)
            raise AgentCallError(f'The notebook "{path}" could not be saved: {reason}') from error


def _result(answer: dict[str, Any], payload: bytes) -> AgentResult:
    images = []
    offset = 0
    for image in answer.get("images") or []:
        length = int(image["length"])
        images.append(AgentImage(str(image["mime"]), payload[offset : offset + length], int(image["width"]), int(image["height"])))
        offset += length
    return AgentResult(str(answer.get("text", "")), answer.get("status") != "completed", images)


#: The calls service of the running Jupyter server (the server extension installs it).
_service: AgentCalls | None = None


def install(serverapp: Any, pages: Any = None) -> AgentCalls:
    global _service
    _service = AgentCalls(serverapp, pages)
    return _service


def service() -> AgentCalls:
    if _service is None:
        raise AgentCallError(
            "Figure Chat's server extension is not enabled in this Jupyter server; "
            "enable it with `jupyter server extension enable jupyterlab_figure_chat`."
        )
    return _service
