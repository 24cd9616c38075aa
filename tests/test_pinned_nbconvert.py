"""A figure and a vision view pinned into a notebook show in nbconvert's HTML, where the
labextension plays no part (nbconvert is pure Python): the pinned Markdown cell's image
attachment is a PNG that any reader can show.

The cells are built by the same code the "Insert into notebook" command uses (``pinnedCell`` in
``dist/tools.cjs``), so this test fails if that code stops producing a cell nbconvert renders.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from jupyterlab_figure_chat.runtime import node_executable

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "dist" / "tools.cjs"
PICTURE = ROOT / "ui-tests" / "fixtures" / "picture.png"
FIGURE = ROOT / "ui-tests" / "model" / "figure.svg"

BUILD_NOTEBOOK = r"""
const tools = require(process.argv[1]);
const fs = require('node:fs');
const png = fs.readFileSync(process.argv[2]).toString('base64');
const svg = fs.readFileSync(process.argv[3], 'utf8');
const sha256 = 'a'.repeat(64);
const figure = tools.pinnedCell({
  bundle: tools.figureBundle('Three stages', { message: 'm1', call: 'call_svg' }),
  png, text: 'Three stages', svg
});
const record = { image: 'picture.png', marks: [], lastId: 0 };
const view = tools.pinnedCell({
  bundle: tools.visionBundle({ address: 'picture.png', sha256, width: 10, height: 10 }, record,
    { kind: 'map' }, { message: 'm2', call: 'call_f1' }),
  png, text: 'Map of picture.png'
}, 'view0');
process.stdout.write(JSON.stringify({
  cells: [{ cell_type: 'code', id: 'c0', source: 'print(1)', metadata: {}, outputs: [],
            execution_count: null },
          { ...figure, id: 'c1' }, { ...view, id: 'c2' }],
  metadata: {}, nbformat: 4, nbformat_minor: 5
}));
"""


@pytest.fixture
def pinned_notebook(tmp_path: Path) -> Path:
    if not TOOLS.exists():
        pytest.fail(f"{TOOLS} is missing: run `npm run build` first")
    notebook = subprocess.run(
        [node_executable(), "-e", BUILD_NOTEBOOK, str(TOOLS), str(PICTURE), str(FIGURE)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = tmp_path / "pinned.ipynb"
    path.write_text(notebook, encoding="utf-8")
    return path


def test_nbconvert_html_shows_pinned_figure_and_view(pinned_notebook: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nbconvert", "--to", "html", "--stdout", str(pinned_notebook)],
        check=True,
        capture_output=True,
        text=True,
    )
    html = result.stdout
    png = base64.b64encode(PICTURE.read_bytes()).decode("ascii")
    # Both pinned cells show their PNG as an embedded image, with the alt text.
    assert html.count(f'src="data:image/png;base64,{png}"') == 2
    assert 'alt="Three stages"' in html
    assert 'alt="Map of picture.png"' in html
    # The bundle and the SVG source travel in the notebook, not as broken images in the page.
    notebook = json.loads(pinned_notebook.read_text(encoding="utf-8"))
    bundle = notebook["cells"][1]["attachments"]["figure-chat-call_svg.figure-chat.json"]
    assert bundle["application/vnd.figure-chat.figure+json"]["kind"] == "figure"
    assert bundle["image/svg+xml"] == FIGURE.read_text(encoding="utf-8")
    assert "data:application/vnd.figure-chat" not in html
