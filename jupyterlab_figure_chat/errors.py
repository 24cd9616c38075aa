"""The exceptions of the Python API. Each message is the one the model gets from the same tool."""

from __future__ import annotations


class FigureChatError(Exception):
    """Base class: a Figure Chat call from kernel code that could not be done.

    ``code`` is the tool's machine-readable reason (``"script"``, ``"out-of-bounds"``, …); the
    message is the text the model would read after ``Tool error:``.
    """

    def __init__(self, message: str, code: str = "error"):
        super().__init__(message)
        self.code = code


class SvgRejectedError(FigureChatError, ValueError):
    """A figure refused by the SVG policy or the resvg checks (``code`` is the rejection kind)."""


class VisionArgumentError(FigureChatError, ValueError):
    """A ``mark``/``update``/``show`` call or a mark list the vision tools refuse."""


class PictureError(FigureChatError, ValueError):
    """A picture that cannot be read, is too large, or is not a kind Figure Chat marks."""


class AnnotationFormatError(FigureChatError, ValueError):
    """A COCO, YOLO or VOC file (or dict) that cannot be read as marks; the message names the
    file and the entry (``coco.json: annotation 12: unknown category id 987``)."""


class FigureProgramError(FigureChatError, RuntimeError):
    """The bundled Node figure program is missing, crashed, or answered something unexpected."""


_BY_TYPE = {
    "svg": SvgRejectedError,
    "vision": VisionArgumentError,
    "picture": PictureError,
    "request": FigureProgramError,
    "internal": FigureProgramError,
}


def error_from_answer(error: object) -> FigureChatError:
    """The exception for a ``{"type", "code", "message"}`` error answer of the figure program."""
    if not isinstance(error, dict):
        return FigureProgramError(f"the figure program answered an unreadable error: {error!r}")
    cls = _BY_TYPE.get(str(error.get("type")), FigureProgramError)
    return cls(str(error.get("message", "unknown error")), str(error.get("code", "error")))
