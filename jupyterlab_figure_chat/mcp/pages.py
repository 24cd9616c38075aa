"""The channel from the server to the JupyterLab pages, for agents' calls on open notebooks.

A page's ``agent-calls`` plugin (``src/plugins/agent-calls.ts``) connects a websocket to
``<base_url>api/figure-chat/agent-calls`` and says which notebooks it has open. A call on one of
them goes to that page, which runs it through the notebook's chat session (so it shows live in the
sidebar and is saved with the notebook) and answers; the server waits, with a time limit. The page
is then the notebook's one writer: the server never writes a file a page has open.

Messages (JSON): page → server ``{"type": "open", "paths": [...]}`` and ``{"type": "result", "id",
"status", "text", "images": [{"mime", "data", "width", "height"}]}`` or ``{"type": "result", "id",
"error"}``; server → page ``{"type": "call", "id", "path", "call": {"name", "arguments", "agent"}}``.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import posixpath
import uuid
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.auth.decorator import ws_authenticated
from jupyter_server.base.handlers import JupyterHandler
from tornado import web, websocket

from .calls import AgentImage, AgentResult
from .paths import AgentCallError

#: How long the server waits for a page's answer (a 4000×3000 view takes well under a second).
PAGE_TIMEOUT_S = 60.0
#: The most notebooks one page may say it has open, and images one answer may carry.
MAX_OPEN_PATHS = 1000
MAX_ANSWER_IMAGES = 16
#: Largest message a page may send (an answer's images are JPEGs of a few hundred kB).
MAX_MESSAGE_BYTES = 32 * 1024 * 1024
IMAGE_MIMES = ("image/jpeg", "image/png")


class Page:
    """One connected page: the notebooks it has open, and the calls it has not answered yet."""

    def __init__(self, handler: PageChannel) -> None:
        self._handler = handler
        self.paths: set[str] = set()
        self._waiting: dict[str, asyncio.Future[AgentResult]] = {}

    async def call(self, path: str, call: dict[str, Any]) -> AgentResult:
        """Send a call to the page and wait for its answer; AgentCallError if none comes."""
        call_id = uuid.uuid4().hex
        future: asyncio.Future[AgentResult] = asyncio.get_running_loop().create_future()
        self._waiting[call_id] = future
        try:
            await self._handler.write_message(json.dumps({"type": "call", "id": call_id, "path": path, "call": call}))
            return await asyncio.wait_for(future, PAGE_TIMEOUT_S)
        except websocket.WebSocketClosedError as error:
            raise AgentCallError(
                f'The JupyterLab page that has "{path}" open went away; call again.'
            ) from error
        except asyncio.TimeoutError as error:
            raise AgentCallError(
                f'The JupyterLab page that has "{path}" open did not answer within {PAGE_TIMEOUT_S:.0f} s; '
                "the call may still show there. Look at the notebook before calling again."
            ) from error
        finally:
            self._waiting.pop(call_id, None)

    def answered(self, message: dict[str, Any]) -> None:
        future = self._waiting.get(str(message.get("id")))
        if future is None or future.done():
            return
        error = message.get("error")
        if isinstance(error, str):
            future.set_exception(AgentCallError(error[:2000]))
            return
        try:
            future.set_result(_answer(message))
        except (KeyError, TypeError, ValueError, binascii.Error) as problem:
            future.set_exception(AgentCallError(f"The JupyterLab page answered something unreadable ({problem})."))

    def closed(self) -> None:
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(AgentCallError("The JupyterLab page that had the notebook open went away; call again."))


def _answer(message: dict[str, Any]) -> AgentResult:
    status = message["status"]
    if status not in ("completed", "failed"):
        raise ValueError(f"status {status!r}")
    images = message.get("images") or []
    if not isinstance(images, list) or len(images) > MAX_ANSWER_IMAGES:
        raise ValueError("images")
    decoded = []
    for image in images:
        mime = image["mime"]
        if mime not in IMAGE_MIMES:
            raise ValueError(f"image type {mime!r}")
        decoded.append(AgentImage(mime, base64.b64decode(image["data"], validate=True), int(image["width"]), int(image["height"])))
    return AgentResult(str(message["text"]), status != "completed", decoded)


class Pages:
    """The connected pages, and which one writes each open notebook."""

    def __init__(self) -> None:
        self._pages: list[Page] = []

    def add(self, page: Page) -> None:
        self._pages.append(page)

    def remove(self, page: Page) -> None:
        if page in self._pages:
            self._pages.remove(page)
        page.closed()

    def page_for(self, path: str) -> Page | None:
        """The page that writes ``path``: the one that opened it last, or None when none has it."""
        for page in reversed(self._pages):
            if path in page.paths:
                return page
        return None


class PageChannel(JupyterHandler, websocket.WebSocketHandler):
    """``api/figure-chat/agent-calls``: a page's end of the channel (authenticated, may write)."""

    auth_resource = "contents"

    def initialize(self, pages: Pages) -> None:
        self._pages = pages
        self._page: Page | None = None

    @property
    def max_message_size(self) -> int:  # type: ignore[override]
        return MAX_MESSAGE_BYTES

    async def pre_get(self) -> None:
        # The page becomes the writer of notebooks: only for a user who may write contents.
        authorized = await ensure_async(self.authorizer.is_authorized(self, self.current_user, "write", "contents"))
        if not authorized:
            raise web.HTTPError(403)

    @ws_authenticated
    async def get(self, *args: Any, **kwargs: Any) -> None:
        await self.pre_get()
        result = super().get(*args, **kwargs)
        if result is not None:
            await result

    def open(self, *args: Any, **kwargs: Any) -> None:
        self._page = Page(self)
        self._pages.add(self._page)

    def on_message(self, message: str | bytes) -> None:
        if self._page is None:
            return
        try:
            data = json.loads(message)
        except ValueError:
            return
        if not isinstance(data, dict):
            return
        if data.get("type") == "open":
            paths = data.get("paths")
            if isinstance(paths, list) and len(paths) <= MAX_OPEN_PATHS:
                # As the server spells a notebook's path (./paths): no leading slash, no "./".
                self._page.paths = {
                    posixpath.normpath(path).lstrip("/") for path in paths if isinstance(path, str) and path
                }
        elif data.get("type") == "result":
            self._page.answered(data)

    def on_close(self) -> None:
        if self._page is not None:
            self._pages.remove(self._page)
            self._page = None
