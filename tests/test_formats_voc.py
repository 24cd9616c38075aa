"""Reading Pascal VOC (``VisionSet.from_voc``'s reader, no kernel needed): VOC's 1-based pixel
numbers, polygons, where pictures are found, hostile XML (billion laughs, external entities, a
path out of the folder, a file too large) and errors that name the file and the object.

The round trip through a real ``VisionSet`` (export → import → export writes the same files) and
"nothing half-loaded" are in tests/test_kernel_labelling.py, which has the kernel.
"""

from __future__ import annotations

import pyexpat
from pathlib import Path
from xml.etree import ElementTree

import pytest
from PIL import Image

from jupyterlab_figure_chat.errors import AnnotationFormatError, FigureChatError
from jupyterlab_figure_chat.formats import voc

BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10 if n > 1 else "&lol;" * 10}">' for n in range(1, 10))
    + "]><annotation><filename>&lol9;</filename></annotation>"
)


def external_entity(secret: Path) -> str:
    return (
        f'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file://{secret}">]>'
        "<annotation><filename>&x;</filename></annotation>"
    )


def annotation(filename: str, objects: str, size: tuple[int, int] | None = (40, 30), extra: str = "") -> str:
    size_xml = f"<size><width>{size[0]}</width><height>{size[1]}</height><depth>3</depth></size>" if size else ""
    return f"<annotation><folder>VOC2007</folder><filename>{filename}</filename>{extra}{size_xml}{objects}</annotation>"


def box(name: str, xmin: object, ymin: object, xmax: object, ymax: object) -> str:
    return (
        f"<object><name>{name}</name><pose>Left</pose><truncated>0</truncated><difficult>1</difficult>"
        f"<bndbox><xmin>{xmin}</xmin><ymin>{ymin}</ymin><xmax>{xmax}</xmax><ymax>{ymax}</ymax></bndbox></object>"
    )


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """VOC's layout: Annotations/ beside JPEGImages/, a 40×30 and a 50×20 picture."""
    (tmp_path / "JPEGImages").mkdir()
    (tmp_path / "Annotations").mkdir()
    Image.new("RGB", (40, 30)).save(tmp_path / "JPEGImages" / "a.jpg")
    Image.new("RGB", (50, 20)).save(tmp_path / "JPEGImages" / "b.png")
    return tmp_path


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / "Annotations" / name
    path.write_text(text, encoding="utf-8")
    return path


def read(dataset: Path, classes: list[str] | None = None):
    return voc.read_voc(dataset / "Annotations", dataset / "JPEGImages", classes)


def refusal(dataset: Path, classes: list[str] | None = None) -> str:
    with pytest.raises(AnnotationFormatError) as caught:
        read(dataset, classes)
    assert isinstance(caught.value, FigureChatError)
    return str(caught.value)


def test_boxes_use_voc_one_based_pixels_as_the_exporter_writes_them(dataset):
    # The whole picture is xmin 1 … xmax 40 in VOC, 0 … 40 in the record; floats are rounded.
    write(dataset, "a.xml", annotation("a.jpg", box("dog", 1, 1, 40, 30) + box("cat", "11.0", 21, 20.4, 25)))
    paths, classes, marks = read(dataset)
    assert paths == [dataset / "JPEGImages" / "a.jpg"]
    assert classes == ["cat", "dog"]
    assert [(m["kind"], m["x0"], m["y0"], m["x1"], m["y1"], m["label"]) for m in marks[0]] == [
        ("box", 0, 0, 40, 30, "dog"),
        ("box", 10, 20, 20, 25, "cat"),
    ]
    # Class i gets palette colour i, as the page's class toolbar shows it.
    assert [m["colour"] for m in marks[0]] == ["green", "red"]


def test_polygons_classes_order_and_zero_based_tools(dataset):
    polygon = (
        "<object><name>leaf</name><bndbox><xmin>3</xmin><ymin>3</ymin><xmax>30</xmax><ymax>20</ymax></bndbox>"
        "<polygon><x1>2</x1><y1>2</y1><x2>30</x2><y2>2</y2><x3>16</x3><y3>20</y3></polygon></object>"
    )
    write(dataset, "a.xml", annotation("a.jpg", polygon))
    # A tool that counts from 0 writes xmin 0: that is the picture's edge, not outside it.
    write(dataset, "b.xml", annotation("b.png", box("stem", 0, 0, 50, 20), size=(50, 20)))
    paths, classes, marks = read(dataset, ["stem", "leaf"])
    assert [p.name for p in paths] == ["a.jpg", "b.png"]
    assert classes == ["stem", "leaf"]
    assert marks[0][0]["kind"] == "polygon" and marks[0][0]["points"] == [[2, 2], [30, 2], [16, 20]]
    assert marks[0][0]["colour"] == "green"
    assert (marks[1][0]["x0"], marks[1][0]["y0"], marks[1][0]["x1"], marks[1][0]["y1"]) == (0, 0, 50, 20)


def test_pictures_are_found_beside_the_xml_or_by_the_last_part_of_path(tmp_path):
    Image.new("RGB", (40, 30)).save(tmp_path / "a.jpg")
    # labelImg on Windows: an empty <filename> and a path from another machine.
    extra = r"<path>C:\Users\someone\photos\a.jpg</path>"
    (tmp_path / "a.xml").write_text(annotation("", box("dog", 2, 2, 9, 9), extra=extra))
    paths, _, marks = voc.read_voc([tmp_path / "a.xml"], None, None)
    assert paths == [tmp_path / "a.jpg"] and marks[0][0]["x0"] == 1


def test_the_size_comes_from_the_picture_when_the_file_does_not_say(dataset):
    write(dataset, "a.xml", annotation("a.jpg", box("dog", 1, 1, 40, 30), size=(0, 0)))
    assert read(dataset)[2][0][0]["x1"] == 40


def test_python_311_stdlib_alone_on_hostile_xml():
    """What the stdlib does without our parser, for the record: expat ≥ 2.4 stops billion laughs
    and ElementTree never fetches an external entity, but a DTD's internal entities are expanded
    (the quadratic blow-up), so the reader refuses DOCTYPEs itself (next test)."""
    if pyexpat.version_info < (2, 4, 0):
        pytest.skip("expat before 2.4 has no amplification limit")
    with pytest.raises(ElementTree.ParseError, match="amplification"):
        ElementTree.fromstring(BILLION_LAUGHS)
    with pytest.raises(ElementTree.ParseError, match="undefined entity"):
        ElementTree.fromstring(external_entity(Path("/etc/hostname")))
    internal = '<!DOCTYPE a [<!ENTITY x "a.jpg">]><annotation><filename>&x;</filename></annotation>'
    assert ElementTree.fromstring(internal).findtext("filename") == "a.jpg"


@pytest.mark.parametrize("kind", ["billion-laughs", "external-entity", "internal-entity", "bare-doctype"])
def test_hostile_xml_is_refused_before_any_entity_is_read(dataset, kind):
    secret = dataset / "secret.txt"
    secret.write_text("a.jpg")
    text = {
        "billion-laughs": BILLION_LAUGHS,
        "external-entity": external_entity(secret),
        "internal-entity": '<!DOCTYPE a [<!ENTITY x "a.jpg">]><annotation><filename>&x;</filename></annotation>',
        "bare-doctype": '<!DOCTYPE annotation SYSTEM "voc.dtd">' + annotation("a.jpg", ""),
    }[kind]
    write(dataset, "a.xml", text)
    assert refusal(dataset) == "a.xml: declares a DOCTYPE; VOC files have none, and DTDs and entities are not read"


def test_a_picture_outside_the_folder_is_not_followed(dataset):
    # A hostile file must not make the set read whatever file it names.
    Image.new("RGB", (40, 30)).save(dataset / "outside.jpg")
    write(dataset, "a.xml", annotation("../outside.jpg", "", extra=f"<path>{dataset / 'outside.jpg'}</path>"))
    message = refusal(dataset)
    assert message == f"a.xml: the picture ../outside.jpg is not in {dataset / 'JPEGImages'}"


def test_a_file_over_the_size_limit_is_not_read(dataset, monkeypatch):
    monkeypatch.setattr(voc, "MAX_VOC_BYTES", 100)
    write(dataset, "a.xml", annotation("a.jpg", box("dog", 1, 1, 40, 30)))
    assert refusal(dataset) == "a.xml: larger than 100 bytes"


@pytest.mark.parametrize(
    "text, classes, expected",
    [
        (
            annotation("a.jpg", box("dog", 1, 1, 41, 30)),
            None,
            "a.xml object 1: box 0,0,41,30 reaches outside its 40×30 picture",
        ),
        (
            annotation("a.jpg", box("dog", 1, 1, 4, 3) + box("cat", 1, 1, 4, 3)),
            ["dog"],
            "a.xml object 2: label 'cat' is not one of the classes",
        ),
        (annotation("a.jpg", box("dog", 1, "top", 4, 3)), None, "a.xml object 1: <ymin> 'top' is not a number"),
        (annotation("a.jpg", box("dog", 1, "nan", 4, 3)), None, "a.xml object 1: <ymin>: nan is not a number"),
        (annotation("a.jpg", "<object><name>dog</name></object>"), None, "a.xml object 1: no <bndbox>"),
        (annotation("a.jpg", box("", 1, 1, 4, 3)), ["dog"], "a.xml object 1: no <name> (its class)"),
        (
            annotation("a.jpg", "<object><name>dog</name><polygon><x1>1</x1><y1>1</y1><x3>3</x3><y3>3</y3></polygon></object>"),
            None,
            "a.xml object 1: <polygon> needs x1, y1, x2, y2, … with no number missing",
        ),
        (annotation("a.jpg", "", size=(41, 30)), ["dog"], "a.xml (a.jpg): the file says 41×30, the picture is 40×30"),
        (annotation("nope.jpg", ""), ["dog"], "a.xml: the picture nope.jpg is not in"),
        ("<annotation><filename>a.jpg</filename>", None, "a.xml: not well-formed XML: no element found"),
        ("<coco/>", None, "a.xml: not a Pascal VOC file (its root is <coco>, expected <annotation>)"),
    ],
    ids=["outside", "class", "not-a-number", "nan", "no-bndbox", "no-name", "polygon-gap", "size", "missing-picture",
         "not-xml", "not-voc"],
)
def test_bad_files_name_the_file_and_the_object(dataset, text, classes, expected):
    write(dataset, "a.xml", text)
    assert refusal(dataset, classes).startswith(expected)


def test_a_bad_second_file_loads_nothing_and_two_files_for_one_picture_are_refused(dataset):
    write(dataset, "a.xml", annotation("a.jpg", box("dog", 1, 1, 4, 3)))
    write(dataset, "b.xml", annotation("b.png", box("dog", 1, 1, 99, 3), size=(50, 20)))
    assert refusal(dataset).startswith("b.xml object 1: box 0,0,99,3 reaches outside")
    write(dataset, "b.xml", annotation("a.jpg", ""))
    assert refusal(dataset) == "b.xml: a.xml labels a.jpg already"
