"""Sphinx configuration of the Figure Chat documentation.

Build: ``pip install -e '.[docs]'`` then ``sphinx-build -W -b html docs docs/_build/html`` (CI runs
this in scripts/test.sh, so every warning fails the build). Pages are Markdown (MyST); the tools
reference is rendered at build time from jupyterlab_figure_chat/tool_specs.json (_ext/tool_specs.py),
and the Python API from the package's docstrings.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
# The API reference imports the package from this checkout, installed (editable) or not.
sys.path.insert(0, str(ROOT))

project = "Figure Chat"
author = "Figure Chat contributors"
# One version for the docs, the labextension and the Python package: package.json's.
release = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["version"]
version = release
copyright = "Figure Chat contributors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "tool_specs",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
# Headings get anchors, so pages can link to a section: [text](page.md#section).
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]
# Quotes stay as written: the tools reference quotes JSON values and what the model is told
# ("x,y"), which curly quotes would misquote.
smartquotes = False

# The API reference: members in source order, type hints in the description (they can name
# ipywidgets and NumPy types the docs do not document themselves).
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"show-inheritance": False}
# Python's and ipywidgets' own types are not documented here; a hint naming them is not an error.
nitpicky = False

html_theme = "pydata_sphinx_theme"
html_title = f"Figure Chat {release}"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_sidebars = {"**": ["sidebar-nav-bs"]}
