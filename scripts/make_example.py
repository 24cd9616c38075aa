"""Write examples/figure-chat-tour.ipynb: a notebook whose saved conversation already holds a
notebook_read card, a figure and vision views, so replay shows with no model running.

Run with the project's virtualenv (it needs matplotlib): .venv/bin/python scripts/make_example.py
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from pathlib import Path

import matplotlib

matplotlib.use("agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "examples" / "figure-chat-tour.ipynb"
FIGURE = (HERE.parent / "ui-tests" / "model" / "figure.svg").read_text()


def shortcut_text() -> str:
    """The sidebar's shortcut as a person types it, read from the settings schema (one source):
    JupyterLab's ``Accel`` is Ctrl, or Cmd on a Mac."""
    schema = json.loads((HERE.parent / "schema" / "plugin.json").read_text())
    keys = next(s["keys"][0] for s in schema["jupyter.lab.shortcuts"] if s["command"] == "figure-chat:open")
    parts = keys.split(" ")
    spelled = lambda accel: "+".join(accel if p == "Accel" else p for p in parts)  # noqa: E731
    return f"`{spelled('Ctrl')}`, `{spelled('Cmd')}` on a Mac"


SHORTCUT = shortcut_text()

fig = plt.figure(figsize=(4, 3), dpi=100)
xs = [i / 10 for i in range(0, 63)]
import math  # noqa: E402

plt.plot(xs, [math.sin(x) for x in xs])
plt.title("sin(x)")
buffer = io.BytesIO()
fig.savefig(buffer, format="png")
png = buffer.getvalue()
width, height = (int(v) for v in fig.get_size_inches() * fig.dpi)
plot_b64 = base64.b64encode(png).decode()
sha = hashlib.sha256(png).hexdigest()
cell_id = "plot-cell"
address = f"cell:{cell_id}/0"
picture = {"address": address, "sha256": sha, "width": width, "height": height}

messages = [
    {"id": "u1", "role": "user", "content": "What does this notebook do? Sketch its pipeline.",
     "created": "2026-11-30T14:00:00Z"},
    {"id": "a1", "role": "assistant", "content": "Let me read the notebook first.", "status": "completed",
     "tool_calls": [{"id": "c1", "name": "notebook_read", "arguments": {}}]},
    {"id": "t1", "role": "tool", "tool_call_id": "c1", "status": "completed",
     "content": f"The notebook has 2 cells.\nCell 1 (id {cell_id}, code): plots sin(x)\nOutputs:\n  [0] image image/png — picture address {address}"},
    {"id": "a2", "role": "assistant", "content": "It loads data, fits a curve and plots it:", "status": "completed",
     "tool_calls": [{"id": "c2", "name": "present_svg", "arguments": {"svg": FIGURE, "alt": "Three stages: load, fit, plot"}}]},
    {"id": "t2", "role": "tool", "tool_call_id": "c2", "status": "completed",
     "content": "SVG presented inline: Three stages: load, fit, plot"},
    {"id": "a3", "role": "assistant", "content": "", "status": "completed"},
    {"id": "u2", "role": "user", "content": "Mark the peak and the trough of the plot.",
     "created": "2026-11-30T14:01:00Z", "attachments": [address]},
    {"id": "a4", "role": "assistant", "content": "Marking them.", "status": "completed",
     "tool_calls": [{"id": "c3", "name": "vision_mark", "arguments": {
         "image": address,
         "marks": [{"at": "130,45", "caption": "peak", "colour": "red", "r": 12},
                   {"at": "250,200,330,260", "caption": "trough", "colour": "blue"}]}}]},
    {"id": "t3", "role": "tool", "tool_call_id": "c3", "status": "completed",
     "content": "Added #1 and #2.", "picture": picture},
    {"id": "a5", "role": "assistant", "content": "A close-up of the peak:", "status": "completed",
     "tool_calls": [{"id": "c4", "name": "vision_show", "arguments": {"at": ["#1"]}}]},
    {"id": "t4", "role": "tool", "tool_call_id": "c4", "status": "completed",
     "content": "Close-up of #1.", "picture": picture},
    {"id": "a6", "role": "assistant", "content": "The peak (#1) is near x = 1.6, the trough (#2) near x = 4.7.",
     "status": "completed"},
]
# The conversation ends with an answer; drop the empty placeholder reply.
messages = [m for m in messages if not (m["role"] == "assistant" and not m["content"] and not m.get("tool_calls"))]

notebook = {
    "cells": [
        {"cell_type": "markdown", "id": "intro", "metadata": {},
         "source": ["# Figure Chat tour\n", "\n",
                    f"Open the **Figure Chat** sidebar (right side, or {SHORTCUT}): this notebook's saved ",
                    "conversation replays with its figure and its vision views, with no model running."]},
        {"cell_type": "code", "execution_count": 1, "id": cell_id, "metadata": {},
         "outputs": [{"output_type": "display_data", "metadata": {},
                      "data": {"image/png": plot_b64, "text/plain": ["<Figure size 400x300 with 1 Axes>"]}}],
         "source": ["import math\n", "import matplotlib.pyplot as plt\n", "\n",
                    "xs = [i / 10 for i in range(63)]\n", "plt.figure(figsize=(4, 3))\n",
                    "plt.plot(xs, [math.sin(x) for x in xs])\n", "plt.title('sin(x)')\n", "plt.show()"]},
    ],
    "metadata": {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "figure_chat": {"version": 1, "messages": messages},
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}
OUT.parent.mkdir(exist_ok=True)
OUT.write_text(json.dumps(notebook, indent=1) + "\n")
print(f"wrote {OUT} ({width}x{height} plot, sha256 {sha[:12]}…)")
