"""What ``Vision``'s methods take, shaped into the vision tools' arguments: addresses from
sequences and NumPy numbers, ``vision_mark``'s marks, and a checked class list. Pure: no picture,
no figure program.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .errors import VisionArgumentError


def _address_of(mark: Any) -> str:
    """An address from a sequence: ``(x, y)``, ``(x0, y0, x1, y1)`` or a polygon's vertices
    ``[(x0, y0), (x1, y1), (x2, y2), …]`` (NumPy numbers welcome)."""
    items = list(mark)
    if items and all(isinstance(item, (list, tuple)) or hasattr(item, "__len__") for item in items):
        items = [coordinate for vertex in items for coordinate in vertex]
    return ",".join(str(_plain(item)) for item in items)


def _mark_args(
    marks: Sequence[Any],
    captions: Sequence[str] | None,
    colours: Sequence[str] | str | None,
    r: int | Sequence[int | None] | None,
    labels: Sequence[str | None] | str | None = None,
) -> list[dict[str, Any]]:
    """``vision_mark``'s ``marks``: each an address string (``"x,y"``, ``"x0,y0,x1,y1"``, or 6 or
    more numbers for a polygon), a sequence of numbers or vertices, or a dict."""
    if isinstance(marks, (str, dict)):
        marks = [marks]
    result = []
    for index, mark in enumerate(marks):
        if isinstance(mark, dict):
            entry = dict(mark)
        elif isinstance(mark, str):
            entry = {"at": mark}
        else:
            entry = {"at": _address_of(mark)}
        if isinstance(entry.get("at"), (list, tuple)):
            entry["at"] = _address_of(entry["at"])
        if labels is not None:
            label = labels if isinstance(labels, str) else (labels[index] if index < len(labels) else None)
            if label is not None:
                entry.setdefault("label", label)
        if captions is not None and index < len(captions):
            entry.setdefault("caption", captions[index])
        if colours is not None:
            colour = colours if isinstance(colours, str) else (colours[index] if index < len(colours) else None)
            if colour is not None:
                entry.setdefault("colour", colour)
        radius = r if isinstance(r, int) or r is None else (r[index] if index < len(r) else None)
        if radius is not None:
            entry.setdefault("r", radius)
        result.append(entry)
    return result


def _plain(value: Any) -> Any:
    """Numbers from NumPy (``np.int64(3)``) as Python ints, so detections serialize; floats round."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: Most classes and longest class name: src/tools/vision/classes.ts (checked there again).
MAX_CLASSES = 100
MAX_CLASS_LENGTH = 60


def check_class_names(classes: Any) -> list[str] | None:
    """A class list as the record stores it, or VisionArgumentError saying what is wrong with it
    (the figure program checks every record again with the same rules)."""
    if classes is None:
        return None
    if isinstance(classes, (str, bytes)) or not isinstance(classes, Iterable):
        raise VisionArgumentError(f"classes must be a list of names, not {type(classes).__name__}", "bad-label")
    names = list(classes)
    if not 1 <= len(names) <= MAX_CLASSES:
        raise VisionArgumentError(f"classes: give 1 to {MAX_CLASSES} classes, not {len(names)}", "bad-label")
    for index, name in enumerate(names):
        if (
            not isinstance(name, str)
            or not name
            or name.strip() != name
            or len(name) > MAX_CLASS_LENGTH
            or any(ord(c) < 32 or ord(c) == 127 for c in name)
        ):
            raise VisionArgumentError(
                f"classes[{index}]: {name!r} is not a class name; use 1–{MAX_CLASS_LENGTH} characters, "
                "no control characters or surrounding spaces",
                "bad-label",
            )
    if len(set(names)) != len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise VisionArgumentError(f"classes: class {twice!r} is named twice", "bad-label")
    return names


def empty_record(address: str, classes: list[str] | None) -> dict[str, Any]:
    """A record with no marks (and the class list, when there is one)."""
    if classes is None:
        return {"image": address, "marks": [], "lastId": 0}
    return {"image": address, "classes": list(classes), "marks": [], "lastId": 0}
