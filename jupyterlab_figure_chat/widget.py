"""``Vision`` as an ipywidgets DOMWidget: the marked picture a person edits by mouse and keyboard.

The record is one synced trait, ``_record``; the browser changes it with the same pure functions
the tools use (``applyMarkArgs``/``applyUpdateArgs``), and the kernel checks what arrives with
``validateRecord`` before taking it. The downscaled preview crosses the comm as a binary buffer
in a custom message (``{"event": "preview"}``), pushed once when the widget is displayed and sent
again whenever a view asks (``{"method": "preview"}``, after a page reload). It is never a synced
trait, so no widget state (nbclient's ``metadata.widgets``) ever stores it. While the pushes are
under way ``_preview_pending`` is true, so a view made before the pushed preview arrives waits for
it instead of asking for another copy.

The preview's push is in ``widget_preview.py``, the saved output in ``widget_output.py``.

First paint: displaying a ``Vision`` shows the output at once — the live-widget entry, the bundle
and the mark list — then pushes the preview, and only then renders the map PNG (the slow part) and
writes it into the same output with ``update_display``, still inside the cell that displayed it,
so headless runs (nbclient, papermill) end with the PNG in the output as before.

What is saved is never the widget. The output is a plain display carrying the Figure Chat bundle,
the rendered map as PNG and the mark list, kept current with ``update_display`` on every change,
plus ``application/vnd.figure-chat.widget+json`` naming the live model. Only this extension renders
that type: with a live model it shows the widget, and without one (reopened, kernel restarted,
untrusted, another front end) it renders the rest of the bundle. No
``application/vnd.jupyter.widget-view+json`` is ever written, so no front end can show "Error
displaying widget" for it, and nbconvert and GitHub show the PNG.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from typing import Any

import ipywidgets
from traitlets import Bool, Dict, Int, Unicode, observe

from .errors import FigureChatError
from .vision import VisionCore
from .widget_output import SavedOutput
from .widget_preview import PreviewPush

#: Module and version the front end registers its model and view under (src/kernel-bridge).
WIDGET_MODULE = "jupyterlab-figure-chat"
WIDGET_MODULE_VERSION = "^1.0.0"


class Vision(SavedOutput, PreviewPush, ipywidgets.DOMWidget, VisionCore):
    """A picture with numbered marks, shown as an interactive widget.

    ``Vision(picture)`` takes a path, bytes, a PIL image, a NumPy array (H×W, H×W×3/4; uint8 or
    float in [0, 1]) or a matplotlib figure; ``classes=["apple", "pear"]`` gives it a class list
    every mark's ``label`` comes from. In the widget, click to add a point, drag to draw a
    box, drag a mark to move it, select it and press Delete to remove it, and edit its caption and
    colour; ``v.marks`` follows, and assigning ``v.marks`` redraws. ``mark``, ``update``, ``show``
    and ``list`` behave exactly like the chat's vision tools.
    """

    _model_name = Unicode("FigureChatVisionModel").tag(sync=True)
    _model_module = Unicode(WIDGET_MODULE).tag(sync=True)
    _model_module_version = Unicode(WIDGET_MODULE_VERSION).tag(sync=True)
    _view_name = Unicode("FigureChatVisionView").tag(sync=True)
    _view_module = Unicode(WIDGET_MODULE).tag(sync=True)
    _view_module_version = Unicode(WIDGET_MODULE_VERSION).tag(sync=True)

    _record = Dict().tag(sync=True)
    _address = Unicode().tag(sync=True)
    _width = Int().tag(sync=True)
    _height = Int().tag(sync=True)
    #: A message the view shows when the kernel refused an edit (cleared by the next edit).
    _problem = Unicode().tag(sync=True)
    #: True while the kernel pushes the previews of a display: a view waits for them rather than
    #: asking, and asks only if this turns false before one came (it connected after the push).
    _preview_pending = Bool(False).tag(sync=True)
    #: Where a ``VisionSet`` stands (index, count, labelled, name, status); empty for a ``Vision``,
    #: so the page shows the set's toolbar only for a set.
    _set = Dict().tag(sync=True)

    def __init__(
        self,
        picture: Any,
        *,
        address: str | None = None,
        classes: Sequence[str] | None = None,
        **kwargs: Any,
    ):
        self._display_id = f"figure-chat-{uuid.uuid4().hex}"
        self._displayed = False
        self._accepted: dict[str, Any] = {}
        self._from_chat = False
        self._pending_refresh: asyncio.TimerHandle | None = None
        self._preview: tuple[dict[str, Any], bytes] | None = None
        self._setup(picture, address, classes)
        self._address = self.address
        self._width = self.width
        self._height = self.height
        # The comm opens here, with every trait above in its first message.
        ipywidgets.DOMWidget.__init__(self, **kwargs)
        self.on_msg(self._on_custom_message)

    def _on_custom_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """A view asks for the preview (it has none after a page reload), or the chat's vision
        tools draw views of this picture: send the bytes as a buffer."""
        if not isinstance(content, dict):
            return
        if content.get("method") == "preview":
            self._send_preview()
            return
        if content.get("method") == "write":
            self._write_from_chat(content)
            return
        if content.get("method") == "set":
            self._on_set_message(content)
            return
        if content.get("method") != "picture":
            return
        request = content.get("request")
        if not isinstance(request, int) or isinstance(request, bool):
            return
        self.send({"event": "picture", "request": request, "sha256": self.sha256}, buffers=[self.picture_bytes])

    def _on_set_message(self, content: dict[str, Any]) -> None:
        """The page's Prev / Next / Skip / Submit; only a ``VisionSet`` acts on it."""

    def _set_record(self, record: dict[str, Any]) -> None:
        self._accepted = record
        self._record = record

    def _write_from_chat(self, content: dict[str, Any]) -> None:
        """The chat's vision tools write marks (``{"method": "write"}``): take the record only if
        the tools' checks pass, the marks are still those the call started from (``base``) and the
        chat is still waiting (``deadline``, ms since the epoch), then answer ``{"event":
        "written"}`` with the refusal's message, if any, so the tool never reports marks the
        kernel did not take."""
        request = content.get("request")
        if not isinstance(request, int) or isinstance(request, bool):
            return

        def answer(problem: str = "") -> None:
            self.send({"event": "written", "request": request, "ok": not problem, "problem": problem})

        deadline = content.get("deadline")
        if isinstance(deadline, (int, float)) and time.time() * 1000 > deadline:
            answer(
                "the kernel was busy for longer than the chat waits, so these marks were not applied;"
                " try again once it is idle"
            )
            return
        if not self._holds(content.get("base")):
            answer(
                "the marks in the Vision widget changed while this call ran (a person edited them),"
                " so these marks were not applied; call vision_list to read them, then try again"
            )
            return
        try:
            checked = self._checked_edit(content.get("record"))
        except FigureChatError as error:
            answer(str(error))
            return
        self._from_chat = True
        try:
            self._set_record(checked)
        finally:
            self._from_chat = False
        # After the record's update, so the view holds the marks when the tool goes on.
        answer()

    def _holds(self, base: Any) -> bool:
        """Whether ``base``, a record the page sent, has the marks the kernel holds. What a view
        sent is kept as the check gave it back, so compare checked records if they differ."""
        current = self._accepted
        if not isinstance(base, dict):
            return False
        if (base.get("marks"), base.get("lastId")) == (current["marks"], current["lastId"]):
            return True
        try:
            checked, _ = self._request({"op": "check-record", "record": base})
        except FigureChatError:
            return False
        return (checked["record"]["marks"], checked["record"]["lastId"]) == (current["marks"], current["lastId"])

    @observe("_record")
    def _record_changed(self, change: dict[str, Any]) -> None:
        record = change["new"]
        if record is self._accepted:
            # The chat writes while a person works in the page: re-render like their edits.
            if self._from_chat:
                self._refresh_display_soon()
            else:
                self._refresh_display()
            return
        # From the browser: take it only if a tool could have made it.
        try:
            # Through _request: a restarted figure program is sent the picture again.
            checked = self._checked_edit(record)
        except FigureChatError as error:
            self._problem = str(error)
            self._set_record(self._accepted)
            return
        self._problem = ""
        self._accepted = checked
        self._refresh_display_soon()

    @property
    def _current(self) -> dict[str, Any]:
        return self._accepted

    def _picture_read(self) -> None:
        # The views lay the picture out (and place every mark) at the program's size.
        self._width = self.width
        self._height = self.height

    __repr__ = VisionCore.__repr__
