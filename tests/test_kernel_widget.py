"""The Vision widget's kernel side without a browser: what the view sends is checked with the
tools' own validation before ``v.marks`` takes it, and assignments reach the synced record."""

from __future__ import annotations

import asyncio
import io
import time

import numpy as np
import pytest
from PIL import Image

from jupyterlab_figure_chat import Vision, VisionArgumentError


@pytest.fixture()
def vision() -> Vision:
    v = Vision(np.zeros((300, 400, 3), np.uint8))
    yield v
    v.close()


def test_the_preview_is_not_widget_state(vision: Vision):
    # Widget state is what nbclient stores in the notebook (metadata.widgets): the preview JPEG
    # must never be part of it; it travels in a custom message instead.
    state = vision.get_state()
    assert not any(isinstance(value, (bytes, memoryview)) for value in state.values())
    assert "_preview" not in state
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


def _custom(client, comm_id: str, content: dict) -> None:
    import uuid

    request = {"method": "custom", "content": content}
    message = client.session.msg("comm_msg", {"comm_id": comm_id, "data": request})
    message["header"]["msg_id"] = uuid.uuid4().hex
    client.shell_channel.send(message)


def _event(client, comm_id: str, event: str) -> dict:
    while True:
        msg = client.get_iopub_msg(timeout=60)
        content = msg["content"]
        if msg["msg_type"] == "comm_msg" and content.get("comm_id") == comm_id:
            data = content["data"]
            if data.get("method") == "custom" and data["content"].get("event") == event:
                return msg


def test_the_picture_goes_to_the_chat_on_request_over_a_real_kernel_comm(kernel):
    """The chat's vision tools ask a live widget for its picture (``{"method": "picture"}``) to
    draw views; the kernel answers once with the bytes as a binary buffer and their sha-256."""
    import hashlib
    import json

    client = kernel
    code = (
        "import json, numpy as np\n"
        "from jupyterlab_figure_chat import Vision\n"
        "v = Vision(np.full((30, 40, 3), 90, np.uint8))\n"
        "print(json.dumps({'id': v.model_id, 'sha256': v.sha256}))"
    )
    printed: list[dict] = []
    reply = client.execute_interactive(code, timeout=120, output_hook=printed.append)
    assert reply["content"]["status"] == "ok"
    text = "".join(m["content"].get("text", "") for m in printed if m["msg_type"] == "stream")
    shown = json.loads(text)
    _custom(client, shown["id"], {"method": "picture", "request": 7})
    msg = _event(client, shown["id"], "picture")
    assert msg["content"]["data"]["content"] == {"event": "picture", "request": 7, "sha256": shown["sha256"]}
    (buffer,) = msg["buffers"]
    assert hashlib.sha256(bytes(buffer)).hexdigest() == shown["sha256"]


def _run_cell(client, code: str) -> list[dict]:
    """Run a cell on the real kernel and return every message it sent while it ran."""
    seen: list[dict] = []
    reply = client.execute_interactive(code, timeout=120, output_hook=seen.append)
    assert reply["content"]["status"] == "ok"
    return seen


def _is_preview(msg: dict) -> bool:
    """Whether a kernel message is a preview pushed to the view (a widget custom message)."""
    return msg["msg_type"] == "comm_msg" and msg["content"]["data"].get("method") == "custom"


@pytest.fixture()
def kernel():
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    yield client
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def test_displayed_widget_shows_at_once_then_preview_then_png(kernel):
    """First paint: the output (live entry, bundle, mark list) goes out before any render, the
    preview JPEG follows as a buffer in a custom message, and the map PNG comes last, by
    update_display, before the cell ends. A view that asks later (page reload) gets the preview."""
    client = kernel
    code = (
        "import numpy as np\n"
        "from jupyterlab_figure_chat import Vision\n"
        "v = Vision(np.full((300, 400, 3), 90, np.uint8))\n"
        "v.mark(['100,100'])\n"
        "v"
    )
    seen = _run_cell(client, code)
    kinds = []
    for msg in seen:
        kind = msg["msg_type"]
        if kind in ("display_data", "update_display_data"):
            kinds.append((kind, "image/png" in msg["content"]["data"]))
        elif _is_preview(msg):
            kinds.append(("preview", msg["buffers"][0][:2] == b"\xff\xd8"))
    assert kinds == [("display_data", False), ("preview", True), ("update_display_data", True)]
    first = next(m for m in seen if m["msg_type"] == "display_data")["content"]["data"]
    model_id = first["application/vnd.figure-chat.widget+json"]["model_id"]
    assert first["application/vnd.figure-chat.figure+json"]["record"]["marks"][0]["x"] == 100
    assert "#1 point 100,100" in first["text/plain"]
    _custom(client, model_id, {"method": "preview"})
    msg = _event(client, model_id, "preview")
    # The preview names its picture, so a set's page drops one for a picture it no longer shows.
    assert msg["content"]["data"]["content"] == {
        "event": "preview",
        "mime": "image/jpeg",
        "width": 400,
        "height": 300,
        "address": first["application/vnd.figure-chat.figure+json"]["picture"]["address"],
    }
    assert bytes(msg["buffers"][0])[:2] == b"\xff\xd8"


def test_a_view_knows_a_preview_is_on_its_way_until_the_last_one_is_sent(kernel):
    """``_preview_pending`` turns true before the output (so a view made from it waits for the
    pushed preview instead of asking for a copy) and false only after the last preview."""
    client = kernel
    code = (
        "import numpy as np\n"
        "import os, tempfile\n"
        "from PIL import Image\n"
        "from jupyterlab_figure_chat import Vision\n"
        "path = os.path.join(tempfile.mkdtemp(), 'pending.jpg')\n"
        "Image.fromarray(np.full((1800, 2400, 3), 90, np.uint8)).save(path)\n"
        "Vision(path)"
    )
    seen = _run_cell(client, code)
    steps = []
    for msg in seen:
        kind = msg["msg_type"]
        data = msg["content"].get("data", {})
        if kind == "comm_open" and "_preview_pending" in data.get("state", {}):
            steps.append(("open", data["state"]["_preview_pending"]))
        elif kind == "comm_msg" and "_preview_pending" in data.get("state", {}):
            steps.append(("pending", data["state"]["_preview_pending"]))
        elif kind == "display_data":
            steps.append(("display", None))
        elif _is_preview(msg):
            steps.append(("preview", data["content"]["width"]))
    assert steps == [
        ("open", False),
        ("pending", True),
        ("display", None),
        ("preview", 500),
        ("preview", 1600),
        ("pending", False),
    ]


def test_edits_from_the_view_rerender_the_saved_output_once_the_person_pauses(vision: Vision, monkeypatch):
    # Rendering the saved map of a big picture blocks the kernel for a second or two; per click, it
    # held the next clicks back (bench/widget-click). v.marks must follow at once, the render later.
    from jupyterlab_figure_chat import widget_output

    rendered: list[str] = []
    monkeypatch.setattr(widget_output, "update_display", lambda data, **_: rendered.append(data["text/plain"]))
    monkeypatch.setattr(widget_output, "EDIT_REFRESH_DELAY", 0.05)
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
        # The render runs in a worker thread (the first one starts its figure program).
        for _ in range(600):
            if rendered:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)

    asyncio.run(clicks())
    assert len(rendered) == 1
    assert "#3" in rendered[0]


def test_a_big_picture_paints_from_a_quick_preview_first(kernel):
    """Over 1600 px, the first preview is a quick one, 500 px (sharp decodes a 4000-px JPEG at an
    eighth of its size, the least work a JPEG allows), sent right after the output and before any
    render; the PNG follows, then the sharp 1600-px preview."""
    client = kernel
    code = (
        "import numpy as np\n"
        "import os, tempfile\n"
        "from PIL import Image\n"
        "from jupyterlab_figure_chat import Vision\n"
        "path = os.path.join(tempfile.mkdtemp(), 'quick.jpg')\n"
        "Image.fromarray(np.full((3000, 4000, 3), 90, np.uint8)).save(path)\n"
        "Vision(path)"
    )
    seen = _run_cell(client, code)
    kinds = []
    for msg in seen:
        kind = msg["msg_type"]
        if kind in ("display_data", "update_display_data"):
            kinds.append((kind, "image/png" in msg["content"]["data"]))
        elif _is_preview(msg):
            content = msg["content"]["data"]["content"]
            kinds.append(("preview", content["width"], content["height"], len(msg["buffers"][0])))
    assert [kind[:3] for kind in kinds] == [
        ("display_data", False),
        ("preview", 500, 375),
        ("update_display_data", True),
        ("preview", 1600, 1200),
    ]
    # A JPEG of a few kilobytes: quick to send and to decode in the browser.
    assert kinds[1][3] < 20_000


def test_a_photo_stored_on_its_side_previews_upright(kernel):
    """A phone photo stored on its side (EXIF orientation 6) is previewed the way it is shown and
    measured, as its marks are placed: red above, blue below, not turned and stretched."""
    client = kernel
    code = (
        "import numpy as np\n"
        "import os, tempfile\n"
        "from PIL import Image\n"
        "from jupyterlab_figure_chat import Vision\n"
        "path = os.path.join(tempfile.mkdtemp(), 'turned.jpg')\n"
        # Stored 4000×3000, left half red, right half blue; shown turned a quarter clockwise:
        # 3000×4000, red on top.
        "stored = np.zeros((3000, 4000, 3), np.uint8)\n"
        "stored[:, :2000] = (220, 30, 30)\n"
        "stored[:, 2000:] = (30, 30, 220)\n"
        "exif = Image.Exif()\n"
        "exif[0x0112] = 6\n"
        "Image.fromarray(stored).save(path, exif=exif)\n"
        "Vision(path)"
    )
    seen = _run_cell(client, code)
    previews = [msg for msg in seen if _is_preview(msg)]
    sizes = [(m["content"]["data"]["content"]["width"], m["content"]["data"]["content"]["height"]) for m in previews]
    assert sizes == [(375, 500), (1200, 1600)]
    for msg, (width, height) in zip(previews, sizes):
        image = Image.open(io.BytesIO(msg["buffers"][0])).convert("RGB")
        assert image.size == (width, height)
        top = image.getpixel((width * 4 // 5, height // 10))
        bottom = image.getpixel((width // 5, height * 9 // 10))
        assert top[0] > 150 and top[2] < 100, top
        assert bottom[2] > 150 and bottom[0] < 100, bottom


def test_the_kernel_answers_the_chats_writes_and_refuses_with_the_tools_message(kernel):
    """The chat's vision tools write marks with ``{"method": "write"}`` and report success only
    on the kernel's ``{"event": "written", "ok": true}``. The kernel refuses a record the tools'
    checks reject, one planned from marks a person has since changed (``base``), and one that
    arrives after the chat stopped waiting (``deadline``), each with a message for the model,
    and keeps its own marks."""
    import json
    import time

    client = kernel
    code = (
        "import json, numpy as np\n"
        "from jupyterlab_figure_chat import Vision\n"
        "v = Vision(np.full((300, 400, 3), 90, np.uint8))\n"
        "v.mark(['100,100'])\n"
        "print(json.dumps({'id': v.model_id, 'record': v.record}))"
    )
    printed: list[dict] = []
    reply = client.execute_interactive(code, timeout=120, output_hook=printed.append)
    assert reply["content"]["status"] == "ok"
    shown = json.loads("".join(m["content"].get("text", "") for m in printed if m["msg_type"] == "stream"))
    model_id, base = shown["id"], shown["record"]

    def point(mark_id: int, x: int) -> dict:
        return {"id": mark_id, "kind": "point", "x": x, "y": 20, "r": 6, "caption": "chat", "colour": "red"}

    def write(request: int, record: dict, base: dict, deadline: float | None = None) -> dict:
        deadline = time.time() * 1000 + 10000 if deadline is None else deadline
        _custom(
            client,
            model_id,
            {"method": "write", "request": request, "record": record, "base": base, "deadline": deadline},
        )
        return _event(client, model_id, "written")["content"]["data"]["content"]

    def marks() -> list[dict]:
        out: list[dict] = []
        client.execute_interactive("print(json.dumps(v.marks))", timeout=60, output_hook=out.append)
        return json.loads("".join(m["content"].get("text", "") for m in out if m["msg_type"] == "stream"))

    outside = {**base, "lastId": 2, "marks": [*base["marks"], point(2, 9000)]}
    refused = write(1, outside, base)
    assert refused["ok"] is False and refused["request"] == 1
    assert "outside the 400×300 picture" in refused["problem"]
    assert [m["id"] for m in marks()] == [1]

    stale = {**base, "marks": [], "lastId": 0}
    refused = write(2, {**base, "lastId": 2, "marks": [point(2, 50)]}, stale)
    assert refused["ok"] is False
    assert "changed while this call ran" in refused["problem"]

    late = write(3, {**base, "lastId": 2, "marks": [*base["marks"], point(2, 50)]}, base, time.time() * 1000 - 1)
    assert late["ok"] is False
    assert "busy for longer than the chat waits" in late["problem"]
    assert [m["id"] for m in marks()] == [1]

    taken = write(4, {**base, "lastId": 2, "marks": [*base["marks"], point(2, 50)]}, base)
    assert taken == {"event": "written", "request": 4, "ok": True, "problem": ""}
    assert [(m["id"], m["caption"]) for m in marks()] == [(1, ""), (2, "chat")]


def test_an_edit_waiting_for_its_render_is_in_the_output_before_the_next_cell_runs(kernel):
    """A person's edit re-renders the saved output once they pause (a second). A cell run sooner,
    then a save, kept the output of the marks before the edit (the Galata test that saves right
    after two cells lost mark 5): the output is written before the next cell runs."""
    import uuid

    client = kernel
    seen = _run_cell(
        client,
        "import numpy as np\nfrom jupyterlab_figure_chat import Vision\n"
        "v = Vision(np.full((300, 400, 3), 90, np.uint8))\nv",
    )
    shown = next(m for m in seen if m["msg_type"] == "display_data")["content"]
    model_id = shown["data"]["application/vnd.figure-chat.widget+json"]["model_id"]
    display_id = shown["transient"]["display_id"]
    edit = {
        "image": shown["data"]["application/vnd.figure-chat.figure+json"]["record"]["image"],
        "lastId": 1,
        "marks": [{"id": 1, "kind": "point", "x": 50, "y": 60, "r": 8, "caption": "clicked", "colour": "green"}],
    }
    # What the view sends for a click: the synced record, as a widget state update.
    update = {"method": "update", "state": {"_record": edit}, "buffer_paths": []}
    message = client.session.msg("comm_msg", {"comm_id": model_id, "data": update})
    message["header"]["msg_id"] = uuid.uuid4().hex
    client.shell_channel.send(message)
    seen = _run_cell(client, "print([m['caption'] for m in v.marks])")
    printed = "".join(m["content"].get("text", "") for m in seen if m["msg_type"] == "stream")
    assert "clicked" in printed
    updates = [
        m["content"]
        for m in seen
        if m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id
    ]
    assert updates, "the saved output was not written before the cell ran"
    record = updates[-1]["data"]["application/vnd.figure-chat.figure+json"]["record"]
    assert [mark["caption"] for mark in record["marks"]] == ["clicked"]
    assert "image/png" in updates[-1]["data"]
    # Written before the cell's own output.
    kinds = [m["msg_type"] for m in seen if m["msg_type"] in ("update_display_data", "stream")]
    assert kinds.index("update_display_data") < kinds.index("stream")


def test_the_kernel_takes_edits_while_the_saved_output_rerenders(tmp_path, monkeypatch):
    """The saved map of a 4000×3000 picture takes the figure program a tenth of a second or more
    to render; done on the kernel's thread, every click made meanwhile waited for it (bench/
    widget-click: 0.8 s for a click after a pause). It renders in a worker thread now: the
    kernel's event loop never stalls for the length of a render."""
    import time

    from PIL import Image

    from jupyterlab_figure_chat import widget_output

    rng = np.random.default_rng(3)
    path = tmp_path / "big.jpg"
    Image.fromarray(rng.integers(0, 255, (3000, 4000, 3), np.uint8)).save(path, quality=90)
    v = Vision(str(path))
    try:
        start = time.perf_counter()
        v._map_output()
        render = time.perf_counter() - start
        rendered: list[str] = []
        monkeypatch.setattr(widget_output, "update_display", lambda data, **_: rendered.append(data["text/plain"]))
        monkeypatch.setattr(widget_output, "EDIT_REFRESH_DELAY", 0.05)
        v._displayed = True
        edit = {
            "image": v.address,
            "lastId": 1,
            "marks": [{"id": 1, "kind": "point", "x": 10, "y": 20, "r": 12, "caption": "", "colour": "green"}],
        }

        async def run() -> float:
            ticks = [time.perf_counter()]
            v.set_state({"_record": edit})
            while not rendered and ticks[-1] - ticks[0] < 60:
                await asyncio.sleep(0.005)
                ticks.append(time.perf_counter())
            return max(b - a for a, b in zip(ticks, ticks[1:]))

        longest_stall = asyncio.run(run())
        assert rendered and "#1" in rendered[0]
        assert longest_stall < render / 2, (longest_stall, render)
    finally:
        v.close()


def _jpeg(width: int, height: int, colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, format="JPEG")
    return out.getvalue()


def test_a_path_is_read_by_the_figure_program_and_checked_by_its_hash(tmp_path, monkeypatch):
    import hashlib

    from jupyterlab_figure_chat import vision as vision_module

    photo = tmp_path / "photo.jpg"
    first = _jpeg(320, 240, (200, 40, 40))
    photo.write_bytes(first)
    v = Vision(photo)
    try:
        assert v.picture_bytes == first
        assert v.sha256 == hashlib.sha256(first).hexdigest()
        assert (v.width, v.height, v.address) == (320, 240, "photo.jpg")
    finally:
        v.close()

    # The file changes after the figure program read it and before Python does: the picture is
    # the bytes Python holds, sent again, never a mix of the two versions.
    second = _jpeg(200, 100, (40, 40, 200))
    real_read = vision_module.read_picture

    def read_after_a_write(path):
        photo.write_bytes(second)
        return real_read(path)

    monkeypatch.setattr(vision_module, "read_picture", read_after_a_write)
    photo.write_bytes(first)
    v = Vision(photo)
    try:
        assert v.picture_bytes == second
        assert v.sha256 == hashlib.sha256(second).hexdigest()
        assert (v.width, v.height) == (200, 100)
        assert v.marks == []
        v.mark(["190,90"])
        assert v.marks[0]["x"] == 190
    finally:
        v.close()


def test_the_quick_preview_leaves_the_kernel_before_the_map_renders(monkeypatch):
    """``send`` only queues a message for the kernel's IOPub thread; the map's render, right after
    the quick preview, takes every core for a while (bench/widget-paint). The display waits until
    the IOPub thread has sent what was queued (a function it runs after them) before rendering, and
    never longer than a moment if that thread does not answer."""
    v = Vision(np.zeros((1200, 1800, 3), np.uint8))
    try:
        steps: list[str] = []
        queued: list[object] = []

        class IOThread:
            answers = True

            def schedule(self, f):
                queued.append(f)
                steps.append("queued")
                if self.answers:
                    f()
                    steps.append("sent")

        io_thread = IOThread()
        kernel = type("Kernel", (), {"iopub_socket": type("Socket", (), {"io_thread": io_thread})()})()
        monkeypatch.setattr(v.comm, "kernel", kernel, raising=False)
        monkeypatch.setattr(v, "_send_preview", lambda quick=False: steps.append("quick" if quick else "sharp"))
        monkeypatch.setattr(v, "_refresh_display", lambda: steps.append("render"))
        monkeypatch.setattr("jupyterlab_figure_chat.widget_output.display", lambda *args, **kwargs: None)
        v._ipython_display_()
        assert steps == ["quick", "queued", "sent", "render", "sharp"]

        # An IOPub thread that never runs what it is given holds the render back 0.1 s at most.
        steps.clear()
        io_thread.answers = False
        started = time.monotonic()
        v._ipython_display_()
        waited = time.monotonic() - started
        assert steps == ["quick", "queued", "render", "sharp"]
        assert waited < 1.0
    finally:
        v.close()
