"""How a ``Vision`` widget's downscaled preview reaches its views.

The preview crosses the comm as a binary buffer in a custom message (``{"event": "preview"}``),
pushed once when the widget is displayed and sent again whenever a view asks. A quick, smaller one
goes first for a large picture, so the first paint does not wait for the full preview.
"""

from __future__ import annotations

import math
import threading
from typing import Any

#: Longest side of the preview the kernel pushes first, before the full one (1600 px, the figure
#: program's ``PREVIEW_MAX_SIDE``): a 4000-px JPEG decodes straight at an eighth of its size
#: (libjpeg's scaled IDCT, sharp's shrink-on-load), the smallest it can, about 45 ms against 85 ms
#: at 1000 px and 150 ms at 1600, and the browser decodes 12 kB instead of 31 kB. The view shows it
#: at the sharp preview's size, which replaces it moments later. Where Pillow is importable, the
#: kernel makes this one itself, in a thread started as soon as it has the bytes (./quick_preview:
#: no round trip, and libjpeg-turbo's decode is quicker than sharp's); else the figure program.
QUICK_PREVIEW_SIDE = 500
PREVIEW_MAX_SIDE = 1600


class PreviewPush:
    """The preview half of ``Vision``: made once, kept, and sent on every view's request."""

    _quick_preview_side = QUICK_PREVIEW_SIDE
    _full_preview_side = PREVIEW_MAX_SIDE
    _preview: tuple[dict[str, Any], bytes] | None = None

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
            self.send({"event": "preview", **header, "address": self.address}, buffers=[jpeg])
            return
        if self._preview is None:
            answer, jpeg = self._request({"op": "preview"})
            self._preview = ({"mime": answer["mime"], "width": answer["width"], "height": answer["height"]}, jpeg)
        header, jpeg = self._preview
        # The picture it shows: a set's page drops a preview of a picture it no longer shows.
        self.send({"event": "preview", **header, "address": self.address}, buffers=[jpeg])

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
