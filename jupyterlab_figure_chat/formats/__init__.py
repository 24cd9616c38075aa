"""The annotation formats people train with, for ``VisionSet``: COCO (``coco``), YOLO (``yolo``)
and Pascal VOC (``voc``).

Readers parse a whole file before anything is made, so bad input raises one
``AnnotationFormatError`` naming the file and the entry and leaves nothing half-loaded. The marks
they build follow the record's rules (src/tools/vision): integer picture pixels, boxes and polygon
vertices within the picture, points on a pixel, labels from the class list.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import AnnotationFormatError

#: The fixed palette, in its order (src/tools/vision/address.ts): class i gets colour i.
PALETTE = ["red", "green", "blue", "yellow", "magenta", "cyan", "orange", "white"]
DEFAULT_COLOUR = "green"

#: Most vertices a polygon may have (src/tools/vision/address.ts ``MAX_POLYGON_VERTICES``).
MAX_POLYGON_VERTICES = 200

#: Most marks one picture may hold (src/tools/vision/record.ts ``MAX_MARKS``).
MAX_MARKS = 500


def class_colour(classes: list[str] | None, label: str) -> str:
    index = classes.index(label) if classes and label in classes else 0
    return PALETTE[index % len(PALETTE)]


def default_radius(width: int, height: int) -> int:
    """A point's radius when none is given: 2 % of the shorter side (as ``defaultRadius``)."""
    return max(4, math.floor(min(width, height) * 0.02 + 0.5))


def polygon_area(points: list[list[int]]) -> float:
    """A polygon's area (shoelace)."""
    total = 0
    for i, (x0, y0) in enumerate(points):
        x1, y1 = points[(i + 1) % len(points)]
        total += x0 * y1 - x1 * y0
    return abs(total) / 2


def mark_bounds(mark: dict[str, Any]) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) of a box or polygon."""
    if mark["kind"] == "box":
        return mark["x0"], mark["y0"], mark["x1"], mark["y1"]
    xs = [x for x, _ in mark["points"]]
    ys = [y for _, y in mark["points"]]
    return min(xs), min(ys), max(xs), max(ys)


def whole(value: Any, where: str) -> int:
    """A coordinate as a whole pixel: numbers are rounded (detectors write floats), anything
    else is refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise AnnotationFormatError(f"{where}: {value!r} is not a number")
    return math.floor(value + 0.5)


class MarkBuilder:
    """Marks of one picture, checked as they are added (bounds, labels, vertices)."""

    def __init__(self, width: int, height: int, classes: list[str] | None, where: str):
        self.width, self.height, self.classes, self.where = width, height, classes, where
        self.marks: list[dict[str, Any]] = []

    def _number(self, wanted: Any) -> int:
        """The mark's number: the one it had (a file this module wrote keeps it), else the next."""
        used = {mark["id"] for mark in self.marks}
        if isinstance(wanted, int) and not isinstance(wanted, bool) and 0 < wanted < 2**31 and wanted not in used:
            return wanted
        return max(used, default=0) + 1

    def _common(
        self, label: str | None, caption: str, colour: str | None, where: str, number: Any = None
    ) -> dict[str, Any]:
        if label is not None and (not self.classes or label not in self.classes):
            raise AnnotationFormatError(f"{where}: label {label!r} is not one of the classes")
        if colour is not None and colour not in PALETTE:
            colour = None
        if len(self.marks) >= MAX_MARKS:
            raise AnnotationFormatError(f"{self.where}: more than {MAX_MARKS} marks on one picture")
        common: dict[str, Any] = {
            "id": self._number(number),
            "caption": str(caption)[:200],
            "colour": colour or (class_colour(self.classes, label) if label is not None else DEFAULT_COLOUR),
        }
        if label is not None:
            common["label"] = label
        return common

    def box(
        self, x0: int, y0: int, x1: int, y1: int, label: str | None, where: str, caption: str = "",
        colour: str | None = None, number: Any = None,
    ) -> None:
        if x0 >= x1 or y0 >= y1:
            raise AnnotationFormatError(f"{where}: box {x0},{y0},{x1},{y1} has no area")
        if x0 < 0 or y0 < 0 or x1 > self.width or y1 > self.height:
            raise AnnotationFormatError(
                f"{where}: box {x0},{y0},{x1},{y1} reaches outside its {self.width}×{self.height} picture"
            )
        common = self._common(label, caption, colour, where, number)
        self.marks.append({"id": common.pop("id"), "kind": "box", "x0": x0, "y0": y0, "x1": x1, "y1": y1, **common})

    def polygon(
        self, points: list[list[int]], label: str | None, where: str, caption: str = "",
        colour: str | None = None, number: Any = None,
    ) -> None:
        if not 3 <= len(points) <= MAX_POLYGON_VERTICES:
            raise AnnotationFormatError(
                f"{where}: a polygon has 3 to {MAX_POLYGON_VERTICES} vertices, not {len(points)}"
            )
        for x, y in points:
            if x < 0 or y < 0 or x > self.width or y > self.height:
                raise AnnotationFormatError(
                    f"{where}: polygon vertex {x},{y} is outside its {self.width}×{self.height} picture"
                )
        if polygon_area(points) == 0:
            raise AnnotationFormatError(f"{where}: polygon has no area")
        common = self._common(label, caption, colour, where, number)
        self.marks.append({"id": common.pop("id"), "kind": "polygon", "points": points, **common})

    def point(
        self, x: int, y: int, r: int | None, label: str | None, where: str, caption: str = "",
        colour: str | None = None, number: Any = None,
    ) -> None:
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise AnnotationFormatError(f"{where}: point {x},{y} is outside its {self.width}×{self.height} picture")
        radius = r if isinstance(r, int) and 1 <= r <= max(self.width, self.height) else default_radius(self.width, self.height)
        common = self._common(label, caption, colour, where, number)
        self.marks.append({"id": common.pop("id"), "kind": "point", "x": x, "y": y, "r": radius, **common})


def picture_stem_names(names: list[str]) -> list[str]:
    """Each picture's file stem (``pic0`` for ``pic0.jpg``); two pictures with one stem would
    write one label file, so they are refused."""
    stems = [name.rsplit(".", 1)[0] if "." in name else name for name in names]
    seen: set[str] = set()
    for stem in stems:
        if stem in seen:
            raise AnnotationFormatError(f"two pictures share the file stem {stem!r}; their label files would collide")
        seen.add(stem)
    return stems
