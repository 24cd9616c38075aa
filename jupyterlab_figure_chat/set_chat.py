"""What the chat sees of a ``VisionSet`` and how it marks any picture of it.

The saved output's bundle carries the set (``set``: index, count, labelled, and per picture its
name, address, status, fingerprint once known, and record when it has marks), so ``notebook_read``
lists the pictures with addresses and the chat's vision tools find any of them. The page forwards
a tool's picture and write requests with the picture's ``address``; for a picture other than the
one shown, the kernel sends that picture's bytes (reading it first if it has not yet, so the chat
never has to wait for the background fingerprints), or checks and keeps its record, with the
same rules as for the shown one (the marks must still be those the call started from).

Fingerprints (sha-256 and size) of a folder's files are read in a low-priority thread after the
first paint, so the chat can name every picture without the set reading 200 files up front.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import FigureChatError
from .outputs import FIGURE_MIME, bundle_record
from .set_pictures import SetPicture, fingerprint_in_memory, header_size

if TYPE_CHECKING:
    from .set_pictures import Entry


class SetChat:
    """The chat's side of ``VisionSet`` (a mixin: the host is the set)."""

    _entries: list[Entry]
    _index: int

    # -- the set in the saved output -----------------------------------------------------------

    def _set_bundle(self: Any) -> dict[str, Any]:
        pictures = []
        for index, entry in enumerate(self._entries):
            item: dict[str, Any] = {"name": entry.name, "address": entry.address, "status": entry.status}
            if index == self._index:
                item.update(sha256=self.sha256, width=self.width, height=self.height)
            elif entry.sha256 is not None and entry.size is not None:
                item.update(sha256=entry.sha256, width=entry.size[0], height=entry.size[1])
            record = self._record_of(index)
            if index != self._index and record["marks"]:
                item["record"] = bundle_record(record)
            pictures.append(item)
        state = self._set_state()
        return {"index": state["index"], "count": state["count"], "labelled": state["labelled"], "pictures": pictures}

    def _with_set(self, data: dict[str, Any]) -> dict[str, Any]:
        if FIGURE_MIME not in data:
            return data
        return {**data, FIGURE_MIME: {**data[FIGURE_MIME], "set": self._set_bundle()}}

    def _first_bundle(self: Any) -> dict[str, Any]:
        return self._with_set(super()._first_bundle())  # type: ignore[misc]

    def _output_bundle(self: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        data, metadata = super()._output_bundle()  # type: ignore[misc]
        return self._with_set(data), metadata

    def _render_map(self: Any, record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        data, metadata = super()._render_map(record)  # type: ignore[misc]
        return self._with_set(data), metadata

    # -- fingerprints, read after the first paint ------------------------------------------------

    def _start_fingerprints(self: Any) -> None:
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        missing = [entry for entry in self._entries if entry.sha256 is None]
        if not missing or getattr(self, "_fingerprinting", False):
            return
        self._fingerprinting = True

        def read() -> None:
            for entry in missing:
                if entry.sha256 is not None:
                    continue
                if not isinstance(entry.picture, Path):
                    # An array, PIL image or bytes has no file to hash: its fingerprint is the
                    # encoded picture's, which only the figure program makes. Without it the chat
                    # could not mark the picture before a person had shown it.
                    try:
                        entry.sha256, entry.size = fingerprint_in_memory(entry)
                    except Exception:  # noqa: BLE001 - a bad picture is reported when it is shown
                        pass
                    time.sleep(0.005)
                    continue
                try:
                    data = entry.picture.read_bytes()
                except OSError:
                    continue
                size = header_size(entry.picture)
                if size is not None:
                    entry.size = size
                    entry.sha256 = hashlib.sha256(data).hexdigest()
                # Yield between files: the prefetch and the person's clicks come first.
                time.sleep(0.005)
            if loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(self._refresh_display_soon)

        threading.Thread(target=read, name="vision-set-fingerprints", daemon=True).start()

    # -- the chat's requests for a picture other than the one shown ------------------------------

    def _index_of(self, address: str) -> int | None:
        return next((i for i, entry in enumerate(self._entries) if entry.address == address), None)

    def _on_custom_message(self: Any, widget: Any, content: Any, buffers: Any) -> None:
        address = content.get("address") if isinstance(content, dict) else None
        method = content.get("method") if isinstance(content, dict) else None
        if isinstance(address, str) and address != self.address and method in ("picture", "write"):
            request = content.get("request")
            if not isinstance(request, int) or isinstance(request, bool):
                return
            index = self._index_of(address)
            if method == "picture":
                self._send_set_picture(request, address, index)
            else:
                self._write_set_picture(content, request, address, index)
            return
        super()._on_custom_message(widget, content, buffers)  # type: ignore[misc]

    def _send_set_picture(self: Any, request: int, address: str, index: int | None) -> None:
        if index is None:
            self.send({"event": "picture", "request": request, "address": address, "problem": f"{address} is not a picture of this set"})
            return
        unread = self._entries[index].sha256 is None
        try:
            # A picture not read yet (the chat asked before the background fingerprints reached
            # it) is read now: the chat fingerprints the bytes it gets and can mark it at once.
            loaded = self._loaded(index)
        except FigureChatError as error:
            # Answered, not raised: a raise here would leave the chat waiting for no answer.
            name = self._entries[index].name
            self.send({"event": "picture", "request": request, "address": address, "problem": f"{name}: {error}"})
            return
        self.send(
            {"event": "picture", "request": request, "sha256": loaded.sha256, "address": address},
            buffers=[loaded.picture_bytes],
        )
        if unread:
            # The saved output then lists its fingerprint, so notebook_read calls it ready.
            self._refresh_display_soon()

    def _write_set_picture(self: Any, content: dict[str, Any], request: int, address: str, index: int | None) -> None:
        def answer(problem: str = "") -> None:
            self.send({"event": "written", "request": request, "ok": not problem, "problem": problem, "address": address})

        if index is None:
            answer(f"{address} is not a picture of this set; notebook_read lists its pictures")
            return
        deadline = content.get("deadline")
        if isinstance(deadline, (int, float)) and time.time() * 1000 > deadline:
            answer("the kernel was busy for longer than the chat waits, so these marks were not applied; try again")
            return
        current = self._record_of(index)
        base = content.get("base")
        if not isinstance(base, dict) or (base.get("marks"), base.get("lastId")) != (current["marks"], current["lastId"]):
            answer(
                f"the marks of {self._entries[index].name} changed while this call ran, so these marks were not"
                " applied; call vision_list on it to read them, then try again"
            )
            return
        try:
            checked = SetPicture(self, index)._checked_edit(content.get("record"))
        except FigureChatError as error:
            answer(str(error))
            return
        self._store(index, checked)
        answer()
        self._refresh_display_soon()
