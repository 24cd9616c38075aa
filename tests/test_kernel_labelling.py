"""Labelling on a real kernel (nbclient, no browser): classes and labels, polygons, bad pictures,
``VisionSet`` (moving through a set, callbacks, the page's set messages, what is saved), the COCO,
YOLO and VOC formats (COCO read back by pycocotools), round trips, and every bad input the readers
must refuse with a message naming the file and the entry, leaving nothing half-loaded. VOC's
hostile-XML cases are in tests/test_formats_voc.py, which needs no kernel.

One notebook holds every case, so the kernel and the figure program start once; each test reads
the outputs of its own cells (tagged by their first line).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

FIGURE_MIME = "application/vnd.figure-chat.figure+json"

CELLS = {
    "setup": """
        import json, os, numpy as np, ipywidgets
        from PIL import Image
        from jupyterlab_figure_chat import Vision, VisionSet, FigureChatError, PictureError, AnnotationFormatError
        os.makedirs("pics", exist_ok=True)
        rng = np.random.default_rng(7)
        for i, (w, h) in enumerate([(400, 300), (320, 240), (500, 200), (300, 300), (640, 480)]):
            Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(f"pics/pic{i}.jpg")
        def report(run):
            try:
                run()
                print("no error")
            except Exception as e:
                print(json.dumps({"type": type(e).__name__, "message": str(e),
                                  "is_figure_chat": isinstance(e, FigureChatError)}))
    """,
    "classes": """
        v = Vision(np.zeros((300, 400, 3), np.uint8), classes=["apple", "orange", "pear"])
        v.mark([{"at": "10,20,110,70", "label": "apple"}, [(10, 10), (90, 10), (50, 80)], "5,5"],
               labels=[None, "pear", None])
        v.update([{"mark": 3, "label": "orange"}])
        print(json.dumps({"marks": v.marks, "classes": v.classes, "list": v.list().text}))
    """,
    "label-not-a-class": """
        report(lambda: v.mark([{"at": "1,1", "label": "banana"}]))
    """,
    "polygon-too-many": """
        report(lambda: v.mark([",".join(f"{i % 400},{(i * 7) % 300}" for i in range(201))]))
    """,
    "polygon-outside": """
        report(lambda: v.mark(["0,0,401,0,200,100"]))
    """,
    "bad-classes": """
        report(lambda: Vision(np.zeros((3, 3), np.uint8), classes=["a", "a"]))
    """,
    "empty-0x0x3": """
        report(lambda: Vision(np.zeros((0, 0, 3), np.uint8)))
    """,
    "empty-1x0": """
        report(lambda: Vision(np.zeros((1, 0), np.uint8)))
    """,
    "too-many-pixels": """
        report(lambda: Vision(np.broadcast_to(np.uint8(0), (10001, 10000))))
    """,
    "set": """
        s = VisionSet("pics", classes=["apple", "orange", "pear"])
        submitted, skipped = [], []
        s.on_submit(lambda name, marks: submitted.append([name, len(marks)]))
        s.on_skip(lambda name, marks: skipped.append(name))
        s.mark([{"at": "10,20,110,70", "label": "apple"}, "50,50,90,50,70,90,40,80"], labels=[None, "pear"])
        s[1].marks = [{"x0": 1, "y0": 2, "x1": 300, "y1": 200, "label": "orange", "caption": "big"}]
        s[2].mark(["250,100"], labels="pear")
        s[3].mark(["10,10,100,10,100,100,10,100"], labels="apple")
        s.submit()
        after_submit = dict(s._set)
        # The page's Skip, as the widget's custom message.
        s._on_custom_message(s, {"method": "set", "action": "skip"}, [])
        s.prev()
        print(json.dumps({"len": len(s), "index": s.index, "names": s.names, "submitted": submitted,
                          "skipped": skipped, "after_submit": after_submit, "set": s._set,
                          "current": s.marks, "statuses": s.statuses}))
        s
    """,
    "set-reads-when-shown": """
        os.makedirs("lazy", exist_ok=True)
        Image.new("RGB", (64, 48), (0, 90, 0)).save("lazy/a000.jpg")
        # Not pictures at all: a set that read its folder up front would fail here.
        for k in range(1, 40):
            open(f"lazy/a{k:03d}.jpg", "wb").write(b"not a jpeg")
        lazy = VisionSet("lazy")
        made = {"len": len(lazy), "index": lazy.index, "width": lazy.width}
        report(lazy.next)
        lazy._on_custom_message(lazy, {"method": "set", "action": "next"}, [])
        print(json.dumps({**made, "after": lazy.index, "problem": lazy._problem}))
    """,
    "set-page-edit": """
        # A person's edit in the page arrives as a new _record; the kernel checks it first.
        s.index = 2
        edited = s.record
        edited["marks"] = edited["marks"] + [{"id": 9, "kind": "polygon", "points": [[1, 1], [40, 1], [20, 30]],
                                              "caption": "", "colour": "red", "label": "apple"}]
        edited["lastId"] = 9
        s._record = edited
        took = [m["id"] for m in s.marks]
        hostile = {**edited, "marks": [{**edited["marks"][-1], "label": "banana"}]}
        s._record = hostile
        problem = s._problem
        s._record = {**edited, "classes": ["apple", "orange", "pear", "plum"]}
        print(json.dumps({"took": took, "after": [m["id"] for m in s.marks], "problem": problem,
                          "classes_problem": s._problem, "classes": s.classes,
                          "annotations": [m["id"] for m in s.annotations["pic2.jpg"]]}))
    """,
    "set-callback-fails": """
        t = VisionSet([np.zeros((20, 30, 3), np.uint8), np.full((40, 50, 3), 9, np.uint8)])
        for hostile in [{"method": "set", "action": ["next"]}, {"method": "set", "action": "jump"}, {"method": "set"}]:
            t._on_custom_message(t, hostile, [])
        t.on_submit(lambda name, marks: 1 / 0)
        t._on_custom_message(t, {"method": "set", "action": "submit"}, [])
        print(json.dumps({"index": t.index, "problem": t._problem, "names": t.names,
                          "status": t.statuses}))
        report(lambda: t[5])
    """,
    "set-chat": """
        sent = []
        s.send = lambda content, buffers=None: sent.append([content, len(buffers or [])])
        target = s._entries[4].address
        base = {"image": target, "classes": s.classes, "marks": [], "lastId": 0}
        marked = {**base, "marks": [{"id": 1, "kind": "polygon", "points": [[1, 1], [60, 1], [30, 40]],
                                     "caption": "", "colour": "blue", "label": "pear"}], "lastId": 1}
        s._on_custom_message(s, {"method": "picture", "request": 7, "address": target}, [])
        s._on_custom_message(s, {"method": "write", "request": 8, "address": target, "base": base, "record": marked}, [])
        # The same base again: the marks changed meanwhile, so it is refused.
        s._on_custom_message(s, {"method": "write", "request": 9, "address": target, "base": base, "record": marked}, [])
        bad = {**marked, "marks": [{**marked["marks"][0], "label": "banana"}]}
        s._on_custom_message(s, {"method": "write", "request": 10, "address": target,
                                 "base": {**marked}, "record": bad}, [])
        s._on_custom_message(s, {"method": "write", "request": 11, "address": "nowhere.jpg", "base": base, "record": marked}, [])
        del s.send
        bundle = s._output_bundle()[0]["application/vnd.figure-chat.figure+json"]
        print(json.dumps({"sent": sent, "pic4": s.annotations["pic4.jpg"], "set": bundle["set"]}))
    """,
    "set-reads-on-demand": """
        # Not displayed: no background fingerprints, as when the chat asks before they are done.
        u = VisionSet([np.full((30, 40, 3), 60, np.uint8), np.full((20, 50, 3), 90, np.uint8),
                       np.zeros((0, 0, 3), np.uint8)])
        answers = []
        u.send = lambda content, buffers=None: answers.append([content, [bytes(b) for b in buffers or []]])
        before = u._entries[1].sha256
        u._on_custom_message(u, {"method": "picture", "request": 1, "address": u._entries[1].address}, [])
        u._on_custom_message(u, {"method": "picture", "request": 2, "address": u._entries[2].address}, [])
        import hashlib
        first, bad = answers[0], answers[1]
        print(json.dumps({"before": before, "after": u._entries[1].sha256, "size": list(u._entries[1].size),
                          "sent": first[0]["sha256"], "bytes_sha": hashlib.sha256(first[1][0]).hexdigest(),
                          "bad": bad[0], "bad_buffers": len(bad[1])}))
    """,
    "set-fingerprints-arrays": """
        import time
        from IPython.display import display
        a = VisionSet([np.full((30, 40, 3), 50 * i, np.uint8) for i in range(3)])
        display(a)
        for _ in range(600):
            if all(e.sha256 for e in a._entries):
                break
            time.sleep(0.05)
        fingerprints = [e.sha256 for e in a._entries]
        sizes = [list(e.size or ()) for e in a._entries]
        loaded = [a._loaded(i).sha256 for i in range(1, 3)]
        print(json.dumps({"fingerprints": fingerprints, "sizes": sizes, "loaded": loaded}))
    """,
    "coco": """
        coco = s.to_coco("coco.json")
        print(json.dumps({"returned": coco == json.load(open("coco.json"))}))
    """,
    "yolo-voc": """
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s.to_yolo("yolo")
            s.to_voc("voc")
        print(json.dumps({"files": sorted(os.listdir("yolo")), "voc": sorted(os.listdir("voc")),
                          "warnings": [str(w.message) for w in caught]}))
    """,
    "roundtrip": """
        back = VisionSet.from_coco("coco.json", root="pics")
        from_dict = VisionSet.from_coco(json.load(open("coco.json")), root="pics")
        yolo = VisionSet.from_yolo("yolo", images="pics")
        def shapes(annotations):
            keep = ("kind", "x0", "y0", "x1", "y1", "points", "label")
            return {name: [{k: m[k] for k in keep if k in m} for m in marks if m["kind"] != "point"]
                    for name, marks in annotations.items()}
        print(json.dumps({"coco": back.annotations == s.annotations,
                          "dict": from_dict.annotations == s.annotations,
                          "classes": back.classes,
                          "yolo": shapes(yolo.annotations) == shapes(s.annotations)}))
    """,
    "voc-roundtrip": """
        voc = VisionSet.from_voc("voc", images="pics", classes=s.classes)
        sorted_classes = VisionSet.from_voc([f"voc/pic{i}.xml" for i in range(5)], images="pics").classes
        voc.to_voc("voc-again")
        same = {name: open(f"voc/{name}").read() == open(f"voc-again/{name}").read() for name in os.listdir("voc")}
        print(json.dumps({"same_files": same, "shapes": shapes(voc.annotations) == shapes(s.annotations),
                          "colours": [m["colour"] for m in voc.annotations["pic0.jpg"]],
                          "s_colours": [m["colour"] for m in s.annotations["pic0.jpg"]],
                          "classes": voc.classes, "sorted_classes": sorted_classes, "len": len(voc)}))
    """,
    "bad-voc": """
        import shutil
        results = {}
        before = len(ipywidgets.Widget.widgets)
        for case, text in [
            ("outside", open("voc/pic1.xml").read().replace("<xmax>300</xmax>", "<xmax>321</xmax>")),
            ("entity", '<!DOCTYPE a [<!ENTITY x "pic1.jpg">]><annotation><filename>&x;</filename></annotation>'),
        ]:
            shutil.rmtree("bad-voc", ignore_errors=True)
            shutil.copytree("voc", "bad-voc")
            open("bad-voc/pic1.xml", "w").write(text)
            try:
                VisionSet.from_voc("bad-voc", images="pics")
                results[case] = "no error"
            except FigureChatError as e:
                results[case] = f"{type(e).__name__}: {e}"
        results["widgets_made"] = len(ipywidgets.Widget.widgets) - before
        print(json.dumps(results))
    """,
    "bad-coco": """
        good = json.load(open("coco.json"))
        def variant(change):
            data = json.loads(json.dumps(good))
            change(data)
            return data
        def unknown_category(d):
            d["annotations"][0]["id"] = 12
            d["annotations"][0]["category_id"] = 987
        def outside(d):
            d["annotations"][0]["bbox"] = [350, 10, 100, 20]
        def missing_picture(d):
            d["images"][1]["file_name"] = "nope.jpg"
        def wrong_size(d):
            d["images"][0]["width"] = 999
        before = len(ipywidgets.Widget.widgets)
        results = {}
        for name, change in [("unknown-category", unknown_category), ("outside", outside),
                             ("missing-picture", missing_picture), ("wrong-size", wrong_size)]:
            try:
                VisionSet.from_coco(variant(change), root="pics")
                results[name] = "no error"
            except FigureChatError as e:
                results[name] = f"{type(e).__name__}: {e}"
        open("broken.json", "w").write("{not json")
        try:
            VisionSet.from_coco("broken.json", root="pics")
        except FigureChatError as e:
            results["not-json"] = f"{type(e).__name__}: {e}"
        results["widgets_made"] = len(ipywidgets.Widget.widgets) - before
        print(json.dumps(results))
    """,
    "bad-yolo": """
        import shutil
        def broken(name, text):
            shutil.rmtree("bad-yolo", ignore_errors=True)
            shutil.copytree("yolo", "bad-yolo")
            with open(f"bad-yolo/{name}", "w") as f:
                f.write(text)
        results = {}
        before = len(ipywidgets.Widget.widgets)
        for case, name, text in [
            ("four-numbers", "pic0.txt", "0 0.5 0.5 0.1 0.1\\n1 0.5 0.5 0.2 0.2\\n2 0.5 0.5 0.3\\n"),
            ("class", "pic0.txt", "7 0.5 0.5 0.1 0.1\\n"),
            ("outside", "pic0.txt", "0 0.95 0.5 0.2 0.1\\n"),
            ("no-picture", "ghost.txt", "0 0.5 0.5 0.1 0.1\\n"),
            ("not-a-number", "pic0.txt", "0 0.5 x 0.1 0.1\\n"),
        ]:
            broken(name, text)
            try:
                VisionSet.from_yolo("bad-yolo", images="pics")
                results[case] = "no error"
            except FigureChatError as e:
                results[case] = f"{type(e).__name__}: {e}"
        results["widgets_made"] = len(ipywidgets.Widget.widgets) - before
        print(json.dumps(results))
    """,
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("labelling")


@pytest.fixture(scope="module")
def executed(folder: Path) -> dict[str, nbformat.NotebookNode]:
    notebook = nbformat.v4.new_notebook()
    for tag, source in CELLS.items():
        notebook.cells.append(nbformat.v4.new_code_cell(f"# {tag}\n" + textwrap.dedent(source).strip()))
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(folder)}}
    )
    client.execute()
    nbformat.write(notebook, folder / "executed.ipynb")
    return {cell.source.splitlines()[0][2:]: cell for cell in notebook.cells}


def printed(cell: nbformat.NotebookNode) -> dict:
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert not errors, "\n".join(errors[0].get("traceback", []))
    text = "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")
    return json.loads(text.strip().splitlines()[0])


def refusal(cell: nbformat.NotebookNode) -> dict:
    result = printed(cell)
    assert result["is_figure_chat"], result
    return result


def test_classes_labels_and_polygons_from_python(executed):
    result = printed(executed["classes"])
    marks = result["marks"]
    assert result["classes"] == ["apple", "orange", "pear"]
    assert [(m["kind"], m.get("label"), m["colour"]) for m in marks] == [
        ("box", "apple", "red"),
        ("polygon", "pear", "blue"),
        ("point", "orange", "green"),
    ]
    assert marks[1]["points"] == [[10, 10], [90, 10], [50, 80]]
    assert 'classes: "apple", "orange", "pear"' in result["list"]
    assert '#2 polygon 10,10,90,10,50,80 blue label "pear"' in result["list"]


@pytest.mark.parametrize(
    ("cell", "kind", "words"),
    [
        ("label-not-a-class", "VisionArgumentError", ["banana", "apple, orange, pear"]),
        ("polygon-too-many", "VisionArgumentError", ["at most 200 vertices"]),
        ("polygon-outside", "VisionArgumentError", ["401,0", "outside the 400×300 picture"]),
        ("bad-classes", "VisionArgumentError", ["'a' is named twice"]),
        ("empty-0x0x3", "PictureError", ["the picture is empty", "0×0×3"]),
        ("empty-1x0", "PictureError", ["the picture is empty", "1×0"]),
        ("too-many-pixels", "PictureError", ["100,000,000 pixels", "10001×10000"]),
    ],
)
def test_bad_input_raises_a_clear_error(executed, cell, kind, words):
    result = refusal(executed[cell])
    assert result["type"] == kind, result
    for word in words:
        assert word in result["message"], result


def test_a_set_moves_through_its_pictures_with_callbacks(executed):
    result = printed(executed["set"])
    assert result["len"] == 5
    assert result["names"] == [f"pic{i}.jpg" for i in range(5)]
    assert result["submitted"] == [["pic0.jpg", 2]]
    assert result["after_submit"] == {"index": 1, "count": 5, "labelled": 1, "name": "pic1.jpg", "status": "new"}
    assert result["skipped"] == ["pic1.jpg"]
    # Skip moved on to pic2; prev came back to pic1, whose marks s[1] set.
    assert result["index"] == 1
    assert result["set"]["status"] == "skipped" and result["set"]["labelled"] == 1
    assert [(m["kind"], m["label"], m["caption"]) for m in result["current"]] == [("box", "orange", "big")]
    assert result["statuses"]["pic0.jpg"] == "submitted"


def test_the_saved_output_is_the_current_picture(executed):
    # The set's output follows it (update_display): when the notebook is saved it shows picture 3
    # (index 2), where the later cells left it, with its marks; the set's other marks ride along.
    outputs = [o for o in executed["set"].outputs if o.output_type == "display_data"]
    assert len(outputs) == 1
    bundle = outputs[-1]["data"][FIGURE_MIME]
    assert bundle["set"]["index"] == 2
    assert bundle["picture"]["address"].endswith("pic2.jpg")
    assert bundle["record"]["image"] == bundle["picture"]["address"]
    assert bundle["record"]["classes"] == ["apple", "orange", "pear"]
    assert [(m["kind"], m["label"]) for m in bundle["record"]["marks"]] == [("point", "pear"), ("polygon", "apple")]
    assert "#9 polygon 1,1,40,1,20,30 red" in outputs[-1]["data"]["text/plain"]
    pictures = {p["name"]: p for p in bundle["set"]["pictures"]}
    assert [m["label"] for m in pictures["pic0.jpg"]["record"]["marks"]] == ["apple", "pear"]
    assert "record" not in pictures["pic2.jpg"]  # the shown one's record is the bundle's record
    assert "image/png" in outputs[-1]["data"]


def test_a_set_reads_pictures_when_shown(executed):
    cell = executed["set-reads-when-shown"]
    lines = "".join(o.text for o in cell.outputs if o.output_type == "stream").strip().splitlines()
    refused, state = json.loads(lines[0]), json.loads(lines[1])
    assert refused["type"] == "PictureError" and refused["is_figure_chat"], refused
    assert state["len"] == 40 and state["index"] == 0 and state["width"] == 64
    # A picture that cannot be read keeps the set where it was, and the page is told why.
    assert state["after"] == 0
    assert state["problem"].startswith("next failed: PictureError")


def test_a_page_edit_of_the_shown_picture_is_checked_and_kept(executed):
    result = printed(executed["set-page-edit"])
    assert result["took"] == [1, 9]
    assert result["after"] == [1, 9] and result["annotations"] == [1, 9]
    assert "banana" in result["problem"]
    # Only Python sets the class list: an edit that adds a class is refused whole.
    assert "class list is fixed" in result["classes_problem"]
    assert result["classes"] == ["apple", "orange", "pear"]


def test_a_failing_callback_is_shown_and_does_not_move_on(executed):
    cell = executed["set-callback-fails"]
    result = printed(cell)
    assert result["index"] == 0
    assert "ZeroDivisionError" in result["problem"]
    assert result["names"] == ["picture-0000.png", "picture-0001.png"]
    assert result["status"]["picture-0000.png"] == "new"
    text = "".join(o.text for o in cell.outputs if o.output_type == "stream")
    assert "IndexError" in text


def test_the_chat_reads_and_marks_any_picture_of_a_set(executed):
    result = printed(executed["set-chat"])
    sent = result["sent"]
    picture, written, changed, refused, nowhere = sent
    assert picture[0]["event"] == "picture" and picture[0]["request"] == 7 and picture[1] == 1
    assert len(picture[0]["sha256"]) == 64
    assert written[0] == {"event": "written", "request": 8, "ok": True, "problem": "", "address": picture[0]["address"]}
    assert changed[0]["ok"] is False and "changed while this call ran" in changed[0]["problem"]
    assert refused[0]["ok"] is False and "banana" in refused[0]["problem"]
    assert nowhere[0]["ok"] is False and "not a picture of this set" in nowhere[0]["problem"]
    assert [m["label"] for m in result["pic4"]] == ["pear"]
    listed = {p["name"]: p for p in result["set"]["pictures"]}
    assert result["set"]["count"] == 5 and len(listed) == 5
    assert listed["pic4.jpg"]["record"]["marks"][0]["kind"] == "polygon"
    assert listed["pic4.jpg"]["sha256"] == picture[0]["sha256"]
    assert listed["pic0.jpg"]["status"] == "submitted"


def test_a_set_picture_not_read_yet_is_read_when_the_chat_asks(executed):
    result = printed(executed["set-reads-on-demand"])
    assert result["before"] is None
    # The chat fingerprints the bytes it gets: they must be the bytes the kernel's fingerprint is of.
    assert result["sent"] == result["after"] == result["bytes_sha"]
    assert result["size"] == [50, 20]
    # A picture that cannot be read is answered with the reason, not left without an answer.
    assert result["bad"]["request"] == 2 and result["bad_buffers"] == 0
    assert result["bad"]["problem"].startswith("picture-0002.png: ")
    assert "empty" in result["bad"]["problem"]


def test_a_set_of_arrays_is_fingerprinted_after_its_first_paint(executed):
    # Without the fingerprints the chat cannot mark a picture of the set before it is shown.
    result = printed(executed["set-fingerprints-arrays"])
    assert all(isinstance(f, str) and len(f) == 64 for f in result["fingerprints"])
    assert result["fingerprints"][1:] == result["loaded"]
    assert result["sizes"] == [[40, 30]] * 3


def test_coco_is_read_by_pycocotools_and_agrees_with_the_marks(executed, folder):
    from pycocotools.coco import COCO

    assert printed(executed["coco"]) == {"returned": True}
    coco = COCO(str(folder / "coco.json"))
    names = {c["id"]: c["name"] for c in coco.loadCats(coco.getCatIds())}
    assert names == {1: "apple", 2: "orange", 3: "pear"}
    images = {img["file_name"]: img for img in coco.loadImgs(coco.getImgIds())}
    assert (images["pic2.jpg"]["width"], images["pic2.jpg"]["height"]) == (500, 200)
    anns = {
        (images_name, ann["category_id"], tuple(ann["bbox"])): ann
        for images_name, img in images.items()
        for ann in coco.loadAnns(coco.getAnnIds(imgIds=[img["id"]]))
    }
    box = anns[("pic0.jpg", 1, (10, 20, 100, 50))]
    assert box["area"] == 100 * 50 and box["segmentation"] == []
    polygon = anns[("pic0.jpg", 3, (40, 50, 50, 40))]
    assert polygon["segmentation"] == [[50, 50, 90, 50, 70, 90, 40, 80]]
    # Shoelace area of the four vertices, and the mask pycocotools draws from them agrees.
    assert polygon["area"] == 1300
    mask = coco.annToMask(polygon)
    assert abs(int(mask.sum()) - polygon["area"]) < 0.15 * polygon["area"]
    square = anns[("pic3.jpg", 1, (10, 10, 90, 90))]
    assert square["area"] == 8100 and abs(int(coco.annToMask(square).sum()) - 8100) < 400
    point = anns[("pic2.jpg", 3, (250, 100, 0, 0))]
    assert point["keypoints"] == [250, 100, 2] and point["num_keypoints"] == 1


def test_yolo_and_voc_files(executed, folder):
    result = printed(executed["yolo-voc"])
    assert result["files"] == ["classes.txt", *[f"pic{i}.txt" for i in range(5)]]
    assert result["voc"] == [f"pic{i}.xml" for i in range(5)]
    assert result["warnings"] == [
        "to_yolo: 1 mark(s) left out: YOLO files hold labelled boxes and polygons only",
        "to_voc: 1 mark(s) left out: VOC files hold labelled boxes and polygons only",
    ]
    assert (folder / "yolo" / "classes.txt").read_text() == "apple\norange\npear\n"
    lines = (folder / "yolo" / "pic0.txt").read_text().splitlines()
    assert lines[0] == "0 0.15 0.15 0.25 0.16666667"
    assert lines[1].split()[0] == "2" and len(lines[1].split()) == 9
    from xml.etree import ElementTree

    root = ElementTree.parse(folder / "voc" / "pic1.xml").getroot()
    assert root.findtext("size/width") == "320"
    obj = root.find("object")
    assert obj is not None and obj.findtext("name") == "orange"
    assert [obj.findtext(f"bndbox/{k}") for k in ("xmin", "ymin", "xmax", "ymax")] == ["2", "3", "300", "200"]


def test_export_then_import_is_lossless(executed):
    assert printed(executed["roundtrip"]) == {
        "coco": True,
        "dict": True,
        "classes": ["apple", "orange", "pear"],
        "yolo": True,
    }


def test_voc_export_then_import_then_export_writes_the_same_files(executed):
    result = printed(executed["voc-roundtrip"])
    assert result["same_files"] == {f"pic{i}.xml": True for i in range(5)}
    assert result["shapes"] is True
    assert result["colours"] == result["s_colours"]
    assert result["classes"] == ["apple", "orange", "pear"] == result["sorted_classes"]
    assert result["len"] == 5


def test_bad_voc_names_the_file_and_the_object_and_loads_nothing(executed):
    result = printed(executed["bad-voc"])
    assert result["outside"] == (
        "AnnotationFormatError: pic1.xml object 1: box 1,2,321,200 reaches outside its 320×240 picture"
    )
    assert result["entity"].startswith("AnnotationFormatError: pic1.xml: declares a DOCTYPE")
    assert result["widgets_made"] == 0


def test_bad_coco_names_the_file_and_the_entry_and_loads_nothing(executed):
    result = printed(executed["bad-coco"])
    assert result["unknown-category"] == "AnnotationFormatError: COCO dict: annotation 12: unknown category id 987"
    assert "reaches outside its 400×300 picture" in result["outside"]
    assert "annotation 1" in result["outside"]
    assert "nope.jpg is not in" in result["missing-picture"]
    assert "999×300" in result["wrong-size"] and "400×300" in result["wrong-size"]
    assert result["not-json"].startswith("AnnotationFormatError: broken.json: not JSON")
    assert result["widgets_made"] == 0


def test_bad_yolo_names_the_file_and_the_line_and_loads_nothing(executed):
    result = printed(executed["bad-yolo"])
    assert result["four-numbers"].startswith("AnnotationFormatError: pic0.txt line 3: 4 numbers, expected 5")
    assert "pic0.txt line 1: class 7 is not in classes.txt" in result["class"]
    assert "pic0.txt line 1" in result["outside"] and "outside" in result["outside"]
    assert "ghost.txt: no picture named ghost.*" in result["no-picture"]
    assert "pic0.txt line 1" in result["not-a-number"]
    assert result["widgets_made"] == 0

