"""COCO: ``VisionSet.to_coco`` and ``VisionSet.from_coco``.

Written: ``images`` (file name, size), ``categories`` from the classes (id i + 1 for class i),
boxes as ``bbox`` ``[x, y, w, h]`` with ``area`` = w·h, polygons as ``segmentation`` ``[[x0, y0,
x1, y1, …]]`` with their shoelace ``area`` and bounding ``bbox``, points as one-keypoint
annotations (``keypoints`` ``[x, y, 2]``, categories name one keypoint ``"point"``). Marks without a
label go to one extra category, ``unlabelled``, whose ``supercategory`` is ``figure-chat:unlabelled``
so a read brings them back unlabelled. Each annotation keeps its mark's caption, colour and kind
under ``figure_chat`` (other readers ignore the key), so export → import loses nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import AnnotationFormatError
from . import MarkBuilder, mark_bounds, polygon_area, whole

if TYPE_CHECKING:
    from ..vision_set import VisionSet

UNLABELLED = "unlabelled"
UNLABELLED_SUPERCATEGORY = "figure-chat:unlabelled"

#: Largest COCO file read (bytes): a file of annotations, not of pictures.
MAX_COCO_BYTES = 512 * 1024 * 1024


def _extra(mark: dict[str, Any]) -> dict[str, Any]:
    extra: dict[str, Any] = {"id": mark["id"], "kind": mark["kind"], "colour": mark["colour"]}
    if mark.get("caption"):
        extra["caption"] = mark["caption"]
    if mark["kind"] == "point":
        extra["r"] = mark["r"]
    return extra


def to_coco(vision_set: VisionSet, path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    classes = list(vision_set._classes or [])
    records = vision_set.records()
    marks = [mark for record in records for mark in record["marks"]]
    ids = {name: index + 1 for index, name in enumerate(classes)}
    categories: list[dict[str, Any]] = [{"id": ids[name], "name": name, "supercategory": ""} for name in classes]
    unlabelled_id = len(classes) + 1
    if any("label" not in mark for mark in marks):
        categories.append({"id": unlabelled_id, "name": UNLABELLED, "supercategory": UNLABELLED_SUPERCATEGORY})
    if any(mark["kind"] == "point" for mark in marks):
        for category in categories:
            category["keypoints"] = ["point"]
            category["skeleton"] = []
    images = []
    annotations = []
    for index, (name, record) in enumerate(zip(vision_set.names, records)):
        width, height = vision_set.size_of(index)
        images.append({"id": index + 1, "file_name": name, "width": width, "height": height})
        for mark in record["marks"]:
            annotation: dict[str, Any] = {
                "id": len(annotations) + 1,
                "image_id": index + 1,
                "category_id": ids[mark["label"]] if "label" in mark else unlabelled_id,
                "iscrowd": 0,
            }
            if mark["kind"] == "point":
                x, y = mark["x"], mark["y"]
                annotation.update(
                    {"keypoints": [x, y, 2], "num_keypoints": 1, "bbox": [x, y, 0, 0], "area": 0, "segmentation": []}
                )
            else:
                x0, y0, x1, y1 = mark_bounds(mark)
                annotation["bbox"] = [x0, y0, x1 - x0, y1 - y0]
                if mark["kind"] == "box":
                    annotation.update({"area": (x1 - x0) * (y1 - y0), "segmentation": []})
                else:
                    flat = [coordinate for vertex in mark["points"] for coordinate in vertex]
                    annotation.update({"area": polygon_area(mark["points"]), "segmentation": [flat]})
            annotation["figure_chat"] = _extra(mark)
            annotations.append(annotation)
    coco = {
        "info": {"description": "Written by Figure Chat's VisionSet.to_coco"},
        "images": images,
        "annotations": annotations,
        "categories": categories,
    }
    if path is not None:
        target = Path(path)
        temporary = target.with_name(target.name + ".part")
        # Written whole, then moved into place: a failed write never leaves half a file.
        temporary.write_text(json.dumps(coco), encoding="utf-8")
        temporary.replace(target)
    return coco


def _load(source: Any) -> tuple[dict[str, Any], str]:
    if isinstance(source, dict):
        return source, "COCO dict"
    path = Path(source)
    label = path.name
    try:
        if path.stat().st_size > MAX_COCO_BYTES:
            raise AnnotationFormatError(f"{label}: larger than {MAX_COCO_BYTES} bytes")
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise AnnotationFormatError(f"{label}: cannot read it: {error.strerror or error}") from error
    except (ValueError, UnicodeDecodeError) as error:
        raise AnnotationFormatError(f"{label}: not JSON: {error}") from error
    if not isinstance(data, dict):
        raise AnnotationFormatError(f"{label}: a COCO file is a JSON object")
    return data, label


def _list(data: dict[str, Any], key: str, label: str, required: bool = True) -> list[dict[str, Any]]:
    value = data.get(key, None if required else [])
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise AnnotationFormatError(f"{label}: {key!r} must be a list of objects")
    return value


def read_coco(source: Any, root: Path) -> tuple[list[Path], list[str] | None, list[list[dict[str, Any]]]]:
    """(picture paths, classes, marks per picture) of a COCO file or dict, all checked first."""
    from ..set_pictures import header_size

    data, label = _load(source)
    images = _list(data, "images", label)
    categories = _list(data, "categories", label)
    annotations = _list(data, "annotations", label, required=False)
    if not images:
        raise AnnotationFormatError(f"{label}: 'images' is empty")
    classes: list[str] = []
    by_id: dict[int, str | None] = {}
    for position, category in enumerate(categories):
        cid, name = category.get("id"), category.get("name")
        if not isinstance(cid, int) or not isinstance(name, str) or cid in by_id:
            raise AnnotationFormatError(f"{label}: category {position}: needs a unique int 'id' and a 'name'")
        if category.get("supercategory") == UNLABELLED_SUPERCATEGORY:
            by_id[cid] = None
            continue
        if name in classes:
            raise AnnotationFormatError(f"{label}: category {cid}: the name {name!r} is used twice")
        by_id[cid] = name
        classes.append(name)
    paths: list[Path] = []
    builders: dict[int, MarkBuilder] = {}
    order: list[int] = []
    for position, image in enumerate(images):
        iid, file_name = image.get("id"), image.get("file_name")
        where = f"{label}: image {iid if iid is not None else position}"
        if not isinstance(iid, int) or iid in builders or not isinstance(file_name, str) or not file_name:
            raise AnnotationFormatError(f"{where}: needs a unique int 'id' and a 'file_name'")
        path = (root / file_name).resolve()
        if not path.is_file():
            raise AnnotationFormatError(f"{where}: the picture {file_name} is not in {root}")
        size = header_size(path)
        width, height = image.get("width"), image.get("height")
        if size is not None and (width, height) != size:
            raise AnnotationFormatError(
                f"{where} ({file_name}): the file says {width}×{height}, the picture is {size[0]}×{size[1]}"
            )
        if not isinstance(width, int) or not isinstance(height, int) or width <= 0 or height <= 0:
            raise AnnotationFormatError(f"{where} ({file_name}): needs int 'width' and 'height'")
        paths.append(path)
        order.append(iid)
        builders[iid] = MarkBuilder(width, height, classes or None, f"{where} ({file_name})")
    for position, annotation in enumerate(annotations):
        aid = annotation.get("id", position)
        where = f"{label}: annotation {aid}"
        image_id, category_id = annotation.get("image_id"), annotation.get("category_id")
        if image_id not in builders:
            raise AnnotationFormatError(f"{where}: unknown image id {image_id}")
        if category_id not in by_id:
            raise AnnotationFormatError(f"{where}: unknown category id {category_id}")
        builder = builders[image_id]
        mark_label = by_id[category_id]
        extra = annotation.get("figure_chat") if isinstance(annotation.get("figure_chat"), dict) else {}
        caption = extra.get("caption", "") if isinstance(extra.get("caption", ""), str) else ""
        colour = extra.get("colour") if isinstance(extra.get("colour"), str) else None
        number = extra.get("id")
        segmentation = annotation.get("segmentation")
        keypoints = annotation.get("keypoints")
        if isinstance(segmentation, list) and segmentation:
            # Each part of a multi-part segmentation becomes its own polygon mark.
            for part in segmentation:
                if not isinstance(part, list) or len(part) % 2:
                    raise AnnotationFormatError(f"{where}: a segmentation polygon is a flat list of x, y pairs")
                flat = [whole(value, where) for value in part]
                points = [[flat[i], flat[i + 1]] for i in range(0, len(flat), 2)]
                builder.polygon(points, mark_label, where, caption, colour, number)
        elif isinstance(keypoints, list) and (extra.get("kind") == "point" or "bbox" not in annotation):
            if len(keypoints) < 3 or len(keypoints) % 3:
                raise AnnotationFormatError(f"{where}: keypoints are x, y, v triples")
            # Every visible keypoint is a point.
            for i in range(0, len(keypoints), 3):
                if keypoints[i + 2]:
                    builder.point(
                        whole(keypoints[i], where),
                        whole(keypoints[i + 1], where),
                        extra.get("r"),
                        mark_label,
                        where,
                        caption,
                        colour,
                        number,
                    )
        else:
            bbox = annotation.get("bbox")
            if not isinstance(bbox, list) or len(bbox) != 4:
                raise AnnotationFormatError(f"{where}: needs a 'bbox' [x, y, w, h], a segmentation or keypoints")
            for value in bbox:
                whole(value, where)  # numbers only
            x, y, w, h = bbox
            x0, y0 = whole(x, where), whole(y, where)
            x1, y1 = whole(x + w, where), whole(y + h, where)
            builder.box(x0, y0, x1, y1, mark_label, where, caption, colour, number)
    return paths, classes or None, [builders[iid].marks for iid in order]
