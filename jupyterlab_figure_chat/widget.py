"""``Vision`` as an ipywidgets DOMWidget: the marked picture a person edits by mouse and keyboard.

The record is one synced trait, ``_record``; the browser changes it with the same pure functions
the tools use (``applyMarkArgs``/``applyUpdateArgs``), and the kernel checks what arrives with
``validateRecord`` before taking it. The downscaled preview crosses the comm as a binary buffer
in a custom message (``{"event": "preview"}``), pushed once when the widget is displayed and sent
again whenever a view asks (``{"method": "preview"}``, after a page reload). It is never a synced
trait, so no widget state (nbclient's ``metadata.widgets``) ever stores it. While the pushes are
under way ``_preview_pending`` is true, so a view made before the pushed preview arrives waits for
it instead of asking for another copy.

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
import math
import threading
import time
import uuid
import weakref
from typing import Any

import ipywidgets
from IPython.display import display, update_display
from traitlets import Bool, Dict, Int, Unicode, observe

from .errors import FigureChatError
from .outputs import BUNDLE_VERSION, FIGURE_MIME, bundle_view, vision_bundle
from .program import background_figure_program
from .vision import VisionCore

#: Module and version the front end registers its model and view under (src/kernel-bridge).
WIDGET_MODULE = "jupyterlab-figure-chat"
WIDGET_MODULE_VERSION = "^1.0.0"

#: The output entry naming the live widget model; rendered only by this extension.
LIVE_MIME = "application/vnd.figure-chat.widget+json"

#: Seconds after the person's last edit before the saved output is re-rendered. Rendering the map
#: of a 4000×3000 picture takes the kernel 1–2 s (bench/widget-click); done per click, it held
#: every following click (and so ``v.marks``) back by that long.
EDIT_REFRESH_DELAY = 1.0

#: Longest side of the preview the kernel pushes first, before the full one (1600 px, the figure
#: program's ``PREVIEW_MAX_SIDE``): a 4000-px JPEG decodes straight at an eighth of its size
#: (libjpeg's scaled IDCT, sharp's shrink-on-load), the smallest it can, about 45 ms against 85 ms
#: at 1000 px and 150 ms at 1600, and the browser decodes 12 kB instead of 31 kB. The view shows it
#: at the sharp preview's size, which replaces it moments later. Where Pillow is importable, the
#: kernel makes this one itself, in a thread started as soon as it has the bytes (./quick_preview:
#: no round trip, and libjpeg-turbo's decode is quicker than sharp's); else the figure program.
QUICK_PREVIEW_SIDE = 500
PREVIEW_MAX_SIDE = 1600


#: Displayed widgets whose saved output has not caught up with their marks yet (an edit waits for
#: the person to pause, or its render is under way): written before the next cell runs.
_BEHIND: weakref.WeakSet[Vision] = weakref.WeakSet()
_flush_hooked = False


def _flush_before_each_cell() -> None:
    """Have every widget's saved output written before a cell runs (once per kernel).

    An edit's render waits for the person to pause (``EDIT_REFRESH_DELAY``). A notebook saved
    within that second, after a cell that read ``v.marks``, kept the output of the marks before
    the edit: the Galata test that saves right after two cells found mark 5 missing."""
    global _flush_hooked
    if _flush_hooked:
        return
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    shell.events.register("pre_run_cell", _write_behind_outputs)
    _flush_hooked = True


def _write_behind_outputs(_info: Any = None) -> None:
    """IPython's ``pre_run_cell``: a cell a person runs (not the silent ones front ends send)."""
    for vision in list(_BEHIND):
        try:
            vision._refresh_display()
        except FigureChatError:
            # The background render reports it (and the next edit tries again).
            pass


class Vision(ipywidgets.DOMWidget, VisionCore):
    """A picture with numbered marks, shown as an interactive widget.

    ``Vision(picture)`` takes a path, bytes, a PIL image, a NumPy array (H×W, H×W×3/4; uint8 or
    float in [0, 1]) or a matplotlib figure. In the widget, click to add a point, drag to draw a
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

    _quick_preview_side = QUICK_PREVIEW_SIDE
    _full_preview_side = PREVIEW_MAX_SIDE

    def __init__(self, picture: Any, *, address: str | None = None, **kwargs: Any):
        self._display_id = f"figure-chat-{uuid.uuid4().hex}"
        self._displayed = False
        self._accepted: dict[str, Any] = {}
        self._from_chat = False
        self._pending_refresh: asyncio.TimerHandle | None = None
        self._preview: tuple[dict[str, Any], bytes] | None = None
        self._setup(picture, address)
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
        if content.get("method") != "picture":
            return
        request = content.get("request")
        if not isinstance(request, int) or isinstance(request, bool):
            return
        self.send({"event": "picture", "request": request, "sha256": self.sha256}, buffers=[self.picture_bytes])

    def _send_preview(self, quick: bool = False) -> None:
        """The downscaled JPEG the view draws marks over, made once and kept for later views
        (``quick``: a smaller one, made for the first paint and not kept)."""
        if self.comm is None:
            return
        if quick:
            made, self._quick_preview = self._quick_preview, None
            quick_made = made.result() if made is not None else None
            if quick_made is not None and self._fits(quick_made[0]):
                header, jpeg = quick_made
            else:
                answer, jpeg = self._request({"op": "preview", "maxSide": QUICK_PREVIEW_SIDE})
                header = {"mime": answer["mime"], "width": answer["width"], "height": answer["height"]}
            self.send({"event": "preview", **header}, buffers=[jpeg])
            return
        if self._preview is None:
            answer, jpeg = self._request({"op": "preview"})
            self._preview = ({"mime": answer["mime"], "width": answer["width"], "height": answer["height"]}, jpeg)
        header, jpeg = self._preview
        self.send({"event": "preview", **header}, buffers=[jpeg])

    def _wait_sent(self, timeout: float = 0.1) -> None:
        """Wait (at most ``timeout`` s) until the kernel's IOPub thread has put every message sent
        so far on the wire: ``send`` only queues a message for that thread, and the render that
        follows the quick preview, started at once, took the CPU the thread needed to send it."""
        kernel = getattr(self.comm, "kernel", None)
        socket = getattr(kernel, "iopub_socket", None)
        schedule = getattr(getattr(socket, "io_thread", None), "schedule", None)
        if not callable(schedule):
            return
        sent = threading.Event()
        schedule(sent.set)
        sent.wait(timeout)

    def _fits(self, header: dict[str, Any]) -> bool:
        """Whether a quick preview made in this process has the shape of the picture the figure
        program read (so the marks the view draws over it land where they belong)."""
        scale = min(1.0, QUICK_PREVIEW_SIDE / max(self.width, self.height))
        return (header["width"], header["height"]) == (
            max(1, math.floor(self.width * scale + 0.5)),
            max(1, math.floor(self.height * scale + 0.5)),
        )

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
            checked, _ = self._request({"op": "check-record", "record": content.get("record")})
        except FigureChatError as error:
            answer(str(error))
            return
        self._from_chat = True
        try:
            self._set_record(checked["record"])
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
            answer, _ = self._request({"op": "check-record", "record": record})
        except FigureChatError as error:
            self._problem = str(error)
            self._set_record(self._accepted)
            return
        self._problem = ""
        self._accepted = answer["record"]
        self._refresh_display_soon()

    @property
    def _current(self) -> dict[str, Any]:
        return self._accepted

    def _refresh_display_soon(self) -> None:
        """Re-render the saved output once the person pauses: ``v.marks`` is current at once, and
        a run of clicks costs one render, not one each."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            # No event loop (a plain Python process): nothing can wait, so render now.
            self._refresh_display()
            return
        if self._pending_refresh is not None:
            self._pending_refresh.cancel()
        self._pending_refresh = loop.call_later(EDIT_REFRESH_DELAY, self._refresh_in_background)
        if self._displayed:
            _BEHIND.add(self)
            _flush_before_each_cell()

    def _refresh_in_background(self) -> None:
        """Re-render the saved output in a worker thread with a figure program of its own, then
        write it on the kernel's thread. Rendered on the kernel's thread, the map of a 4000×3000
        picture (and its megabytes of PNG on the way out) held back every click made meanwhile
        (bench/widget-click: 0.8 s for a click after a pause); now the comm goes on taking them,
        and their checks never queue behind the render in the same program."""
        self._pending_refresh = None
        if not self._displayed:
            return
        record = self._current
        loop = asyncio.get_running_loop()

        def publish(future: asyncio.Future[tuple[dict[str, Any], dict[str, Any]]]) -> None:
            if future.cancelled():
                return
            error = future.exception()
            if error is not None:
                loop.call_exception_handler(
                    {"message": "Vision: could not re-render the saved output", "exception": error}
                )
                return
            if record is not self._current:
                # A newer record is in v.marks; its own refresh writes the output.
                return
            data, metadata = future.result()
            if self.comm is not None:
                data = {LIVE_MIME: {"version": 1, "model_id": self.model_id}, **data}
            update_display(data, metadata=metadata, raw=True, display_id=self._display_id)
            _BEHIND.discard(self)

        loop.run_in_executor(None, self._render_map, record).add_done_callback(publish)

    def _render_map(self, record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The saved output's bundle for ``record``, by the background figure program (which is
        sent the picture the first time, or after a restart)."""
        program = background_figure_program()
        header = {
            "op": "render",
            "record": record,
            "view": {"kind": "map"},
            "picture": {"address": self.address, "sha256": self.sha256},
        }
        try:
            answer, payload = program.request(header)
        except FigureChatError as error:
            if error.code not in ("need-picture", "crashed"):
                raise
            program.request({"op": "picture", "address": self.address}, self.picture_bytes)
            answer, payload = program.request(header)
        view = answer["views"][0]
        return vision_bundle(
            self.fingerprint,
            record,
            bundle_view(answer["specs"][0]),
            payload[: view["length"]],
            (view["width"], view["height"]),
            answer["list"],
        )

    def _refresh_display(self) -> None:
        if self._pending_refresh is not None:
            self._pending_refresh.cancel()
            self._pending_refresh = None
        if self._displayed:
            data, metadata = self._output_bundle()
            update_display(data, metadata=metadata, raw=True, display_id=self._display_id)
            _BEHIND.discard(self)

    def _output_bundle(self) -> tuple[dict[str, Any], dict[str, Any]]:
        data, metadata = self._map_output()
        if self.comm is not None:
            data = {LIVE_MIME: {"version": 1, "model_id": self.model_id}, **data}
        return data, metadata

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict[str, Any], dict[str, Any]]:
        return self._output_bundle()

    __repr__ = VisionCore.__repr__

    def _first_bundle(self) -> dict[str, Any]:
        """The output before its PNG: what a front end with this extension needs to show the
        widget, and the mark list as text for any other. No render, so it is ready at once."""
        record = self._current
        answer, _ = self._request({"op": "vision", "name": "vision_list", "args": {}, "record": record})
        data: dict[str, Any] = {
            FIGURE_MIME: {
                "version": BUNDLE_VERSION,
                "kind": "vision",
                "picture": self.fingerprint,
                "record": {"image": record["image"], "marks": record["marks"], "lastId": record["lastId"]},
                "view": {"kind": "map"},
            },
            "text/plain": answer["text"],
        }
        if self.comm is not None:
            data = {LIVE_MIME: {"version": 1, "model_id": self.model_id}, **data}
        return data

    def _ipython_display_(self) -> None:
        # A display id lets every later change rewrite this output, so what is saved is current.
        # Shown first without the PNG so the widget paints from the preview while the map renders
        # (about 0.3 s for 4000×3000); the PNG follows in the same cell, so no run (headless or
        # not, last cell or not) can end before it is in the output.
        bundle = self._first_bundle()
        # Before the output, so every view made from it knows a preview is on its way.
        self._preview_pending = self.comm is not None
        try:
            display(bundle, raw=True, display_id=self._display_id)
            self._displayed = True
            if max(self.width, self.height) > PREVIEW_MAX_SIDE:
                self._send_preview(quick=True)
                # The map's render (below) takes every core for a while: let the preview leave
                # the kernel before it starts.
                self._wait_sent()
                self._refresh_display()
                self._send_preview()
            else:
                self._send_preview()
                self._refresh_display()
        finally:
            self._preview_pending = False
