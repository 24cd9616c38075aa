"""The formats of a ``VisionSet`` as its methods (the formats themselves are in ``formats/``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .vision import empty_record

if TYPE_CHECKING:
    from .vision_set import VisionSet


class SetFormats:
    """``to_coco`` / ``to_yolo`` / ``to_voc`` and ``from_coco`` / ``from_yolo`` / ``from_voc`` of
    ``VisionSet``."""


    def to_coco(self: VisionSet, path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """The set as a COCO dict (written to ``path`` as JSON when given)."""
        from .formats.coco import to_coco

        return to_coco(self, path)

    def to_yolo(self: VisionSet, directory: str | os.PathLike[str]) -> None:
        """One YOLO ``.txt`` per picture and ``classes.txt`` in ``directory``."""
        from .formats.yolo import to_yolo

        to_yolo(self, directory)

    def to_voc(self: VisionSet, directory: str | os.PathLike[str]) -> None:
        """One Pascal VOC XML per picture in ``directory``."""
        from .formats.voc import to_voc

        to_voc(self, directory)

    @classmethod
    def from_coco(cls, source: Any, *, root: str | os.PathLike[str], **kwargs: Any) -> VisionSet:
        """A set of the pictures a COCO file (path or dict) names under ``root``, with its marks."""
        from .formats.coco import read_coco

        return cls._with_records(*read_coco(source, Path(root)), **kwargs)

    @classmethod
    def from_yolo(
        cls, directory: str | os.PathLike[str], *, images: str | os.PathLike[str], **kwargs: Any
    ) -> VisionSet:
        """A set of the pictures in ``images`` with the YOLO labels in ``directory``."""
        from .formats.yolo import read_yolo

        return cls._with_records(*read_yolo(Path(directory), Path(images)), **kwargs)

    @classmethod
    def from_voc(
        cls,
        source: Any,
        *,
        images: str | os.PathLike[str] | None = None,
        classes: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> VisionSet:
        """A set of the pictures Pascal VOC files name, with their boxes and polygons.

        ``source`` is a folder of ``.xml`` files or a list of their paths. Each file's
        ``<filename>`` (else ``<path>``) is looked for in ``images``, or beside the XML file when
        ``images`` is not given. ``classes`` fixes the class list and its order (colours follow
        it); without it the classes are the ``<name>``s found, sorted."""
        from .formats.voc import read_voc

        wanted = list(classes) if classes is not None else None
        return cls._with_records(*read_voc(source, Path(images) if images is not None else None, wanted), **kwargs)

    @classmethod
    def _with_records(
        cls, paths: list[Path], classes: list[str] | None, marks: list[list[dict[str, Any]]], **kwargs: Any
    ) -> VisionSet:
        """A set whose pictures already carry marks, checked whole by the format's reader (bounds,
        labels, vertices) before anything is made; the figure program checks each record again
        whenever it draws or changes it."""
        created = cls(paths, classes=classes, **kwargs)
        for index, picture_marks in enumerate(marks):
            entry = created._entries[index]
            record = {**empty_record(entry.address, created._classes), "marks": picture_marks}
            record["lastId"] = max([0, *(mark["id"] for mark in picture_marks)])
            created._store(index, record)
        return created
