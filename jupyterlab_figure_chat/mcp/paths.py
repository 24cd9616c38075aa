"""The ``notebook`` argument of an agent's call: a notebook path under the Jupyter root.

Refused as the contents manager and the figure server refuse pictures: an absolute path, ``..``,
a hidden file or folder when Jupyter hides them, and a path whose real location (through a
symlink) is outside the root. Refusals are :class:`AgentCallError`s the agent reads.
"""

from __future__ import annotations

import os
import posixpath
from typing import Any


class AgentCallError(Exception):
    """A call refused before anything was written; the message is what the agent is told."""


#: Longest notebook path taken (bytes of UTF-8), as the figure server bounds picture addresses.
MAX_PATH_LENGTH = 4096


def notebook_path(value: Any, contents_manager: Any) -> str:
    """The API path of the notebook ``value`` names, or AgentCallError saying why it is refused."""
    if not isinstance(value, str) or not value.strip():
        raise AgentCallError(
            'notebook: give the notebook\'s path relative to the Jupyter root, e.g. "analysis/run.ipynb".'
        )
    if len(value.encode("utf-8")) > MAX_PATH_LENGTH or "\0" in value:
        raise AgentCallError("notebook: the path is too long or contains NUL.")
    text = value.replace("\\", "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        raise AgentCallError(
            f'notebook "{value}" is an absolute path; give a path relative to the Jupyter root.'
        )
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise AgentCallError(f'notebook "{value}" leaves the Jupyter root through ".."; give a path under it.')
    path = posixpath.join(*parts) if parts else ""
    if not path.endswith(".ipynb"):
        raise AgentCallError(f'notebook "{value}" is not a notebook (.ipynb) path.')
    if not getattr(contents_manager, "allow_hidden", False) and any(part.startswith(".") for part in parts):
        raise AgentCallError(f'notebook "{value}" is hidden, and this Jupyter server hides hidden files.')
    root = getattr(contents_manager, "root_dir", None)
    if isinstance(root, str) and root:
        # The contents manager checks the path it joins, not where a symlink leads.
        real_root = os.path.realpath(root)
        real = os.path.realpath(os.path.join(real_root, *parts))
        if real != real_root and not real.startswith(real_root + os.sep):
            raise AgentCallError(f'notebook "{value}" resolves outside the Jupyter root; give a notebook under it.')
    return path
