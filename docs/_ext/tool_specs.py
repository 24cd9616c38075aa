"""The ``tool-specs`` directive: the tools reference, rendered from the tools' JSON Schemas.

The one source of each tool's name, description and parameters is its zod schema in ``src/tools``;
``node scripts/export-schema.mjs`` exports them to ``jupyterlab_figure_chat/tool_specs.json`` (and
lint's ``--check`` keeps that file current). This directive reads that file at build time and
writes one section per tool: its description as the model reads it, and a table of its parameters
with nested objects flattened (``marks[].at``). Nothing here is written by hand, so the reference
cannot drift from what the model is told.

Usage in a MyST page::

    ```{tool-specs}
    ```

An option ``:path:`` names another spec file (relative to the docs folder).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

DEFAULT_SPECS = "../jupyterlab_figure_chat/tool_specs.json"
# zod writes an unbounded ``.int()`` as JavaScript's safe-integer range: no bound worth printing.
SAFE_INTEGER = 9007199254740991


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def describe_type(schema: dict[str, Any]) -> str:
    """A JSON Schema's type and bounds in a few words (``integer > 0``, ``array (1–100) of …``)."""
    if "const" in schema:
        return f"always {_literal(schema['const'])}"
    if "enum" in schema:
        return "one of " + ", ".join(_literal(v) for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        items = schema.get("items", {})
        inner = "objects (below)" if items.get("type") == "object" else describe_type(items)
        low, high = schema.get("minItems"), schema.get("maxItems")
        if low is not None and high is not None:
            count = f" of {low}–{high}"
        elif high is not None:
            count = f" of at most {high}"
        elif low is not None:
            count = f" of at least {low}"
        else:
            count = ""
        return f"array{count}: {inner}"
    bounds: list[str] = []
    if kind in ("integer", "number"):
        if "exclusiveMinimum" in schema:
            bounds.append(f"> {schema['exclusiveMinimum']}")
        if "minimum" in schema and schema["minimum"] != -SAFE_INTEGER:
            bounds.append(f"≥ {schema['minimum']}")
        if "maximum" in schema and schema["maximum"] != SAFE_INTEGER:
            bounds.append(f"≤ {schema['maximum']}")
    if kind == "string":
        if schema.get("minLength") == 1:
            bounds.append("non-empty")
        elif "minLength" in schema:
            bounds.append(f"at least {schema['minLength']} characters")
        if "maxLength" in schema:
            bounds.append(f"at most {schema['maxLength']} characters")
    return f"{kind} ({', '.join(bounds)})" if bounds else str(kind)


def parameter_rows(schema: dict[str, Any], prefix: str = "") -> list[tuple[str, str, bool, str]]:
    """``(name, type, required, description)`` per parameter, nested objects flattened."""
    rows: list[tuple[str, str, bool, str]] = []
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        path = f"{prefix}{name}"
        rows.append((path, describe_type(prop), name in required, prop.get("description", "")))
        if prop.get("type") == "array" and prop.get("items", {}).get("type") == "object":
            rows.extend(parameter_rows(prop["items"], f"{path}[]."))
        elif prop.get("type") == "object":
            rows.extend(parameter_rows(prop, f"{path}."))
    return rows


def _paragraph(text: str) -> nodes.paragraph:
    return nodes.paragraph(text, text)


def _cell(content: nodes.Node) -> nodes.entry:
    entry = nodes.entry()
    entry += content
    return entry


def parameter_table(rows: list[tuple[str, str, bool, str]]) -> nodes.table:
    """A four-column table: parameter, type, required, description."""
    table = nodes.table(classes=["figure-chat-tool-parameters"])
    group = nodes.tgroup(cols=4)
    table += group
    for width in (18, 27, 9, 46):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    header = nodes.row()
    for title in ("parameter", "type", "required", "description"):
        header += _cell(_paragraph(title))
    head += header
    group += head
    body = nodes.tbody()
    for name, kind, required, description in rows:
        row = nodes.row()
        row += _cell(nodes.paragraph("", "", nodes.literal(name, name)))
        row += _cell(_paragraph(kind))
        row += _cell(_paragraph("yes" if required else "no"))
        row += _cell(_paragraph(description))
        body += row
    group += body
    return table


class ToolSpecsDirective(SphinxDirective):
    """One section per tool of the spec file: name, description, parameter table."""

    has_content = False
    option_spec = {"path": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        relative = self.options.get("path", DEFAULT_SPECS)
        path = (Path(self.env.srcdir) / relative).resolve()
        self.env.note_dependency(str(path))
        try:
            specs = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise self.error(f"tool-specs: cannot read {path}: {error}") from error
        tools = specs.get("tools") if isinstance(specs, dict) else None
        if not isinstance(tools, list) or not tools:
            raise self.error(f"tool-specs: {path} has no tools list")
        sections: list[nodes.Node] = []
        for tool in tools:
            name = tool.get("name")
            if not isinstance(name, str) or not name:
                raise self.error(f"tool-specs: a tool in {path} has no name")
            if not tool.get("description"):
                raise self.error(f"tool-specs: tool {name} has no description")
            section = nodes.section(ids=[nodes.make_id(f"tool-{name}")], names=[name])
            section += nodes.title(name, "", nodes.literal(name, name))
            section += _paragraph(tool["description"])
            rows = parameter_rows(tool.get("parameters", {}))
            if rows:
                section += parameter_table(rows)
            else:
                section += _paragraph("No parameters.")
            if tool.get("parameters", {}).get("additionalProperties") is False:
                section += _paragraph("Any other parameter is refused, by name.")
            self.state.document.note_implicit_target(section, section)
            sections.append(section)
        return sections


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("tool-specs", ToolSpecsDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
