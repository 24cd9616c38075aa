"""The quick preview of a big JPEG, made in the kernel process with Pillow (quick_preview.py): it
is the picture as the figure program would preview it, it needs no figure program round trip, and
the figure program makes it whenever Pillow should not."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageCms

from jupyterlab_figure_chat import Vision, quick_preview
from jupyterlab_figure_chat.program import FigureProgram


def _photo(path: Path, width: int = 4000, height: int = 3000, **save: object) -> Path:
    """A JPEG with smooth colour so both decoders' previews can be compared pixel by pixel."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    rgb = np.stack([255 * x / width, 255 * y / height, 128 + 100 * np.sin(x / 300) * np.cos(y / 200)], axis=-1)
    Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).save(path, quality=90, **save)
    return path


@pytest.fixture()
def requests(monkeypatch):
    """The headers of every request the kernel sends the figure program."""
    seen: list[dict] = []
    original = FigureProgram.request

    def request(self, header, payload=b""):
        seen.append(header)
        return original(self, header, payload)

    monkeypatch.setattr(FigureProgram, "request", request)
    return seen


def _first_preview(vision: Vision, monkeypatch) -> tuple[dict, bytes]:
    sent: list[tuple[dict, list]] = []
    monkeypatch.setattr(vision, "send", lambda content, buffers=None: sent.append((content, buffers)))
    vision._send_preview(quick=True)
    ((content, buffers),) = sent
    return content, bytes(buffers[0])


def _pixels(jpeg: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"), dtype=np.int16)


def test_a_big_jpeg_is_previewed_in_the_kernel_as_the_figure_program_would(tmp_path, requests, monkeypatch):
    vision = Vision(_photo(tmp_path / "big.jpg"))
    try:
        content, jpeg = _first_preview(vision, monkeypatch)
        # No round trip for it, and the figure program was not asked to start one either (it
        # reads the picture in a thread meanwhile: wait for that).
        vision._settle()
        assert [header["op"] for header in requests] == ["picture"]
        assert "quickPreview" not in requests[0]
        assert content == {"event": "preview", "mime": "image/jpeg", "width": 500, "height": 375, "address": "big.jpg"}
        answer, sharp_jpeg = vision._request({"op": "preview", "maxSide": 500})
        assert (answer["width"], answer["height"]) == (500, 375)
        difference = np.abs(_pixels(jpeg) - _pixels(sharp_jpeg))
        assert difference.mean() < 2.0, difference.mean()
    finally:
        vision.close()


def test_a_jpeg_stored_on_its_side_is_previewed_upright_in_the_kernel(tmp_path, requests, monkeypatch):
    stored = np.zeros((3000, 4000, 3), np.uint8)
    stored[:, :2000] = (220, 30, 30)
    stored[:, 2000:] = (30, 30, 220)
    exif = Image.Exif()
    exif[0x0112] = 6
    path = tmp_path / "turned.jpg"
    Image.fromarray(stored).save(path, exif=exif)
    vision = Vision(path)
    try:
        content, jpeg = _first_preview(vision, monkeypatch)
        assert [header["op"] for header in requests] == ["picture"]
        assert (content["width"], content["height"]) == (375, 500)
        image = Image.open(io.BytesIO(jpeg)).convert("RGB")
        assert image.size == (375, 500)
        top, bottom = image.getpixel((300, 50)), image.getpixel((75, 450))
        assert top[0] > 150 and top[2] < 100, top
        assert bottom[2] > 150 and bottom[0] < 100, bottom
    finally:
        vision.close()


def test_a_jpeg_with_a_colour_profile_is_left_to_the_figure_program(tmp_path, requests, monkeypatch):
    # Pillow would not convert its colours to sRGB as sharp does: the figure program previews it.
    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    vision = Vision(_photo(tmp_path / "profiled.jpg", icc_profile=profile))
    try:
        assert requests[0].get("quickPreview") == 500
        content, _ = _first_preview(vision, monkeypatch)
        assert content["width"] == 500
        assert requests[-1] == {**requests[-1], "op": "preview", "maxSide": 500}
    finally:
        vision.close()


def test_only_big_jpegs_get_a_quick_preview(tmp_path):
    small = _photo(tmp_path / "small.jpg", 1600, 1200).read_bytes()
    assert quick_preview.start(small, 500, 1600) is None
    png = io.BytesIO()
    Image.new("RGB", (4000, 3000)).save(png, "PNG")
    assert quick_preview.start(png.getvalue(), 500, 1600) is None
    # A truncated JPEG: no preview from Pillow, and no exception either (the figure program says
    # what is wrong with it).
    big = _photo(tmp_path / "big.jpg").read_bytes()
    made = quick_preview.start(big[:2000], 500, 1600)
    assert made is None or made.result() is None


def test_the_quick_preview_is_made_while_the_kernel_goes_on(tmp_path):
    """Started in a thread: ``start`` returns before the decode is done."""
    data = _photo(tmp_path / "big.jpg").read_bytes()
    made = quick_preview.start(data, 500, 1600)
    assert made is not None
    assert made._thread.is_alive()
    header, jpeg = made.result()
    assert header == {"mime": "image/jpeg", "width": 500, "height": 375}
    assert jpeg[:2] == b"\xff\xd8"


@pytest.fixture()
def slow_start(monkeypatch):
    """A figure program whose reading of a picture waits until the test sets the event, as a
    fresh kernel's first one waits for Node's start."""
    started = threading.Event()
    original = FigureProgram.request

    def request(self, header, payload=b""):
        if header["op"] == "picture":
            assert started.wait(60)
        return original(self, header, payload)

    monkeypatch.setattr(FigureProgram, "request", request)
    yield started
    started.set()


def test_the_first_paint_does_not_wait_for_the_figure_program(tmp_path, slow_start, monkeypatch):
    """Issue 31's first-paint budget: the output and the quick preview of a big JPEG go out while
    the figure program is still starting; the program's reading is taken before any request."""
    vision = Vision(_photo(tmp_path / "first.jpg"))
    try:
        assert (vision.width, vision.height, vision.format) == (4000, 3000, "jpeg")
        bundle = vision._first_bundle()
        content, jpeg = _first_preview(vision, monkeypatch)
        assert not slow_start.is_set()
        assert bundle["text/plain"] == "first.jpg (4000×3000): 0 marks."
        assert (content["width"], content["height"]) == (500, 375)
        assert Image.open(io.BytesIO(jpeg)).size == (500, 375)
        slow_start.set()
        # The program's own text agrees with what the first output said.
        assert vision.list().text == bundle["text/plain"]
        vision.mark(["3990,2990", "10,10,400,300"])
        assert [mark["id"] for mark in vision.marks] == [1, 2]
    finally:
        vision.close()


def test_the_figure_program_s_reading_of_the_size_wins(tmp_path, slow_start):
    """Should Pillow and the figure program ever read another size, the widget takes the program's
    (the marks are checked against it) and drops the quick preview made at the other size."""
    vision = Vision(_photo(tmp_path / "misread.jpg"))
    try:
        vision.width, vision.height = 400, 300
        vision._width, vision._height = 400, 300
        slow_start.set()
        assert vision.list().text == "misread.jpg (4000×3000): 0 marks."
        assert (vision.width, vision.height, vision._width, vision._height) == (4000, 3000, 4000, 3000)
        assert vision._quick_preview is None
    finally:
        vision.close()
