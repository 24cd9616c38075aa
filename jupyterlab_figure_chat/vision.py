"""``Vision(picture)``: numbered points, boxes and polygons on a picture, with the vision tools'
semantics, and an optional class list (``classes=[…]``) every mark's ``label`` comes from.

Every call goes to the same pure functions the chat's tools run (``planVisionCall``, which applies
``applyMarkArgs``/``applyUpdateArgs``, and ``validateRecord``) and the same sharp/resvg rendering,
through the bundled figure program; Python only shapes arguments and holds the record.
"""

from __future__ import annotations

import copy
import hashlib
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .errors import FigureChatError, PictureError, VisionArgumentError
from .outputs import bundle_view, vision_bundle
from .pictures import picture_source, read_picture
from . import quick_preview
from .program import figure_program
from .vision_args import _address_of, _mark_args, _plain, check_class_names, empty_record


class _Loading:
    """A figure program request made in a thread; :meth:`result` waits for it (and re-raises)."""

    def __init__(self, work: Callable[[], dict[str, Any]]) -> None:
        self._answer: dict[str, Any] | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(work,), name="figure-chat-load", daemon=True)
        self._thread.start()

    def _run(self, work: Callable[[], dict[str, Any]]) -> None:
        try:
            self._answer = work()
        except BaseException as error:  # noqa: BLE001 — handed to the thread that waits
            self._error = error

    def result(self) -> dict[str, Any]:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._answer is not None
        return self._answer


class VisionResult:
    """What one ``mark``/``update``/``show``/``list`` call gave: the tool's text and its view.

    Displayed, it is the view as an output (Figure Chat bundle, PNG, mark list); ``str()`` is the
    text the model would read.
    """

    def __init__(self, text: str, output: tuple[dict[str, Any], dict[str, Any]] | None):
        self.text = text
        self._output = output

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict[str, Any], dict[str, Any]]:
        if self._output is None:
            return {"text/plain": self.text}, {}
        return self._output

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text


class VisionCore:
    """A picture and its one mark record; the widget (``Vision``) builds on it.

    A mixin without ``__init__`` (traitlets passes its own arguments up the MRO): the widget calls
    :meth:`_setup` before opening its comm.
    """

    #: The side of the preview the view paints first, if it shows one (the widget sets it): the
    #: figure program starts making it as soon as it has the picture, ahead of the request.
    _quick_preview_side: int | None = None
    #: Above this longest side the view paints a quick preview first (the widget sets it).
    _full_preview_side: int = 0
    #: The figure program's reading of the picture while it runs in a thread (_start_loading);
    #: None once taken, and for views of a picture that never had one (a set's SetPicture).
    _loading: _Loading | None = None

    def _setup(self, picture: Any, address: str | None, classes: Sequence[str] | None = None) -> None:
        names = check_class_names(classes)
        source = picture_source(picture, address)
        self._source = source
        #: The quick preview made in this process (./quick_preview), if Pillow can make it.
        self._quick_preview: quick_preview.QuickPreview | None = None
        self._loading = None
        self._load(first=True)
        self._set_record(empty_record(self.address, names))

    # -- the picture ------------------------------------------------------------------------

    def _load(self, first: bool = False) -> None:
        source = self._source
        placeholder = source.address or source.kind
        header: dict[str, Any] = {"op": "picture", "address": placeholder}
        if source.raw is not None:
            header["raw"] = source.raw
        data: bytes | memoryview | None = source.data
        if source.path is not None:
            try:
                data = read_picture(source.path)
            except PictureError:
                # The figure program's request below says why, as the chat's tools would.
                data = None
        if first and data is not None and self._quick_preview_side is not None and source.raw is None:
            # Started before anything else, so its decode overlaps the rest of the widget's
            # opening; when it cannot be made here, the figure program starts it instead.
            self._quick_preview = quick_preview.start(data, self._quick_preview_side, self._full_preview_side)
        if first and self._quick_preview is not None and data is not None:
            # Pillow has read the picture's size and is making its first paint: the widget can
            # open and paint from it while the figure program starts (a Node process: most of a
            # fresh kernel's first paint was waiting for it). The program reads the picture in the
            # background; the first request that needs it waits for its answer (_settle).
            self._start_loading(header, data)
            return
        if self._quick_preview_side is not None and self._quick_preview is None:
            header["quickPreview"] = self._quick_preview_side
        if source.path is not None:
            answer, encoded = figure_program().request({**header, "path": str(source.path)})
            # The program read the file itself, so its bytes skip the pipe; these bytes are the
            # picture only if they are the ones it read.
            if data is None:
                data = read_picture(source.path)
            if hashlib.sha256(data).hexdigest() != answer["sha256"]:
                answer, encoded = figure_program().request(header, data)
            source = type(source)(data, None, source.address, source.kind)
        else:
            answer, encoded = figure_program().request(header, source.data)
        self.address: str = source.address or f"{source.kind}-{answer['sha256'][:12]}"
        self.sha256: str = answer["sha256"]
        self.width: int = answer["width"]
        self.height: int = answer["height"]
        self.format: str = answer["format"]
        # Raw pixels became a PNG in the figure program; that PNG is the picture from now on.
        self.picture_bytes: bytes = encoded if answer.get("encoded") else bytes(source.data)
        self._source = type(source)(self.picture_bytes, None, self.address, source.kind)

    def _start_loading(self, header: dict[str, Any], data: bytes | memoryview) -> None:
        """Take the picture's fingerprint from this process's reading (Pillow's, ./quick_preview)
        and have the figure program read the picture in a thread; :meth:`_settle` joins it."""
        source = self._source
        assert self._quick_preview is not None
        data = bytes(data)
        sha256 = hashlib.sha256(data).hexdigest()
        path = source.path

        def load() -> dict[str, Any]:
            program = figure_program()
            if path is not None:
                answer, _ = program.request({**header, "path": str(path)})
                if answer["sha256"] == sha256:
                    return answer
            answer, _ = program.request(header, data)
            return answer

        self._loading = _Loading(load)
        self.address = source.address or f"{source.kind}-{sha256[:12]}"
        self.sha256 = sha256
        self.width, self.height = self._quick_preview.picture_size
        self.format = "jpeg"
        self.picture_bytes = data
        self._source = type(source)(data, None, self.address, source.kind)

    def _settle(self) -> None:
        """Wait for the figure program's reading of the picture started by :meth:`_start_loading`
        (raising its error: a picture it refuses is refused here), and take its size if it read
        another one, so every later request and view uses the program's reading."""
        loading, self._loading = self._loading, None
        if loading is None:
            return
        answer = loading.result()
        if answer["sha256"] != self.sha256:
            raise PictureError("the picture changed while the figure program read it; create the Vision again")
        read = (answer["width"], answer["height"], answer["format"])
        if read != (self.width, self.height, self.format):
            self.width, self.height, self.format = read
            # The quick preview was made at the other size: the marks would not fit it.
            self._quick_preview = None
            self._picture_read()

    def _picture_read(self) -> None:
        """The figure program read another size than this process did (the widget follows it)."""

    @property
    def fingerprint(self) -> dict[str, Any]:
        """The picture's address, sha-256 and size, as the transcript and the bundle store it."""
        return {"address": self.address, "sha256": self.sha256, "width": self.width, "height": self.height}

    def _request(self, header: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        self._settle()
        header = {**header, "picture": {"address": self.address, "sha256": self.sha256}}
        try:
            return figure_program().request(header)
        except FigureChatError as error:
            if error.code not in ("need-picture", "crashed"):
                raise
        # The program restarted or dropped the picture from its cache: send it once more.
        self._load()
        return figure_program().request(header)

    # -- the record -------------------------------------------------------------------------

    @property
    def record(self) -> dict[str, Any]:
        """The vision record ``{image, classes?, marks, lastId}`` (a copy)."""
        return copy.deepcopy(self._current)

    @property
    def classes(self) -> list[str] | None:
        """The class list every mark's ``label`` comes from, or None (a copy)."""
        classes = self._current.get("classes")
        return list(classes) if classes is not None else None

    def _set_record(self, record: dict[str, Any]) -> None:
        self._core_record = record

    @property
    def _current(self) -> dict[str, Any]:
        return self._core_record

    def _checked_edit(self, record: Any) -> dict[str, Any]:
        """A record edited outside Python (in the page, by the chat), taken only if a tool could
        have made it and it keeps the class list: only ``classes=`` sets that, so no page or
        notebook script can add a class the exports would then carry."""
        answer, _ = self._request({"op": "check-record", "record": record})
        checked = answer["record"]
        if checked.get("classes") != self._current.get("classes"):
            raise VisionArgumentError(
                "the class list is fixed by classes=[…] in Python; an edit cannot change it", "bad-label"
            )
        return checked

    def _call(self, name: str, args: dict[str, Any]) -> VisionResult:
        answer, payload = self._request(
            {"op": "vision", "name": name, "args": _plain(args), "record": self._current}
        )
        if answer["record"] != self._current:
            self._set_record(answer["record"])
        return VisionResult(answer["text"], self._first_view(answer, payload))

    def _first_view(self, answer: dict[str, Any], payload: bytes) -> tuple[dict[str, Any], dict[str, Any]] | None:
        views = answer.get("views") or []
        if not views:
            return None
        view = views[0]
        png = payload[: view["length"]]
        return vision_bundle(
            self.fingerprint,
            answer.get("record", self._current),
            bundle_view(answer["specs"][0]),
            png,
            (view["width"], view["height"]),
            answer["list"],
        )

    def mark(
        self,
        marks: Sequence[Any],
        captions: Sequence[str] | None = None,
        colours: Sequence[str] | str | None = None,
        r: int | Sequence[int | None] | None = None,
        view: str = "map",
        labels: Sequence[str | None] | str | None = None,
    ) -> VisionResult:
        """Add marks, as ``vision_mark``: ``"x,y"`` points, ``"x0,y0,x1,y1"`` boxes and polygons
        (6 or more numbers, or ``[(x, y), …]``) in original pixels, or dicts ``{"at", "r",
        "caption", "colour", "label"}``, numbered in the order given. ``labels`` (one class, or one
        per mark) label them from the class list; a labelled mark gets its class's colour."""
        return self._call(
            "vision_mark", {"marks": _mark_args(marks, captions, colours, r, labels), "view": view}
        )

    def update(self, ops: Iterable[dict[str, Any]]) -> VisionResult:
        """Move, reshape, recaption, recolour, relabel (``"label"``; ``""`` takes it off) or remove
        marks by number, as ``vision_update`` (all or nothing)."""
        plain = [
            {**op, "at": _address_of(op["at"])} if isinstance(op, dict) and isinstance(op.get("at"), (list, tuple)) else op
            for op in ops
        ]
        return self._call("vision_update", {"ops": plain})

    def show(self, *at: str | Sequence[str], cover: Sequence[str] | None = None) -> VisionResult:
        """A view, as ``vision_show``: nothing → the map, one address → a close-up, several → a sheet."""
        addresses: list[str] = []
        for item in at:
            addresses.extend([item] if isinstance(item, str) else list(item))
        args: dict[str, Any] = {}
        if addresses:
            args["at"] = addresses
        if cover:
            args["cover"] = list(cover)
        return self._call("vision_show", args)

    def list(self) -> VisionResult:
        """The marks as text, one line each, as ``vision_list``."""
        return self._call("vision_list", {})

    @property
    def marks(self) -> list[dict[str, Any]]:
        """The marks: ``[{'id': 1, 'kind': 'point', 'x': 120, 'y': 80, 'r': 12, 'caption': …}, …]``;
        boxes have ``x0, y0, x1, y1``, polygons ``points: [[x, y], …]``, labelled marks ``label``."""
        return copy.deepcopy(self._current["marks"])

    @marks.setter
    def marks(self, marks: Iterable[dict[str, Any]]) -> None:
        """Replace every mark (model-assisted labelling). Marks without ``id`` get the next numbers;
        ``caption``, ``colour`` and ``r`` default as in ``vision_mark``; coordinates must be whole
        pixels (integral floats are accepted). The list is checked like a record read from a
        notebook, and refused whole if one mark is wrong."""
        answer, _ = self._request({"op": "marks", "record": self._current, "marks": _plain(list(marks))})
        self._set_record(answer["record"])

    # -- output -----------------------------------------------------------------------------

    def _map_output(self) -> tuple[dict[str, Any], dict[str, Any]]:
        answer, payload = self._request({"op": "render", "record": self._current, "view": {"kind": "map"}})
        output = self._first_view(answer, payload)
        assert output is not None
        return output

    def __repr__(self) -> str:
        count = len(self._current["marks"])
        classes = self._current.get("classes")
        if classes:
            return (
                f"Vision({self.address!r}, {self.width}×{self.height}, {count} mark{'s' if count != 1 else ''}, "
                f"classes={list(classes)!r})"
            )
        return f"Vision({self.address!r}, {self.width}×{self.height}, {count} mark{'s' if count != 1 else ''})"
