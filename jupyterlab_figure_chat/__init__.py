"""Figure Chat: a model chat beside each notebook whose figures are real, safe, and saved in the .ipynb.

From kernel code: :class:`Figure` (a checked static SVG figure as an output) and :class:`Vision`
(numbered marks on a picture, as an interactive widget), with the chat tools' semantics, and
:class:`VisionSet` (one widget stepping through a set of pictures, with COCO/YOLO/VOC export).
"""

try:
    from ._version import __version__
except ImportError:  # a wheel built from the sdist does not carry the generated _version.py
    try:
        from importlib.metadata import version as _installed_version

        __version__ = _installed_version("jupyterlab-figure-chat")
    except Exception:  # noqa: BLE001 - a source tree that was never built or installed
        __version__ = "dev"

from typing import TYPE_CHECKING, Any

from .errors import (
    AnnotationFormatError,
    FigureChatError,
    FigureProgramError,
    PictureError,
    SvgRejectedError,
    VisionArgumentError,
)

if TYPE_CHECKING:
    from .figure import Figure
    from .vision import VisionResult
    from .vision_set import SetPicture, VisionSet
    from .widget import Vision

#: The public classes and the modules they live in, imported on first use: a fresh kernel's first
#: ``from jupyterlab_figure_chat import Vision`` then loads neither the picture sets and their
#: formats nor the figure, and the server extension loads none of them.
_LAZY = {
    "Figure": "figure",
    "VisionResult": "vision",
    "SetPicture": "vision_set",
    "VisionSet": "vision_set",
    "Vision": "widget",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "AnnotationFormatError",
    "Figure",
    "FigureChatError",
    "FigureProgramError",
    "PictureError",
    "SetPicture",
    "SvgRejectedError",
    "Vision",
    "VisionArgumentError",
    "VisionResult",
    "VisionSet",
]


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "jupyterlab-figure-chat"}]


def _jupyter_server_extension_points():
    # The server extension only checks the installation at start-up (extension.py); the figure
    # server itself is started by jupyter-server-proxy (proxy.py).
    return [{"module": "jupyterlab_figure_chat.extension"}]
