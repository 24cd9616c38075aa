"""The pictures of a ``VisionSet``: listing them, reading one (in the prefetch thread), its size
from the file's header, and ``SetPicture``, one picture with the ``Vision`` API."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import PictureError
from .pictures import PictureSource, picture_source, read_picture
from .program import background_figure_program
from .vision import VisionCore

if TYPE_CHECKING:
    from .vision_set import VisionSet

PICTURE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".gif", ".tif", ".tiff")

#: Most pictures one set holds (a folder with more is refused, not cut).
MAX_SET_PICTURES = 100_000

#: How many pictures keep their bytes and preview in memory (the current one and its neighbours);
#: the others keep only their size, fingerprint and marks.
KEEP_LOADED = 3


@dataclass
class Loaded:
    """A picture read and known to a figure program: what the widget needs to show it."""

    address: str
    sha256: str
    width: int
    height: int
    format: str
    picture_bytes: bytes
    preview: tuple[dict[str, Any], bytes] | None


@dataclass
class Entry:
    name: str
    picture: Any
    address: str
    record: dict[str, Any] | None = None
    status: str = "new"
    size: tuple[int, int] | None = None
    #: The picture's sha-256, kept once known (the bytes are dropped when it is far from view).
    sha256: str | None = None
    loaded: Loaded | None = None
    fetching: Future[Loaded] | None = field(default=None, repr=False)


def list_pictures(pictures: Any) -> list[tuple[str, Any, str | None]]:
    """(name, picture, address) for a folder, or a list of paths, arrays, PIL images or bytes."""
    if isinstance(pictures, (str, os.PathLike)):
        folder = Path(pictures)
        if not folder.is_dir():
            raise PictureError(f"VisionSet takes a folder or a list of pictures; {folder} is not a folder", "not-found")
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in PICTURE_SUFFIXES and p.is_file())
        if not files:
            raise PictureError(f"the folder {folder} holds no pictures ({', '.join(PICTURE_SUFFIXES)})", "not-found")
        return [(p.name, p, None) for p in files]
    if isinstance(pictures, (bytes, bytearray)) or not isinstance(pictures, Iterable):
        raise PictureError(
            f"VisionSet takes a folder or a list of pictures, not {type(pictures).__name__}", "bad-picture"
        )
    items = list(pictures)
    result: list[tuple[str, Any, str | None]] = []
    for index, item in enumerate(items):
        if isinstance(item, (str, os.PathLike)):
            result.append((Path(item).name, Path(item), None))
        else:
            # Arrays, PIL images and bytes have no name: the set names them, and the name is the
            # address their marks are recorded against.
            name = f"picture-{index:04d}.png"
            result.append((name, item, name))
    return result




def fetch_picture(entry: Entry) -> Loaded:
    """Read a set's picture, send it to the background figure program, make its preview."""
    program = background_figure_program()
    source = picture_source(entry.picture, entry.address)
    header: dict[str, Any] = {"op": "picture", "address": entry.address}
    if source.path is not None:
        data: bytes | memoryview = read_picture(source.path)
        answer, _ = program.request({**header, "path": str(source.path)})
        if hashlib.sha256(data).hexdigest() != answer["sha256"]:
            answer, _ = program.request(header, data)
        picture_bytes = bytes(data)
    else:
        if source.raw is not None:
            header["raw"] = source.raw
        answer, encoded = program.request(header, source.data)
        picture_bytes = encoded if answer.get("encoded") else bytes(source.data)
    ref = {"address": entry.address, "sha256": answer["sha256"]}
    preview_answer, jpeg = program.request({"op": "preview", "picture": ref})
    preview = (
        {"mime": preview_answer["mime"], "width": preview_answer["width"], "height": preview_answer["height"]},
        jpeg,
    )
    return Loaded(
        entry.address, answer["sha256"], answer["width"], answer["height"], answer["format"], picture_bytes, preview
    )


def fingerprint_in_memory(entry: Entry) -> tuple[str, tuple[int, int]]:
    """The fingerprint and size of an array, PIL image or bytes of a set, as ``fetch_picture``
    finds them: the figure program encodes it (the fingerprint is of the encoded picture), without
    a preview and without keeping the bytes here."""
    source = picture_source(entry.picture, entry.address)
    header: dict[str, Any] = {"op": "picture", "address": entry.address}
    if source.raw is not None:
        header["raw"] = source.raw
    answer, _ = background_figure_program().request(header, source.data)
    return answer["sha256"], (answer["width"], answer["height"])


def header_size(picture: Any) -> tuple[int, int] | None:
    """A picture's size without decoding it: a file's header (Pillow), an array's shape."""
    if isinstance(picture, Path):
        try:
            from PIL import Image

            with Image.open(picture) as image:
                return image.size
        except Exception:  # noqa: BLE001 - no Pillow, or a format it cannot read: load it instead
            return None
    shape = getattr(picture, "shape", None)
    if shape is not None and len(shape) >= 2:
        return (int(shape[1]), int(shape[0]))
    if type(picture).__module__.startswith("PIL."):
        return picture.size
    return None



class SetPicture(VisionCore):
    """One picture of a ``VisionSet`` with the ``Vision`` API (``mark``, ``update``, ``show``,
    ``list``, ``marks``): its record is the set's, so a change here shows in the widget when the
    picture is the one shown."""

    def __init__(self, owner: VisionSet, index: int):
        self._owner = owner
        self._index = index
        entry = owner._entries[index]
        self.name = entry.name
        loaded = owner._current_loaded() if index == owner._index else entry.loaded
        if loaded is None:
            # Read straight into the kernel's figure program, without the preview only a shown
            # picture needs: `for i in range(len(s)): s[i].marks = detections[i]` over 200
            # pictures then costs a file read each, not a preview each.
            self._source = picture_source(entry.picture, entry.address)
            self._quick_preview = None
            self._load()
            entry.sha256, entry.size = self.sha256, (self.width, self.height)
            return
        self._source = PictureSource(loaded.picture_bytes, None, loaded.address, "picture")
        self.address, self.sha256 = loaded.address, loaded.sha256
        self.width, self.height, self.format = loaded.width, loaded.height, loaded.format
        self.picture_bytes = loaded.picture_bytes

    @property
    def _current(self) -> dict[str, Any]:
        return self._owner._record_of(self._index)

    def _set_record(self, record: dict[str, Any]) -> None:
        self._owner._store(self._index, record)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict[str, Any], dict[str, Any]]:
        return self._map_output()

    def __repr__(self) -> str:
        count = len(self._current["marks"])
        return f"SetPicture({self.name!r}, {self.width}×{self.height}, {count} mark{'s' if count != 1 else ''})"


__all__ = ["PICTURE_SUFFIXES", "SetPicture", "header_size", "list_pictures"]
