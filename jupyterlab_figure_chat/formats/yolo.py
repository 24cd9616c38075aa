"""YOLO: ``VisionSet.to_yolo`` and ``VisionSet.from_yolo``.

One ``<stem>.txt`` per picture and ``classes.txt`` (one class name a line, line i is class i).
A box is ``class cx cy w h`` and a polygon ``class x0 y0 x1 y1 x2 y2 …`` (the YOLO segmentation
layout), every coordinate divided by the picture's width or height, written with 8 decimals so
reading it back gives the same whole pixels. YOLO has no points and no unlabelled objects: those
marks are left out, with a warning saying how many.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import AnnotationFormatError
from . import MarkBuilder, picture_stem_names, whole

if TYPE_CHECKING:
    from ..vision_set import VisionSet

#: Largest label file read (bytes).
MAX_LABEL_BYTES = 16 * 1024 * 1024


def _number(value: float) -> str:
    return f"{value:.8f}".rstrip("0").rstrip(".") if value else "0"


def to_yolo(vision_set: VisionSet, directory: str | os.PathLike[str]) -> None:
    classes = list(vision_set._classes or [])
    if not classes:
        raise AnnotationFormatError("to_yolo: YOLO needs class numbers; make the set with classes=[…]")
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    stems = picture_stem_names(vision_set.names)
    left_out = 0
    files: dict[str, str] = {"classes.txt": "".join(f"{name}\n" for name in classes)}
    for index, (stem, record) in enumerate(zip(stems, vision_set.records())):
        width, height = vision_set.size_of(index)
        lines = []
        for mark in record["marks"]:
            if mark["kind"] == "point" or "label" not in mark:
                left_out += 1
                continue
            number = classes.index(mark["label"])
            if mark["kind"] == "box":
                x0, y0, x1, y1 = mark["x0"], mark["y0"], mark["x1"], mark["y1"]
                values = [(x0 + x1) / 2 / width, (y0 + y1) / 2 / height, (x1 - x0) / width, (y1 - y0) / height]
            else:
                values = [v / (width if i % 2 == 0 else height) for x, y in mark["points"] for i, v in enumerate((x, y))]
            lines.append(" ".join([str(number), *map(_number, values)]))
        files[f"{stem}.txt"] = "".join(f"{line}\n" for line in lines)
    for name, text in files.items():
        (target / name).write_text(text, encoding="utf-8")
    if left_out:
        warnings.warn(
            f"to_yolo: {left_out} mark(s) left out: YOLO files hold labelled boxes and polygons only",
            stacklevel=3,
        )


def read_yolo(directory: Path, images: Path) -> tuple[list[Path], list[str], list[list[dict[str, Any]]]]:
    """(picture paths, classes, marks per picture) of YOLO labels, all checked first."""
    from ..set_pictures import PICTURE_SUFFIXES, header_size

    classes_file = directory / "classes.txt"
    if not classes_file.is_file():
        raise AnnotationFormatError(f"{directory}: no classes.txt (one class name a line) beside the labels")
    classes = [line.strip() for line in classes_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not classes:
        raise AnnotationFormatError("classes.txt: names no class")
    if not images.is_dir():
        raise AnnotationFormatError(f"{images}: the pictures' folder does not exist")
    pictures = sorted(p for p in images.iterdir() if p.suffix.lower() in PICTURE_SUFFIXES and p.is_file())
    if not pictures:
        raise AnnotationFormatError(f"{images}: holds no pictures")
    by_stem = dict(zip(picture_stem_names([p.name for p in pictures]), pictures))
    labels = sorted(p for p in directory.glob("*.txt") if p.name != "classes.txt")
    for label_file in labels:
        if label_file.stem not in by_stem:
            raise AnnotationFormatError(f"{label_file.name}: no picture named {label_file.stem}.* in {images}")
    marks: list[list[dict[str, Any]]] = []
    for stem, picture in by_stem.items():
        label_file = directory / f"{stem}.txt"
        size = header_size(picture)
        if size is None:
            raise AnnotationFormatError(f"{picture.name}: cannot read its size (is Pillow installed?)")
        width, height = size
        builder = MarkBuilder(width, height, classes, picture.name)
        if label_file.is_file():
            if label_file.stat().st_size > MAX_LABEL_BYTES:
                raise AnnotationFormatError(f"{label_file.name}: larger than {MAX_LABEL_BYTES} bytes")
            for number, line in enumerate(label_file.read_text(encoding="utf-8").splitlines(), start=1):
                _read_line(builder, classes, line, f"{label_file.name} line {number}", width, height)
        marks.append(builder.marks)
    return list(by_stem.values()), classes, marks


def _read_line(builder: MarkBuilder, classes: list[str], line: str, where: str, width: int, height: int) -> None:
    parts = line.split()
    if not parts:
        return
    count = len(parts)
    if count != 5 and (count < 7 or count % 2 == 0):
        raise AnnotationFormatError(
            f"{where}: {count} numbers, expected 5 (class cx cy w h) or an odd 7 or more (class x0 y0 x1 y1 x2 y2 …)"
        )
    try:
        number = int(parts[0])
        values = [float(part) for part in parts[1:]]
    except ValueError as error:
        raise AnnotationFormatError(f"{where}: {error}") from error
    if not 0 <= number < len(classes):
        raise AnnotationFormatError(f"{where}: class {number} is not in classes.txt (0–{len(classes) - 1})")
    if any(not -1e-6 <= value <= 1 + 1e-6 for value in values):
        raise AnnotationFormatError(f"{where}: coordinates must be fractions of the picture, 0 to 1")
    label = classes[number]
    if count == 5:
        cx, cy, w, h = values
        x0, x1 = whole((cx - w / 2) * width, where), whole((cx + w / 2) * width, where)
        y0, y1 = whole((cy - h / 2) * height, where), whole((cy + h / 2) * height, where)
        builder.box(x0, y0, x1, y1, label, where)
    else:
        points = [[whole(values[i] * width, where), whole(values[i + 1] * height, where)] for i in range(0, len(values), 2)]
        builder.polygon(points, label, where)
