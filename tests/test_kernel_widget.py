"""The Vision widget's kernel side without a browser: what the view sends is checked with the
tools' own validation before ``v.marks`` takes it, and assignments reach the synced record."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from jupyterlab_figure_chat import Vision, VisionArgumentError


@pytest.fixture()
def vision() -> Vision:
    v = Vision(np.zeros((300, 400, 3), np.uint8))
    yield v
    v.close()


def test_preview_crosses_as_bytes_once(vision: Vision):
    state = vision.get_state()
    assert isinstance(state["_preview"], bytes) and state["_preview"][:2] == b"\xff\xd8"  # JPEG
    assert (state["_width"], state["_height"]) == (400, 300)


def test_an_edit_from_the_view_reaches_marks(vision: Vision):
    record = {
        "image": vision.address,
        "lastId": 1,
        "marks": [{"id": 1, "kind": "point", "x": 10, "y": 20, "r": 6, "caption": "", "colour": "green"}],
    }
    vision.set_state({"_record": record})
    assert vision.marks == record["marks"]
    assert vision._problem == ""


def test_a_bad_edit_from_the_view_is_refused_and_reverted(vision: Vision):
    vision.mark(["100,100"])
    before = vision.marks
    bad = {
        "image": vision.address,
        "lastId": 2,
        "marks": [{"id": 2, "kind": "point", "x": 9000, "y": 20, "r": 6, "caption": "", "colour": "green"}],
    }
    vision.set_state({"_record": bad})
    assert vision.marks == before
    assert vision.get_state()["_record"]["marks"] == before
    assert "outside the 400×300 picture" in vision._problem


def test_assigning_marks_updates_the_synced_record(vision: Vision):
    vision.marks = [{"x0": 1, "y0": 2, "x1": 30, "y1": 40, "caption": "det"}]
    assert vision.get_state()["_record"]["marks"][0]["caption"] == "det"
    with pytest.raises(VisionArgumentError):
        vision.marks = [{"x0": 30, "y0": 2, "x1": 1, "y1": 40}]


def test_edits_from_the_view_rerender_the_saved_output_once_the_person_pauses(vision: Vision, monkeypatch):
    # Rendering the saved map of a big picture blocks the kernel for a second or two; per click, it
    # held the next clicks back (bench/widget-click). v.marks must follow at once, the render later.
    from jupyterlab_figure_chat import widget

    rendered: list[str] = []
    monkeypatch.setattr(widget, "update_display", lambda data, **_: rendered.append(data["text/plain"]))
    monkeypatch.setattr(widget, "EDIT_REFRESH_DELAY", 0.05)
    vision._displayed = True

    def record(count: int) -> dict:
        marks = [
            {"id": i, "kind": "point", "x": 10 * i, "y": 20, "r": 6, "caption": "", "colour": "green"}
            for i in range(1, count + 1)
        ]
        return {"image": vision.address, "lastId": count, "marks": marks}

    async def clicks() -> None:
        for count in (1, 2, 3):
            vision.set_state({"_record": record(count)})
            assert len(vision.marks) == count
        assert rendered == []
        await asyncio.sleep(0.5)

    asyncio.run(clicks())
    assert len(rendered) == 1
    assert "#3" in rendered[0]
