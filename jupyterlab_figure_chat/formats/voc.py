"""Pascal VOC: ``VisionSet.to_voc``, one ``<stem>.xml`` per picture.

Each labelled box is an ``object`` with its class ``name`` and ``bndbox`` in VOC's 1-based pixel
numbers (``xmin = x0 + 1``, ``xmax = x1``). A polygon is written as its bounding box plus a
``polygon`` element with its vertices (``x1``, ``y1``, ``x2``, …), as CVAT and Roboflow read it.
VOC has no points and no unlabelled objects: those marks are left out, with a warning.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree

from ..errors import AnnotationFormatError
from . import mark_bounds, picture_stem_names

if TYPE_CHECKING:
    from ..vision_set import VisionSet


def _child(parent: ElementTree.Element, tag: str, text: object | None = None) -> ElementTree.Element:
    element = ElementTree.SubElement(parent, tag)
    if text is not None:
        element.text = str(text)
    return element


def to_voc(vision_set: VisionSet, directory: str | os.PathLike[str]) -> None:
    if not vision_set._classes:
        raise AnnotationFormatError("to_voc: VOC objects are named by class; make the set with classes=[…]")
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    stems = picture_stem_names(vision_set.names)
    left_out = 0
    documents = {}
    for index, (stem, name, record) in enumerate(zip(stems, vision_set.names, vision_set.records())):
        width, height = vision_set.size_of(index)
        root = ElementTree.Element("annotation")
        _child(root, "folder", "")
        _child(root, "filename", name)
        size = _child(root, "size")
        _child(size, "width", width)
        _child(size, "height", height)
        _child(size, "depth", 3)
        _child(root, "segmented", 0)
        for mark in record["marks"]:
            if mark["kind"] == "point" or "label" not in mark:
                left_out += 1
                continue
            obj = _child(root, "object")
            _child(obj, "name", mark["label"])
            _child(obj, "pose", "Unspecified")
            _child(obj, "truncated", 0)
            _child(obj, "difficult", 0)
            x0, y0, x1, y1 = mark_bounds(mark)
            box = _child(obj, "bndbox")
            _child(box, "xmin", x0 + 1)
            _child(box, "ymin", y0 + 1)
            _child(box, "xmax", x1)
            _child(box, "ymax", y1)
            if mark["kind"] == "polygon":
                polygon = _child(obj, "polygon")
                for number, (x, y) in enumerate(mark["points"], start=1):
                    _child(polygon, f"x{number}", x)
                    _child(polygon, f"y{number}", y)
        ElementTree.indent(root)
        documents[f"{stem}.xml"] = ElementTree.tostring(root, encoding="unicode")
    for file_name, text in documents.items():
        (target / file_name).write_text(text + "\n", encoding="utf-8")
    if left_out:
        warnings.warn(
            f"to_voc: {left_out} mark(s) left out: VOC files hold labelled boxes and polygons only",
            stacklevel=3,
        )
