"""What a ``Vision`` widget saves: a plain display output kept current with ``update_display``.

The output carries the Figure Chat bundle, the rendered map as PNG and the mark list, plus
``application/vnd.figure-chat.widget+json`` naming the live model. A person's edits re-render it
once they pause (``EDIT_REFRESH_DELAY``), in a worker thread with a figure program of its own; an
output still behind when the next cell runs is written first, so a save never keeps older marks.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from typing import Any

from IPython.display import display, update_display

from .errors import FigureChatError
from .outputs import BUNDLE_VERSION, FIGURE_MIME, bundle_record, bundle_view, vision_bundle
from .program import background_figure_program
from .widget_preview import PREVIEW_MAX_SIDE

#: The output entry naming the live widget model; rendered only by this extension.
LIVE_MIME = "application/vnd.figure-chat.widget+json"

#: Seconds after the person's last edit before the saved output is re-rendered. Rendering the map
#: of a 4000×3000 picture takes the kernel 1–2 s (bench/widget-click); done per click, it held
#: every following click (and so ``v.marks``) back by that long.
EDIT_REFRESH_DELAY = 1.0


#: Displayed widgets whose saved output has not caught up with their marks yet (an edit waits for
#: the person to pause, or its render is under way): written before the next cell runs.
_BEHIND: weakref.WeakSet[SavedOutput] = weakref.WeakSet()
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


def _classes_text(record: dict[str, Any]) -> str:
    """``vision_list``'s class list (``; classes: "a", "b"``), or nothing without classes."""
    classes = record.get("classes")
    if not classes:
        return ""
    return "; classes: " + ", ".join(json.dumps(name, ensure_ascii=False) for name in classes)


class SavedOutput:
    """The saved-output half of ``Vision``: its display id, the deferred re-render and the first
    paint. Expects the host to be a widget (``comm``, ``model_id``) with a picture (``VisionCore``)."""

    _display_id: str
    _displayed: bool
    _loading: Any
    _pending_refresh: asyncio.TimerHandle | None

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

    def _first_bundle(self) -> dict[str, Any]:
        """The output before its PNG: what a front end with this extension needs to show the
        widget, and the mark list as text for any other. No render, so it is ready at once."""
        record = self._current
        if self._loading is not None:
            # The figure program is still starting (a fresh Vision has no marks yet): the list's
            # first line, said here so the output does not wait for it; the PNG's output, written
            # moments later in the same cell, carries the program's own text.
            text = f"{self.address} ({self.width}×{self.height}){_classes_text(record)}: 0 marks."
        else:
            answer, _ = self._request({"op": "vision", "name": "vision_list", "args": {}, "record": record})
            text = answer["text"]
        data: dict[str, Any] = {
            FIGURE_MIME: {
                "version": BUNDLE_VERSION,
                "kind": "vision",
                "picture": self.fingerprint,
                "record": bundle_record(record),
                "view": {"kind": "map"},
            },
            "text/plain": text,
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
