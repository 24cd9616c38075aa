"""Turning what a person hands ``Vision`` into picture bytes the figure program reads.

Encoded pictures (a path, bytes) are sent as they are. Pixels (a NumPy array, a PIL image) are
sent raw, with their layout, and the figure program encodes them with sharp: faster than Pillow's
PNG encoder for a 20-megapixel array, and the same bytes on every machine.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import PictureError

#: Largest picture in pixels (width × height): the figure program's ``LIMIT_INPUT_PIXELS``
#: (src/server/pictures/pictures.ts). Checked here too, so an array over it is refused before
#: hundreds of megabytes cross the pipe.
MAX_PICTURE_PIXELS = 100_000_000


def check_pixels(width: int, height: int, what: str) -> None:
    """Refuse an empty picture or one over the pixel limit, with a PictureError saying which."""
    if width <= 0 or height <= 0:
        raise PictureError(
            f"the picture is empty: {what} has no pixels; give a picture at least 1×1",
            "empty-picture",
        )
    if width * height > MAX_PICTURE_PIXELS:
        raise PictureError(
            f"{what} is {width}×{height} = {width * height:,} pixels, more than the limit of "
            f"{MAX_PICTURE_PIXELS:,} pixels; scale it down first",
            "too-many-pixels",
        )


@dataclass(frozen=True)
class PictureSource:
    """Bytes to send: an encoded file, or raw 8-bit pixels with their layout."""

    data: bytes | memoryview
    raw: dict[str, int] | None
    #: The address marks are recorded against; None names it after the picture's sha-256.
    address: str | None
    #: The first word of a generated address (``array-1a2b3c4d5e6f``).
    kind: str = "picture"
    #: An encoded file the figure program reads itself (``data`` is then empty): the bytes skip
    #: the pipe. Vision reads it too (for the quick preview, ./quick_preview) and checks that both
    #: read the same bytes.
    path: Path | None = None


def _address_for_path(path: Path) -> str:
    # A path under the working folder keeps its relative spelling, so it reads like the chat's
    # workspace addresses; anything else is named by its file name only, never by an absolute path.
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.name


def _from_array(array: Any, address: str | None) -> PictureSource:
    import numpy as np

    # Checked before any conversion: a float array over the limit would take gigabytes to scale.
    if array.ndim in (2, 3) and (0 in array.shape[:2] or array.shape[0] * array.shape[1] > MAX_PICTURE_PIXELS):
        check_pixels(int(array.shape[1]), int(array.shape[0]), f"the {'×'.join(map(str, array.shape))} array")
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    if array.ndim not in (2, 3) or (array.ndim == 3 and array.shape[2] not in (3, 4)):
        raise PictureError(
            f"a picture array must be H×W, H×W×3 or H×W×4, not {'×'.join(map(str, array.shape))}",
            "bad-array",
        )
    if array.dtype == np.uint8:
        pixels = array
    elif np.issubdtype(array.dtype, np.floating):
        if array.size and (np.nanmin(array) < 0 or np.nanmax(array) > 1 or np.isnan(array).any()):
            raise PictureError(
                "a float picture array must hold values in [0, 1] (no NaN); scale it, or pass uint8",
                "bad-array",
            )
        pixels = np.rint(array * 255).astype(np.uint8)
    elif np.issubdtype(array.dtype, np.integer) or array.dtype == np.bool_:
        if array.size and (array.min() < 0 or array.max() > 255):
            raise PictureError(
                f"an integer picture array must hold values 0–255, not {array.min()}–{array.max()}; "
                "scale it to uint8 first",
                "bad-array",
            )
        pixels = array.astype(np.uint8) * (255 if array.dtype == np.bool_ else 1)
    else:
        raise PictureError(f"a picture array of dtype {array.dtype} is not supported; use uint8 or float", "bad-array")
    pixels = np.ascontiguousarray(pixels)
    height, width = pixels.shape[:2]
    check_pixels(int(width), int(height), f"the {'×'.join(map(str, array.shape))} array")
    channels = 1 if pixels.ndim == 2 else pixels.shape[2]
    return PictureSource(
        memoryview(pixels).cast("B"),
        {"width": int(width), "height": int(height), "channels": int(channels)},
        address,
        "array",
    )


def read_picture(path: Path) -> bytes:
    """The bytes of a picture file; PictureError (``not-found``) if it cannot be read."""
    try:
        return path.read_bytes()
    except OSError as error:
        raise PictureError(f"cannot read the picture {path}: {error.strerror or error}", "not-found") from error


def picture_source(picture: Any, address: str | None = None) -> PictureSource:
    """Read a path, bytes, PIL image, NumPy array or matplotlib figure; raise PictureError if none."""
    if isinstance(picture, (str, os.PathLike)):
        path = Path(picture)
        try:
            # Opened here so a missing or unreadable file raises at once; read_picture reads it.
            with path.open("rb"):
                pass
        except OSError as error:
            raise PictureError(f"cannot read the picture {path}: {error.strerror or error}", "not-found") from error
        return PictureSource(b"", None, address or _address_for_path(path), path=path.resolve())
    if isinstance(picture, (bytes, bytearray, memoryview)):
        return PictureSource(bytes(picture), None, address, "picture")
    module = type(picture).__module__ or ""
    if module.startswith("PIL."):
        image = picture
        check_pixels(image.width, image.height, f"the {image.width}×{image.height} PIL image")
        if image.mode not in ("L", "RGB", "RGBA"):
            image = image.convert("RGBA" if "A" in image.getbands() or image.mode == "P" else "RGB")
        channels = {"L": 1, "RGB": 3, "RGBA": 4}[image.mode]
        layout = {"width": image.width, "height": image.height, "channels": channels}
        return PictureSource(image.tobytes(), layout, address, "image")
    if module.startswith("matplotlib.") and hasattr(picture, "savefig"):
        buffer = io.BytesIO()
        picture.savefig(buffer, format="png")
        return PictureSource(buffer.getvalue(), None, address, "plot")
    if hasattr(picture, "__array_interface__") and hasattr(picture, "dtype"):
        return _from_array(picture, address)
    raise PictureError(
        f"Vision takes a path, bytes, a PIL image, a NumPy array or a matplotlib figure, not {type(picture).__name__}",
        "bad-picture",
    )
