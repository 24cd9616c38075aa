"""Pascal VOC: ``VisionSet.to_voc``, one ``<stem>.xml`` per picture, and ``VisionSet.from_voc``.

Each labelled box is an ``object`` with its class ``name`` and ``bndbox`` in VOC's 1-based pixel
numbers (``xmin = x0 + 1``, ``xmax = x1``). A polygon is written as its bounding box plus a
``polygon`` element with its vertices (``x1``, ``y1``, ``x2``, …), as CVAT and Roboflow read it.
VOC has no points and no unlabelled objects: those marks are left out, with a warning.

Reading undoes exactly that (``x0 = xmin - 1``, ``x1 = xmax``; polygon vertices as written), so
export → import → export writes the same files. The XML is a stranger's: it is parsed by expat
with every DOCTYPE refused (VOC files have none; entity declarations are how billion-laughs and
external-entity attacks start), each file at most ``MAX_VOC_BYTES``, and a picture is looked for
only inside the folder it is resolved against.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree
from xml.parsers import expat

from ..errors import AnnotationFormatError, VisionArgumentError
from . import MarkBuilder, mark_bounds, picture_stem_names, whole

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


#: Largest VOC file read (bytes): 500 polygons of 200 vertices fit well below it.
MAX_VOC_BYTES = 16 * 1024 * 1024


class _Refused(Exception):
    """Raised inside an expat handler; turned into an AnnotationFormatError naming the file."""


def _refuse_doctype(*_: Any) -> None:
    raise _Refused("declares a DOCTYPE; VOC files have none, and DTDs and entities are not read")


def parse_voc_xml(data: bytes, label: str) -> ElementTree.Element:
    """The element tree of one VOC file, parsed without DTDs, entities or external references.

    Python 3.11's ElementTree already leaves external entities unresolved and, with expat 2.4 or
    newer, stops billion-laughs; but an older expat or a quadratic blow-up of one internal entity
    still gets through, so any DOCTYPE is refused before its first declaration is read."""
    builder = ElementTree.TreeBuilder()
    parser = expat.ParserCreate()
    parser.StartDoctypeDeclHandler = _refuse_doctype
    parser.EntityDeclHandler = _refuse_doctype
    parser.UnparsedEntityDeclHandler = _refuse_doctype
    parser.ExternalEntityRefHandler = _refuse_doctype
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.buffer_text = True
    try:
        parser.Parse(data, True)
        root = builder.close()
    except _Refused as error:
        raise AnnotationFormatError(f"{label}: {error}") from None
    except expat.ExpatError as error:
        raise AnnotationFormatError(f"{label}: not well-formed XML: {error}") from None
    if root.tag != "annotation":
        raise AnnotationFormatError(f"{label}: not a Pascal VOC file (its root is <{root.tag}>, expected <annotation>)")
    return root


def _voc_files(source: Any) -> list[Path]:
    if isinstance(source, (str, os.PathLike)):
        folder = Path(source)
        if not folder.is_dir():
            raise AnnotationFormatError(f"{folder}: from_voc takes a folder of VOC XML files or a list of their paths")
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".xml" and p.is_file())
        if not files:
            raise AnnotationFormatError(f"{folder}: holds no .xml files")
    elif isinstance(source, (bytes, bytearray, dict)) or not hasattr(source, "__iter__"):
        raise AnnotationFormatError(
            f"from_voc takes a folder of VOC XML files or a list of their paths, not {type(source).__name__}"
        )
    else:
        files = [Path(item) for item in source]
        if not files:
            raise AnnotationFormatError("from_voc: the list of VOC files is empty")
    from ..set_pictures import MAX_SET_PICTURES

    if len(files) > MAX_SET_PICTURES:
        raise AnnotationFormatError(f"from_voc: at most {MAX_SET_PICTURES} files, not {len(files)}")
    return files


def _read_file(path: Path) -> bytes:
    try:
        if path.stat().st_size > MAX_VOC_BYTES:
            raise AnnotationFormatError(f"{path.name}: larger than {MAX_VOC_BYTES} bytes")
        return path.read_bytes()
    except OSError as error:
        raise AnnotationFormatError(f"{path.name}: cannot read it: {error.strerror or error}") from error


def _picture_of(root: ElementTree.Element, label: str, base: Path) -> Path:
    """The picture a VOC file names: ``<filename>``, else ``<path>`` or its last part, under
    ``base``. A name that leads outside ``base`` (``..``, an absolute path elsewhere) is not
    followed: a hostile file must not make the set read any file it likes."""
    filename = (root.findtext("filename") or "").strip()
    path_text = (root.findtext("path") or "").strip()
    names = [filename, path_text, path_text.replace("\\", "/").rsplit("/", 1)[-1]]
    inside = os.path.normpath(os.path.abspath(base))
    for name in filter(None, names):
        candidate = os.path.normpath(os.path.join(inside, name))
        if os.path.commonpath([inside, candidate]) == inside and os.path.isfile(candidate):
            return Path(candidate)
    if not filename and not path_text:
        raise AnnotationFormatError(f"{label}: names no picture (no <filename> or <path>)")
    raise AnnotationFormatError(f"{label}: the picture {filename or path_text} is not in {base}")


def _coordinate(parent: ElementTree.Element, tag: str, where: str) -> int:
    text = parent.findtext(tag)
    if text is None:
        raise AnnotationFormatError(f"{where}: no <{tag}>")
    try:
        value = float(text)
    except ValueError:
        raise AnnotationFormatError(f"{where}: <{tag}> {text.strip()[:40]!r} is not a number") from None
    return whole(value, f"{where}: <{tag}>")


def _size(root: ElementTree.Element, picture: Path, label: str) -> tuple[int, int]:
    from ..set_pictures import header_size

    found = header_size(picture)
    size = root.find("size")
    stated: tuple[int, int] | None = None
    if size is not None:
        width, height = (_coordinate(size, key, f"{label}: <size>") for key in ("width", "height"))
        # Some labelling tools write 0 × 0 when they did not know the size: the picture says it.
        stated = (width, height) if width > 0 and height > 0 else None
    if stated and found and stated != found:
        raise AnnotationFormatError(
            f"{label} ({picture.name}): the file says {stated[0]}×{stated[1]}, the picture is {found[0]}×{found[1]}"
        )
    known = stated or found
    if known is None:
        raise AnnotationFormatError(f"{label}: no <size> and cannot read {picture.name}'s size (is Pillow installed?)")
    return known


def _polygon_points(polygon: ElementTree.Element, where: str) -> list[list[int]]:
    """Vertices ``x1, y1, x2, y2, …`` in their numbers' order, with no number missing."""
    values: dict[str, int] = {}
    for child in polygon:
        if child.tag[:1] in ("x", "y") and child.tag[1:].isdigit():
            values[child.tag] = _coordinate(polygon, child.tag, where)
    count = len(values) // 2
    if not all(f"x{n}" in values and f"y{n}" in values for n in range(1, count + 1)) or len(values) % 2:
        raise AnnotationFormatError(f"{where}: <polygon> needs x1, y1, x2, y2, … with no number missing")
    return [[values[f"x{n}"], values[f"y{n}"]] for n in range(1, count + 1)]


def _add_object(builder: MarkBuilder, obj: ElementTree.Element, where: str) -> None:
    name = (obj.findtext("name") or "").strip()
    if not name:
        raise AnnotationFormatError(f"{where}: no <name> (its class)")
    polygon = obj.find("polygon")
    if polygon is not None:
        builder.polygon(_polygon_points(polygon, where), name, where)
        return
    box = obj.find("bndbox")
    if box is None:
        raise AnnotationFormatError(f"{where}: no <bndbox>")
    xmin, ymin, xmax, ymax = (_coordinate(box, key, where) for key in ("xmin", "ymin", "xmax", "ymax"))
    # VOC counts pixels from 1 and xmax is the last pixel inside: x0 = xmin - 1, x1 = xmax, as
    # to_voc writes them. Tools that count from 0 write xmin 0; that is the picture's edge.
    builder.box(max(xmin - 1, 0), max(ymin - 1, 0), xmax, ymax, name, where)


def read_voc(
    source: Any, images: Path | None, classes: list[str] | None
) -> tuple[list[Path], list[str], list[list[dict[str, Any]]]]:
    """(picture paths, classes, marks per picture) of Pascal VOC files, all checked first.

    Without ``classes`` the set's classes are the ``<name>``s found, sorted (VOC files carry no
    class list, and a sorted one does not depend on which picture comes first)."""
    from ..vision import check_class_names

    files = _voc_files(source)
    if images is not None and not images.is_dir():
        raise AnnotationFormatError(f"{images}: the pictures' folder does not exist")
    parsed: list[tuple[str, ElementTree.Element, Path]] = []
    labelled_by: dict[Path, str] = {}
    for path in files:
        root = parse_voc_xml(_read_file(path), path.name)
        picture = _picture_of(root, path.name, images if images is not None else path.parent)
        if picture in labelled_by:
            raise AnnotationFormatError(f"{path.name}: {labelled_by[picture]} labels {picture.name} already")
        labelled_by[picture] = path.name
        parsed.append((path.name, root, picture))
    if classes is None:
        found = {(obj.findtext("name") or "").strip() for _, root, _ in parsed for obj in root.findall("object")}
        classes = sorted(found - {""})
    if not classes:
        raise AnnotationFormatError("from_voc: the files name no class; pass classes=[…]")
    try:
        classes = check_class_names(classes) or []
    except VisionArgumentError as error:
        # A bad <name> is the file's fault: say which file it is in.
        raise AnnotationFormatError(f"from_voc: the class names found cannot be classes: {error}") from None
    marks: list[list[dict[str, Any]]] = []
    for label, root, picture in parsed:
        width, height = _size(root, picture, label)
        builder = MarkBuilder(width, height, classes, f"{label} ({picture.name})")
        for number, obj in enumerate(root.findall("object"), start=1):
            _add_object(builder, obj, f"{label} object {number}")
        marks.append(builder.marks)
    return [picture for _, _, picture in parsed], classes, marks
