"""The output bundle every Figure and Vision output carries (format: ``src/tools/bundle.ts``).

The ``application/vnd.figure-chat.figure+json`` entry is the source of truth; ``image/png`` and
``text/plain`` (and ``image/svg+xml`` for figures) are what GitHub, nbviewer and nbconvert show
without the extension.
"""

from __future__ import annotations

import base64
from typing import Any

FIGURE_MIME = "application/vnd.figure-chat.figure+json"
BUNDLE_VERSION = 1


def png_entry(png: bytes) -> str:
    return base64.b64encode(png).decode("ascii")


def bundle_view(spec: dict[str, Any]) -> dict[str, Any]:
    """The bundle's view for a rendered view spec (map, marks, close-up or sheet)."""
    kind = spec.get("kind")
    cover = {"cover": spec["cover"]} if spec.get("cover") else {}
    if kind == "map":
        return {"kind": "show", "at": [], **cover} if cover else {"kind": "map"}
    if kind == "marks":
        return {"kind": "marks", "ids": list(spec["ids"]), **cover}
    if kind == "closeup":
        return {"kind": "show", "at": [spec["at"]], **cover}
    return {"kind": "show", "at": list(spec["at"]), **cover}


def bundle_record(record: dict[str, Any]) -> dict[str, Any]:
    """The record as a bundle stores it: image, class list (if any), marks and last number."""
    classes = {"classes": record["classes"]} if "classes" in record else {}
    return {"image": record["image"], **classes, "marks": record["marks"], "lastId": record["lastId"]}


def vision_bundle(
    picture: dict[str, Any],
    record: dict[str, Any],
    view: dict[str, Any],
    png: bytes,
    size: tuple[int, int],
    text: str,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(data, metadata) of one vision output."""
    data = {
        FIGURE_MIME: {
            "version": BUNDLE_VERSION,
            "kind": "vision",
            "picture": picture,
            "record": bundle_record(record),
            "view": view,
        },
        "image/png": png_entry(png),
        "text/plain": text,
    }
    metadata = {"image/png": {"width": size[0], "height": size[1]}}
    return data, metadata
