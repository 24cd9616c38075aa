"""The five tools as jupyter-server-mcp registers them (FastMCP tool functions).

Each is built from ``tool_specs.json`` (exported from the chat tools' zod schemas by
``scripts/export-schema.mjs``): the same name and description, and an input schema that is the
chat tool's, property by property, plus ``notebook``. FastMCP builds a tool's input schema from its
function's parameters, so each parameter carries its exported JSON Schema as is; the arguments
are validated where the chat validates them, by the tool's zod schema in the figure program.
"""

from __future__ import annotations

import base64
import inspect
import json
import warnings
from importlib import resources
from typing import Annotated, Any

from fastmcp import Context
from fastmcp.tools.base import ToolResult
from mcp.types import ImageContent, TextContent
from pydantic import WithJsonSchema
from pydantic.json_schema import PydanticJsonSchemaWarning

from .calls import AgentCallError, AgentResult, service

#: What `notebook` is, as the agent is told.
NOTEBOOK_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "description": (
        "The notebook whose Figure Chat conversation the call is added to: a path relative to the "
        'Jupyter root, e.g. "analysis/run.ipynb". Open in JupyterLab, the call shows live in its '
        "sidebar; closed, it is written to the file. Workspace picture paths are relative to the "
        "Jupyter root too."
    ),
}

#: The name stored for a client that gave none.
UNNAMED_AGENT = "MCP client"


def _specs() -> dict[str, dict[str, Any]]:
    text = resources.files("jupyterlab_figure_chat").joinpath("tool_specs.json").read_text("utf-8")
    return {tool["name"]: tool for tool in json.loads(text)["tools"]}


class _Omitted:
    """The default of an optional argument the agent left out.

    Not JSON, so pydantic leaves ``default`` out of the schema: an omitted argument is omitted, as
    the zod schema says, not ``null`` (which strict clients would then send).
    """

    def __repr__(self) -> str:
        return "<omitted>"


OMITTED = _Omitted()
# Pydantic says, once per optional argument, that it leaves such a default out: that is the point.
warnings.filterwarnings("ignore", message=r"Default value <omitted> is not JSON serializable", category=PydanticJsonSchemaWarning)


def _agent_name(ctx: Context | None) -> str:
    """The MCP client's name, as it introduced itself (``clientInfo.name``), bounded."""
    try:
        params = ctx.session.client_params if ctx is not None else None
    except RuntimeError:
        params = None
    info = getattr(params, "clientInfo", None) or getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    if not isinstance(name, str) or not name.strip():
        return UNNAMED_AGENT
    return " ".join(name.split())[:100]


def _content(result: AgentResult) -> ToolResult:
    blocks: list[Any] = [TextContent(type="text", text=result.text)]
    for image in result.images:
        blocks.append(ImageContent(type="image", data=base64.b64encode(image.data).decode("ascii"), mimeType=image.mime))
    return ToolResult(content=blocks, is_error=result.failed)


def _refusal(message: str) -> ToolResult:
    # The text the chat's model gets for a failed call.
    return ToolResult(content=[TextContent(type="text", text=f"Tool error: {message}")], is_error=True)


def _make_tool(spec: dict[str, Any]) -> Any:
    name: str = spec["name"]
    schema = spec["parameters"]
    required = set(schema.get("required", []))
    properties: dict[str, Any] = {"notebook": NOTEBOOK_SCHEMA, **schema["properties"]}

    async def tool(**kwargs: Any) -> ToolResult:
        ctx = kwargs.pop("ctx", None)
        notebook = kwargs.pop("notebook", None)
        arguments = {key: value for key, value in kwargs.items() if value is not OMITTED}
        try:
            result = await service().call(notebook, name, arguments, _agent_name(ctx))
        except AgentCallError as error:
            return _refusal(str(error))
        return _content(result)

    parameters = []
    for key, prop in properties.items():
        annotation = Annotated[Any, WithJsonSchema(dict(prop))]
        if key == "notebook" or key in required:
            parameters.append(inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, annotation=annotation))
        else:
            parameters.append(inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=OMITTED))
    parameters.append(inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context, default=None))
    tool.__signature__ = inspect.Signature(parameters, return_annotation=ToolResult)  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": ToolResult}
    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = spec["description"]
    return tool


_SPECS = _specs()
present_svg = _make_tool(_SPECS["present_svg"])
vision_mark = _make_tool(_SPECS["vision_mark"])
vision_update = _make_tool(_SPECS["vision_update"])
vision_show = _make_tool(_SPECS["vision_show"])
vision_list = _make_tool(_SPECS["vision_list"])
