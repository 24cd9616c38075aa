"""Notebook size: 10 ``Vision`` outputs of 4000×3000 pictures against the same notebook with plain
``display(Image(...))`` outputs of their maps (issue 10's budget: at most 1.1×). A benchmark: it
prints the sizes and the ratio, and fails only if a notebook does not run.

Run: .venv/bin/python bench/widget-size.py

Both notebooks are executed headless by nbclient on a real kernel, as papermill or
``jupyter nbconvert --execute`` would (widget state stored, nbclient's default), and written with
nbformat. The plain notebook shows the very PNG each Vision output holds, so the ratio is what the
Vision bundle adds (record, mark list, live-widget entry, widget state), not a PNG encoder's.
"""

from __future__ import annotations

import json
import sys
import tempfile
import textwrap
from pathlib import Path

import nbformat
from nbclient import NotebookClient

PICTURES = 10
TARGET = 1.1

MAKE_PICTURES = textwrap.dedent(
    f"""
    import numpy as np
    from PIL import Image

    def make_picture(path, seed, width=4000, height=3000):
        rng = np.random.default_rng(seed)
        y, x = np.mgrid[0:height, 0:width].astype(np.float32)
        base = 128 + 60 * np.sin(x / (180 + 7 * seed)) * np.cos(y / (140 + 5 * seed))
        rgb = np.stack([base + 30 * np.sin(y / 90), base, base + 30 * np.cos(x / 70)], axis=-1)
        rgb += rng.normal(0, 6, rgb.shape).astype(np.float32)
        Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).save(path, quality=90)

    for k in range({PICTURES}):
        make_picture(f"picture-{{k}}.jpg", k)
    """
).strip()

# Each Vision gets three marks, as a labelled picture would have.
VISION_CELL = textwrap.dedent(
    """
    v{k} = Vision("picture-{k}.jpg")
    v{k}.mark(["400,300", "2000,1500,2600,2100", "3500,2500"], captions=["a", "b", "c"])
    v{k}
    """
).strip()

# The same maps as plain PNG outputs: rendered by the same code without a widget (VisionCore),
# shown with IPython's Image.
PLAIN_CELL = textwrap.dedent(
    """
    w = Maps()
    w._setup("picture-{k}.jpg", None)
    w.mark(["400,300", "2000,1500,2600,2100", "3500,2500"], captions=["a", "b", "c"])
    data, _ = w._map_output()
    display(Image(data=base64.b64decode(data["image/png"]), format="png"))
    """
).strip()


def run(folder: Path, name: str, cells: list[str]) -> tuple[int, int]:
    """Execute and write a notebook; its size in bytes, and that of its stored widget state."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    for cell in notebook.cells:
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        if errors:
            sys.exit(f"widget-size: {name} failed: {errors[0].ename}: {errors[0].evalue}")
    path = folder / f"{name}.ipynb"
    nbformat.write(notebook, path)
    state = json.dumps(notebook.metadata.get("widgets", {}), indent=1)
    return path.stat().st_size, len(state)


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        setup = MAKE_PICTURES + "\nimport base64\nfrom IPython.display import Image, display\nfrom jupyterlab_figure_chat import Vision\nfrom jupyterlab_figure_chat.vision import VisionCore\nclass Maps(VisionCore): pass"
        vision, vision_state = run(folder, "vision", [setup] + [VISION_CELL.format(k=k) for k in range(PICTURES)])
        plain, _ = run(folder, "plain", [setup] + [PLAIN_CELL.format(k=k) for k in range(PICTURES)])
    ratio = vision / plain
    print(
        f"notebook size, {PICTURES} outputs of 4000×3000 pictures with 3 marks each:\n"
        f"  Vision outputs: {vision / 1e6:.2f} MB, of which the widget state nbclient stored "
        f"(metadata.widgets) {vision_state / 1e6:.2f} MB\n"
        f"  display(Image(...)) of the same maps: {plain / 1e6:.2f} MB\n"
        f"  ratio: {ratio:.3f}× — target ≤ {TARGET}×: {'met' if ratio <= TARGET else 'MISSED'}\n"
        f"  without the widget state (JupyterLab's default: it saves none): {(vision - vision_state) / plain:.3f}×"
    )


if __name__ == "__main__":
    main()
