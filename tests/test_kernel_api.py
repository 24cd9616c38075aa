"""The Python API headless: a real ipykernel run by nbclient, no browser, no Jupyter server.

One notebook holds every case, so the kernel and the figure program start once; each test reads
the outputs of its own cells (tagged by their first line).
"""

from __future__ import annotations

import base64
import io
import json
import textwrap
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from PIL import Image

FIGURE_MIME = "application/vnd.figure-chat.figure+json"
LIVE_MIME = "application/vnd.figure-chat.widget+json"

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect x="10" y="10" width="120" height="60" fill="teal"/></svg>'
SCRIPT_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><script>alert(1)</script><rect width="9" height="9"/></svg>'

CELLS = {
    "figure": f"""
        from jupyterlab_figure_chat import Figure, Vision, FigureChatError
        Figure({SVG!r}, alt="A teal box")
    """,
    "figure-script": f"""
        Figure({SCRIPT_SVG!r}, alt="bad")
    """,
    "numpy": """
        import numpy as np
        gray = Vision(np.linspace(0, 1, 120 * 160).reshape(120, 160))
        rgba = Vision(np.full((90, 100, 4), 200, np.uint8))
        rgb = Vision(np.zeros((300, 400, 3), np.uint8))
        rgb.mark(["120,80", "300,40,380,160"], captions=["cell", "colony"])
        rgb.update([{"mark": 2, "colour": "red"}])
        print(gray.width, gray.height, rgba.width, rgba.height)
        rgb
    """,
    "marks": """
        print(rgb.marks)
    """,
    "show": """
        rgb.show("#2")
    """,
    "update-view": """
        rgb.update([{"mark": 1, "at": "100,60"}])
    """,
    "out-of-bounds": """
        rgb.mark(["500,80"])
    """,
    "set-marks": """
        rgb.marks = [{"x": np.int64(10), "y": 20.0}, {"x0": 1, "y0": 1, "x1": 50, "y1": 50, "caption": "det"}]
        print([ (m["id"], m["kind"], m["colour"]) for m in rgb.marks ])
        rgb.list()
    """,
    "pil": """
        from PIL import Image
        photo = Image.new("RGB", (64, 48), (10, 200, 30))
        p = Vision(photo)
        p.mark(["32,24"])
    """,
    "matplotlib": """
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(4, 3), dpi=50)
        ax.plot([0, 1, 2], [0, 1, 0])
        m = Vision(fig)
        plt.close(fig)
        print(m.width, m.height)
        m
    """,
    "path": """
        Image.new("RGB", (80, 60), (255, 0, 0)).save("red.png")
        f = Vision("red.png")
        print(f.address, f.format)
        f.mark(["10,10,70,50"], captions=["all red"])
    """,
    "big": """
        big = Vision(np.random.default_rng(0).integers(0, 255, (4000, 5000, 3), dtype=np.uint8))
        big.mark(["2500,2000", "100,100,900,700"])
        print(big.width, big.height)
        big
    """,
    # Last on purpose: the PNG follows the first display by update_display; it must still be in
    # the output when the run ends with this cell.
    "last": """
        last = Vision(np.full((60, 80, 3), 30, np.uint8))
        last.mark(["40,30"])
        last
    """,
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> nbformat.NotebookNode:
    folder = tmp_path_factory.mktemp("kernel-api")
    notebook = nbformat.v4.new_notebook()
    for tag, source in CELLS.items():
        notebook.cells.append(nbformat.v4.new_code_cell(f"# {tag}\n" + textwrap.dedent(source).strip()))
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    nbformat.write(notebook, folder / "executed.ipynb")
    return notebook


@pytest.fixture(scope="module")
def executed(run: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    return {cell.source.splitlines()[0][2:]: cell for cell in run.cells}


def display(cell: nbformat.NotebookNode) -> dict:
    outputs = [o for o in cell.outputs if o.output_type in ("display_data", "execute_result")]
    assert outputs, f"no display output in {cell.source!r}: {cell.outputs}"
    return outputs[-1]


def png_of(output: dict) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(output["data"]["image/png"])))


def error(cell: nbformat.NotebookNode) -> dict:
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert errors, f"no error in {cell.source!r}"
    return errors[0]


def test_figure_output_has_bundle_svg_png_and_alt(executed):
    output = display(executed["figure"])
    data = output["data"]
    assert data[FIGURE_MIME] == {"version": 1, "kind": "figure", "alt": "A teal box"}
    assert data["image/svg+xml"] == SVG
    assert data["text/plain"] == "A teal box"
    image = png_of(output)
    assert image.size == (400, 200)  # rendered at 2× by resvg
    assert image.convert("RGBA").getpixel((100, 60))[:3] == (0, 128, 128)
    assert output["metadata"]["image/png"] == {"width": 200, "height": 100}


def test_refused_figure_raises_the_tool_message(executed):
    raised = error(executed["figure-script"])
    assert raised["ename"] == "SvgRejectedError"
    assert raised["evalue"] == "SVG contains <script>; remove scripts — figures must be static"


def test_numpy_inputs_and_vision_output(executed):
    cell = executed["numpy"]
    assert "160 120 100 90" in cell.outputs[0]["text"]
    output = display(cell)
    bundle = output["data"][FIGURE_MIME]
    assert bundle["kind"] == "vision" and bundle["view"] == {"kind": "map"}
    assert bundle["picture"]["width"] == 400 and len(bundle["picture"]["sha256"]) == 64
    # A later cell replaced the marks: the displayed output follows (update_display), so what is
    # saved is the current record, not the one at display time.
    assert [m["id"] for m in bundle["record"]["marks"]] == [3, 4]
    assert bundle["record"]["lastId"] == 4
    assert output["data"]["text/plain"].endswith('#4 box 1,1,50,50 green "det"')
    # The picture's 400×300 pixels framed by the ruler margin (left 35, right 12, top 24, bottom 7).
    assert png_of(output).size == (400 + 47, 300 + 31)
    # The live widget is named by this extension's own type, never by a widget-view entry that
    # other front ends would show as "Error displaying widget".
    assert output["data"][LIVE_MIME]["model_id"]
    assert "application/vnd.jupyter.widget-view+json" not in output["data"]


def test_marks_read_back(executed):
    text = executed["marks"].outputs[0]["text"]
    assert "'kind': 'point', 'x': 120, 'y': 80" in text
    assert "'caption': 'colony'" in text


def test_show_is_a_closeup_output(executed):
    output = display(executed["show"])
    assert output["data"][FIGURE_MIME]["view"] == {"kind": "show", "at": ["#2"]}
    assert "image/png" in output["data"]


def test_update_shows_the_map_drawn_by_the_tools_renderer(executed):
    output = display(executed["update-view"])
    assert output["data"][FIGURE_MIME]["view"] == {"kind": "map"}
    assert '#2 box 300,40,380,160 red "colony"' in output["data"]["text/plain"]
    image = png_of(output).convert("RGB")
    assert image.size == (400 + 47, 300 + 31)
    # The picture is black; the red box's outline is drawn by the same renderer as the chat's.
    colours = image.getcolors(maxcolors=1 << 16)
    assert any(r > 200 and g < 80 and b < 80 for _, (r, g, b) in colours)


def test_bad_mark_raises_the_tool_message(executed):
    raised = error(executed["out-of-bounds"])
    assert raised["ename"] == "VisionArgumentError"
    assert raised["evalue"] == (
        "marks[0]: point 500,80 is outside the 400×300 picture; x runs 0–399, y 0–299."
    )


def test_assigning_marks_numbers_and_defaults_them(executed):
    cell = executed["set-marks"]
    assert "[(3, 'point', 'green'), (4, 'box', 'green')]" in cell.outputs[0]["text"]
    assert display(cell)["data"]["text/plain"].endswith('#4 box 1,1,50,50 green "det"')


def test_pil_input(executed):
    output = display(executed["pil"])
    assert output["data"][FIGURE_MIME]["picture"]["width"] == 64
    # The picture's 64×48 pixels framed by the ruler margin (left 28, right 9, top 24, bottom 7).
    assert png_of(output).size == (64 + 37, 48 + 31)


def test_matplotlib_input(executed):
    cell = executed["matplotlib"]
    assert cell.outputs[0]["text"].strip() == "200 150"
    assert display(cell)["data"][FIGURE_MIME]["picture"]["height"] == 150


def test_path_input_keeps_its_name(executed):
    cell = executed["path"]
    assert cell.outputs[0]["text"].strip() == "red.png png"
    bundle = display(cell)["data"][FIGURE_MIME]
    assert bundle["picture"]["address"] == "red.png"
    assert bundle["record"]["marks"][0]["caption"] == "all red"


def test_twenty_megapixel_array(executed):
    cell = executed["big"]
    assert cell.outputs[0]["text"].strip() == "5000 4000"
    output = display(cell)
    assert max(png_of(output).size) == 1024
    assert len(output["data"][FIGURE_MIME]["record"]["marks"]) == 2
    # Views, not the 20-megapixel picture, go into the notebook.
    assert len(json.dumps(output)) < 4 * 1024 * 1024


def test_the_last_cell_ends_with_its_png(executed):
    cell = executed["last"]
    outputs = [o for o in cell.outputs if o.output_type in ("display_data", "execute_result")]
    # One output, shown first without the PNG and then completed in place.
    assert len(outputs) == 1
    width, height = png_of(outputs[0]).size  # the 80×60 picture framed by the ruler margin
    assert width > 80 and height > 60
    assert "#1 point 40,30" in outputs[0]["data"]["text/plain"]


def test_widget_state_stored_by_nbclient_holds_no_preview(run):
    # nbclient stores every widget's synced state in metadata.widgets; the preview JPEGs made the
    # notebook 1.13× the plain one. They travel as custom messages now, which nobody stores.
    state = json.dumps(run.metadata.get("widgets", {}))
    vision_states = [
        model["state"]
        for model in run.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"].values()
        if model["model_name"] == "FigureChatVisionModel"
    ]
    assert len(vision_states) == 8
    for model in vision_states:
        assert "_preview" not in model
    assert "buffers" not in state
    assert len(state) < 64 * 1024


def test_nbconvert_html_shows_the_pngs_without_the_extension(executed):
    from nbconvert import HTMLExporter

    notebook = nbformat.v4.new_notebook(cells=list(executed.values()))
    html, _ = HTMLExporter().from_notebook_node(notebook)
    vision_png = display(executed["numpy"])["data"]["image/png"]
    figure_png = display(executed["figure"])["data"]["image/png"]
    # nbconvert prefers the SVG for figures (inline, as any SVG output) and the PNG for views.
    assert vision_png[:200] in html
    assert "A teal box" in html or figure_png[:200] in html
    assert "Error displaying widget" not in html
    assert "application/vnd.jupyter.widget-view+json" not in html
