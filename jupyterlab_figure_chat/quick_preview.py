"""The widget's first, quick preview of a big JPEG, made in the kernel process when Pillow is there.

The first paint of a ``Vision`` waits on one thing above all: decoding the JPEG at an eighth of its
size (libjpeg's scaled IDCT; the Huffman decode of the whole file, serial, is most of it). Made
here, in a thread started the moment Python has the bytes, it needs no round trip to the figure
program, and Pillow's libjpeg-turbo decoded the benchmark's 2.5 MB pictures in 31–37 ms where the
figure program's sharp (mozjpeg) took 45–65 ms on the same machine. The figure program still makes
every other preview and view; it makes this one too when Pillow is missing or the picture is one
this module leaves alone (not a JPEG, an embedded colour profile, not RGB or grey): then
:func:`start` returns None and nothing changed.

The preview is a plain JPEG of the picture as shown (EXIF-oriented), ``max_side`` on its longest
side, the size the figure program would make (``makePreview`` in src/server/kernel/preview.ts);
the widget sends it only if its size agrees with the figure program's reading of the picture.
"""

from __future__ import annotations

import io
import math
import threading
import warnings
from typing import Any

#: JPEG quality of the preview, as the figure program's (PREVIEW_JPEG_QUALITY).
QUALITY = 75

#: Largest picture this module decodes (the figure program's LIMIT_INPUT_PIXELS): a bigger one is
#: the figure program's to refuse, with its message.
LIMIT_PIXELS = 100_000_000

# EXIF orientation → Pillow transpose method (the same table as ImageOps.exif_transpose).
_TRANSPOSE = {
    2: "FLIP_LEFT_RIGHT",
    3: "ROTATE_180",
    4: "FLIP_TOP_BOTTOM",
    5: "TRANSPOSE",
    6: "ROTATE_270",
    7: "TRANSVERSE",
    8: "ROTATE_90",
}


class QuickPreview:
    """A preview being made in a thread; :meth:`result` waits for it."""

    def __init__(
        self, image: Any, data: bytes, size: tuple[int, int], orientation: int, picture: tuple[int, int]
    ) -> None:
        #: The picture's own size as shown (EXIF-oriented), as the figure program reads it.
        self.picture_size = picture
        self._result: tuple[dict[str, Any], bytes] | None = None
        self._thread = threading.Thread(
            target=self._make, args=(image, data, size, orientation), name="figure-chat-quick-preview", daemon=True
        )
        self._thread.start()

    def _make(self, image: Any, data: bytes, size: tuple[int, int], orientation: int) -> None:
        from PIL import Image

        try:
            width, height = size
            # Decoded straight at the smallest scale that still covers the preview (1/8 for a
            # 4000-px picture), in stored orientation.
            stored = (height, width) if orientation in (5, 6, 7, 8) else (width, height)
            image.draft(image.mode, stored)
            # One decode call for the whole file: Pillow releases the GIL per call, and the kernel's
            # thread, busy opening the widget meanwhile, would otherwise hold each chunk back.
            image.decodermaxblock = max(len(data), 65536)
            image.load()
            if image.size != stored:
                image = image.resize(stored, Image.Resampling.LANCZOS, reducing_gap=3.0)
            method = _TRANSPOSE.get(orientation)
            if method is not None:
                image = image.transpose(getattr(Image.Transpose, method))
            out = io.BytesIO()
            image.save(out, "JPEG", quality=QUALITY)
        except Exception:  # noqa: BLE001 — any failure leaves the preview to the figure program
            return
        self._result = ({"mime": "image/jpeg", "width": width, "height": height}, out.getvalue())

    def result(self) -> tuple[dict[str, Any], bytes] | None:
        """The preview's header (``mime``, ``width``, ``height``) and JPEG, or None if it failed."""
        self._thread.join()
        return self._result


def start(data: bytes | memoryview, max_side: int, full_side: int) -> QuickPreview | None:
    """Start the ``max_side`` preview of an encoded picture, if Pillow can make it as the figure
    program would: a baseline or progressive JPEG, RGB or grey, with no embedded colour profile,
    larger than ``full_side`` (smaller pictures get only the full preview). Otherwise None."""
    if bytes(data[:3]) != b"\xff\xd8\xff":
        return None
    try:
        from PIL import Image
    except ImportError:
        return None
    data = bytes(data)
    try:
        with warnings.catch_warnings():
            # A picture past Pillow's own limit is the figure program's to judge (and refuse).
            warnings.simplefilter("ignore")
            image = Image.open(io.BytesIO(data))
            if image.format != "JPEG" or image.mode not in ("RGB", "L") or image.info.get("icc_profile"):
                return None
            stored_width, stored_height = image.size
            if stored_width * stored_height > LIMIT_PIXELS:
                return None
            orientation = image.getexif().get(0x0112, 1)
    except Exception:  # noqa: BLE001 — not a picture Pillow reads: the figure program will say why
        return None
    if orientation not in range(1, 9):
        orientation = 1
    width, height = (stored_height, stored_width) if orientation in (5, 6, 7, 8) else (stored_width, stored_height)
    if max(width, height) <= full_side or max_side >= full_side:
        return None
    scale = min(1.0, max_side / max(width, height))
    # JavaScript's Math.round (halves up), as the figure program sizes its previews.
    size = (max(1, math.floor(width * scale + 0.5)), max(1, math.floor(height * scale + 0.5)))
    return QuickPreview(image, data, size, orientation, (width, height))
