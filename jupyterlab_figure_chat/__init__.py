"""Figure Chat: a model chat beside each notebook whose figures are real, safe, and saved in the .ipynb.

From kernel code: :class:`Figure` (a checked static SVG figure as an output) and :class:`Vision`
(numbered marks on a picture, as an interactive widget), with the chat tools' semantics.
"""

try:
    from ._version import __version__
except ImportError:  # running from a source tree that was never built
    __version__ = "dev"

from .errors import (
    FigureChatError,
    FigureProgramError,
    PictureError,
    SvgRejectedError,
    VisionArgumentError,
)
from .figure import Figure
from .vision import VisionResult
from .widget import Vision

__all__ = [
    "Figure",
    "FigureChatError",
    "FigureProgramError",
    "PictureError",
    "SvgRejectedError",
    "Vision",
    "VisionArgumentError",
    "VisionResult",
]


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "jupyterlab-figure-chat"}]
