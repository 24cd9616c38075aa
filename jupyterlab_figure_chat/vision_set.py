"""``VisionSet(pictures, classes=[…])``: one Vision widget that steps through a set of pictures.

The set is a ``Vision`` whose picture changes (same model and view, so the page draws it the same
way) plus one synced trait, ``_set`` (index, count, labelled, name, status). Pictures are read
when shown: opening a folder of 200 lists its files and shows the first exactly as a single
``Vision`` would; the next picture is read, sent to a figure program and its preview made in a
worker thread while the person works on this one, so Next only swaps prepared bytes.

Each picture keeps its own record (same address, classes and rules as a ``Vision``'s), so
``s[i]`` behaves like that picture's ``Vision`` and ``s.annotations`` maps names to marks. The
formats people train with are in ``formats/`` (COCO, YOLO, Pascal VOC).

What a saved notebook stores: the current picture's output (the same bundle as ``Vision``: its
map PNG, record and mark list), plus the set's names, statuses and the marks of every picture as
JSON in the bundle. Storing 200 maps would add the pictures' weight to the notebook for nothing a
person reads there; the marks are what the work produced, and they are small.
"""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from traitlets import observe

from .errors import PictureError
from .pictures import PictureSource, picture_source
from .set_chat import SetChat
from .set_formats import SetFormats
from .set_pictures import (
    MAX_SET_PICTURES,
    PICTURE_SUFFIXES,
    Entry,
    Loaded,
    SetPicture,
    fetch_picture,
    header_size,
    list_pictures,
)
from .vision import check_class_names, empty_record
from .widget import Vision
from .widget_output import _BEHIND, _flush_before_each_cell

#: How many pictures keep their bytes and preview in memory (the current one and its neighbours);
#: the others keep only their size, fingerprint and marks.
KEEP_LOADED = 3


class VisionSet(SetChat, SetFormats, Vision):
    """One widget that steps through pictures: Prev / Next / Skip / Submit, a class list, and the
    marks of every picture.

    ``VisionSet(pictures, classes=[…])`` takes a folder or a list of paths, NumPy arrays, PIL
    images or bytes. ``len(s)``, ``s[i]`` (that picture, with the ``Vision`` API),
    ``s.annotations`` (name → marks), ``s.next()``, ``s.prev()``, ``s.submit()``, ``s.skip()``,
    ``s.index``, ``on_submit(callback)`` / ``on_skip(callback)`` (called with the picture's name
    and its marks), and ``to_coco`` / ``to_yolo`` / ``to_voc`` / ``from_coco`` / ``from_yolo`` /
    ``from_voc``.
    """

    def __init__(self, pictures: Any, *, classes: Sequence[str] | None = None, **kwargs: Any):
        listed = list_pictures(pictures)
        if not listed:
            raise PictureError("VisionSet needs at least one picture", "bad-picture")
        if len(listed) > MAX_SET_PICTURES:
            raise PictureError(f"a set holds at most {MAX_SET_PICTURES} pictures, not {len(listed)}", "bad-picture")
        names = check_class_names(classes)
        entries: list[Entry] = []
        for name, picture, address in listed:
            source = picture_source(picture, address) if isinstance(picture, Path) else None
            entries.append(Entry(name, picture, source.address if source and source.address else address or name))
        seen: dict[str, str] = {}
        for entry in entries:
            if entry.address in seen or entry.name in seen.values():
                raise PictureError(f"two pictures of the set are both named {entry.name!r}; rename one", "bad-picture")
            seen[entry.address] = entry.name
        self._entries = entries
        self._classes = names
        self._index = 0
        self._submit_callbacks: list[Callable[[str, list[dict[str, Any]]], Any]] = []
        self._skip_callbacks: list[Callable[[str, list[dict[str, Any]]], Any]] = []
        self._switching = False
        self._prefetcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vision-set-prefetch")
        self._lock = threading.Lock()
        first = entries[0]
        super().__init__(first.picture, address=first.address, classes=names, **kwargs)
        first.size = (self.width, self.height)
        first.sha256 = self.sha256
        self._set = self._set_state()

    # -- where the set stands -----------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def names(self) -> list[str]:
        """The pictures' names, in order."""
        return [entry.name for entry in self._entries]

    @property
    def index(self) -> int:
        """The index of the picture shown; assign to show another."""
        return self._index

    @index.setter
    def index(self, index: int) -> None:
        self._show(self._checked_index(index))

    @property
    def statuses(self) -> dict[str, str]:
        """Each picture's status: ``"new"``, ``"submitted"`` or ``"skipped"``."""
        return {entry.name: entry.status for entry in self._entries}

    def _checked_index(self, index: int) -> int:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"a picture index is an int, not {type(index).__name__}")
        count = len(self._entries)
        if not -count <= index < count:
            raise IndexError(f"picture index {index} is out of range for a set of {count}")
        return index % count

    def _set_state(self) -> dict[str, Any]:
        entry = self._entries[self._index]
        labelled = sum(1 for e in self._entries if e.status == "submitted")
        return {
            "index": self._index,
            "count": len(self._entries),
            "labelled": labelled,
            "name": entry.name,
            "status": entry.status,
        }

    # -- records ------------------------------------------------------------------------------

    def _record_of(self, index: int) -> dict[str, Any]:
        if index == self._index:
            return self._accepted
        entry = self._entries[index]
        return entry.record if entry.record is not None else empty_record(entry.address, self._classes)

    def _store(self, index: int, record: dict[str, Any]) -> None:
        if index == self._index:
            self._set_record(record)
        else:
            self._entries[index].record = record

    @property
    def annotations(self) -> dict[str, list[dict[str, Any]]]:
        """Every picture's marks, by name (pictures without marks map to ``[]``)."""
        return {entry.name: copy.deepcopy(self._record_of(i)["marks"]) for i, entry in enumerate(self._entries)}

    def records(self) -> list[dict[str, Any]]:
        """Every picture's record, in order (copies)."""
        return [copy.deepcopy(self._record_of(i)) for i in range(len(self._entries))]

    def __getitem__(self, index: int) -> SetPicture:
        return SetPicture(self, self._checked_index(index))

    # -- pictures: read when shown, the next one ahead -----------------------------------------

    def _prefetch(self, index: int) -> None:
        """Start reading picture ``index`` in the worker thread, unless it is read or on its way."""
        if not 0 <= index < len(self._entries):
            return
        entry = self._entries[index]
        with self._lock:
            if entry.loaded is not None or entry.fetching is not None:
                return
            entry.fetching = self._prefetcher.submit(fetch_picture, entry)

    def _loaded(self, index: int) -> Loaded:
        entry = self._entries[index]
        self._prefetch(index)
        with self._lock:
            fetching = entry.fetching
        if entry.loaded is None:
            assert fetching is not None
            try:
                entry.loaded = fetching.result()
            finally:
                entry.fetching = None
            entry.size = (entry.loaded.width, entry.loaded.height)
            entry.sha256 = entry.loaded.sha256
        return entry.loaded

    def _forget_far(self) -> None:
        """Drop the bytes and preview of pictures far from the one shown (their marks stay)."""
        for i, entry in enumerate(self._entries):
            if entry.loaded is not None and abs(i - self._index) > KEEP_LOADED // 2:
                entry.loaded = None

    def _current_loaded(self) -> Loaded:
        return Loaded(
            self.address, self.sha256, self.width, self.height, self.format, self.picture_bytes, self._preview
        )

    def _show(self, index: int) -> None:
        """Show picture ``index``: its picture, record and preview, then prepare the next one."""
        if index == self._index:
            return
        # The first picture's fingerprint, as the figure program read it (VisionCore._settle).
        self._settle()
        old = self._entries[self._index]
        old.record = self._accepted
        old.loaded = self._current_loaded()
        loaded = self._loaded(index)
        entry = self._entries[index]
        self._index = index
        self._source = PictureSource(loaded.picture_bytes, None, loaded.address, "picture")
        self.address, self.sha256 = loaded.address, loaded.sha256
        self.width, self.height, self.format = loaded.width, loaded.height, loaded.format
        self.picture_bytes = loaded.picture_bytes
        self._preview = loaded.preview
        self._quick_preview = None
        record = entry.record if entry.record is not None else empty_record(entry.address, self._classes)
        self._switching = True
        try:
            with self.hold_sync():
                self._problem = ""
                self._set_record(record)
                self._address = self.address
                self._width = self.width
                self._height = self.height
                self._set = self._set_state()
        finally:
            self._switching = False
        self._send_preview()
        self._rewrite_output()
        self._forget_far()
        self._prefetch(index + 1)

    @observe("_record")
    def _record_changed(self, change: dict[str, Any]) -> None:
        # A picture change sets the new picture's record itself, already checked.
        if self._switching:
            return
        super()._record_changed(change)

    def _rewrite_output(self) -> None:
        """The saved output shows the new picture: rendered off the kernel's thread when a loop
        runs (Next returns at once), else now."""
        if self._pending_refresh is not None:
            self._pending_refresh.cancel()
            self._pending_refresh = None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._refresh_display()
            return
        if self._displayed:
            _BEHIND.add(self)
            _flush_before_each_cell()
            loop.call_soon(self._refresh_in_background)

    def _ipython_display_(self) -> None:
        super()._ipython_display_()
        # After the first paint, so reading the next picture never competes with it.
        self._prefetch(self._index + 1)
        self._start_fingerprints()

    # -- moving through the set ----------------------------------------------------------------

    def next(self) -> None:
        """Show the next picture (the last one stays)."""
        self._show(min(self._index + 1, len(self._entries) - 1))

    def prev(self) -> None:
        """Show the previous picture (the first one stays)."""
        self._show(max(self._index - 1, 0))

    def submit(self) -> None:
        """Mark this picture submitted, call the ``on_submit`` callbacks, show the next one."""
        entry = self._entries[self._index]
        marks = copy.deepcopy(self._accepted["marks"])
        for callback in list(self._submit_callbacks):
            callback(entry.name, marks)
        entry.status = "submitted"
        self._set = self._set_state()
        self.next()

    def skip(self) -> None:
        """Mark this picture skipped, call the ``on_skip`` callbacks, show the next one."""
        entry = self._entries[self._index]
        marks = copy.deepcopy(self._accepted["marks"])
        for callback in list(self._skip_callbacks):
            callback(entry.name, marks)
        entry.status = "skipped"
        self._set = self._set_state()
        self.next()

    def on_submit(self, callback: Callable[[str, list[dict[str, Any]]], Any]) -> None:
        """Call ``callback(name, marks)`` when a picture is submitted (Submit, Enter, ``submit()``)."""
        self._submit_callbacks.append(callback)

    def on_skip(self, callback: Callable[[str, list[dict[str, Any]]], Any]) -> None:
        """Call ``callback(name, marks)`` when a picture is skipped."""
        self._skip_callbacks.append(callback)

    def _on_set_message(self, content: dict[str, Any]) -> None:
        """The page's Prev / Next / Skip / Submit (``{"method": "set", "action": …}``)."""
        actions = {"prev": self.prev, "next": self.next, "skip": self.skip, "submit": self.submit}
        name = content.get("action")
        # Anything else the page (or a hostile notebook's script) sends is ignored.
        action = actions.get(name) if isinstance(name, str) else None
        if action is None:
            return
        try:
            action()
        except Exception as error:  # noqa: BLE001 - a person's callback: shown, never lost
            self._problem = f"{content.get('action')} failed: {type(error).__name__}: {error}"

    # -- sizes, for the formats ------------------------------------------------------------------

    def size_of(self, index: int) -> tuple[int, int]:
        """Picture ``index``'s (width, height), read from the file's header when it was not shown."""
        entry = self._entries[index]
        if index == self._index:
            return (self.width, self.height)
        if entry.size is None:
            entry.size = header_size(entry.picture)
        if entry.size is None:
            loaded = self._loaded(index)
            entry.size = (loaded.width, loaded.height)
        return entry.size

    def _close_prefetcher(self) -> None:
        self._prefetcher.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self._close_prefetcher()
        super().close()

    def __repr__(self) -> str:
        state = self._set_state()
        return (
            f"VisionSet({len(self._entries)} pictures, showing {state['index'] + 1}: {state['name']!r}, "
            f"{state['labelled']} labelled{', classes=' + repr(self._classes) if self._classes else ''})"
        )

    # -- formats (./formats) -------------------------------------------------------------------


__all__ = ["PICTURE_SUFFIXES", "SetPicture", "VisionSet", "header_size"]
