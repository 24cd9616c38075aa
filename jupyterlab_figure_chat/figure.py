"""``Figure(svg, alt)``: a static SVG figure as a notebook output, checked like ``present_svg``."""

from __future__ import annotations

from typing import Any

from .outputs import BUNDLE_VERSION, FIGURE_MIME, png_entry
from .program import figure_program


class Figure:
    """A validated static figure.

    The SVG passes the same checks as the chat's ``present_svg`` (the XML allowlist, then a resvg
    parse with size and complexity limits), run by the bundled figure program; a refused figure
    raises :class:`~jupyterlab_figure_chat.SvgRejectedError` with the tool's message. Displayed, it
    is an output carrying the Figure Chat bundle, the SVG, a PNG rendered by resvg, and the alt
    text, so it shows without the extension too.
    """

    def __init__(self, svg: str, alt: str):
        answer, png = figure_program().request({"op": "figure", "svg": svg, "alt": alt})
        self.svg = svg
        self.alt = alt
        self.width: int = answer["width"]
        self.height: int = answer["height"]
        self.png = png

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict[str, Any], dict[str, Any]]:
        data = {
            FIGURE_MIME: {"version": BUNDLE_VERSION, "kind": "figure", "alt": self.alt},
            "image/svg+xml": self.svg,
            "image/png": png_entry(self.png),
            "text/plain": self.alt,
        }
        # The PNG is rendered at up to 2× for sharpness; shown at the figure's own size.
        metadata = {"image/png": {"width": self.width, "height": self.height}}
        return data, metadata

    def __repr__(self) -> str:
        return f"Figure({self.width}×{self.height}, alt={self.alt!r})"
