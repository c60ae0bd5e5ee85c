"""The renderings of one tool input schema (pydantic's JSON schema, ``$ref``s inlined)
for each interface that needs its own dialect:

- ``typed``: MCP. Every property carries a top-level ``type``: an optional field's
  ``anyOf [X, null]`` becomes ``X`` with ``"null"`` added to its ``type`` (and to its
  ``enum``), and so does every other property that is not required (null means its
  default: the tools decode it so, ``trulymem.tools.coerce``). Clients such as the
  MCP Inspector decide from ``type`` alone whether to parse an argument as JSON;
  clients that make every property required (the OpenAI Agents SDK's strict
  conversion) then still let a model send null for "not given" instead of inventing
  a value.
- ``strict``: OpenAI's strict mode (Structured Outputs): every property required,
  optional ones nullable, every object closed, no ``default``/``minLength``/
  ``maxLength``, and free-form objects (metadata, filters, persona attributes, mem0
  messages) as JSON text in a string — the tools decode it on the way in
  (``trulymem.tools.coerce``), as they decode a null into the field's default.
- ``compact``: the agent's prompt-token-lean rendering.
"""

from __future__ import annotations

import copy
import json
from typing import Any

NULL = {"type": "null"}


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """``$ref``s replaced by their definitions (some tool APIs reject ``$defs``), titles dropped."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                target = copy.deepcopy(defs[node["$ref"].rsplit("/", 1)[-1]])
                extra = {k: v for k, v in node.items() if k != "$ref"}
                return walk({**target, **extra})
            # pydantic's "title"s repeat the property names: tokens every model call pays for.
            return {k: walk(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    out: dict[str, Any] = walk(schema)
    return out


def without_field(schema: dict[str, Any], name: str) -> dict[str, Any]:
    """An object schema without the top-level property ``name`` (nor its ``required`` entry)."""
    props = {k: v for k, v in (schema.get("properties") or {}).items() if k != name}
    out = {**schema, "properties": props}
    if "required" in schema:
        out["required"] = [r for r in schema["required"] if r != name]
    return out


def split_null(node: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """``(the schema without its null alternative, whether it had one)``; outer keys
    (description, default) stay on what is left."""
    alts = node.get("anyOf")
    if not isinstance(alts, list) or NULL not in alts:
        return node, False
    rest = [a for a in alts if a != NULL]
    outer = {k: v for k, v in node.items() if k != "anyOf"}
    if len(rest) == 1:
        return {**rest[0], **outer}, True
    return {**outer, "anyOf": rest}, True


def _optional_none(node: dict[str, Any]) -> bool:
    return node.get("default", None) is None and NULL in (node.get("anyOf") or [])


def typed(node: Any) -> Any:
    """The MCP rendering (see the module docstring); constraints are kept."""
    if isinstance(node, list):
        return [typed(v) for v in node]
    if not isinstance(node, dict):
        return node
    if _optional_none(node):
        node, _ = split_null(node)
        node = _with_null(node)
    if isinstance(node.get("properties"), dict):
        required = set(node.get("required") or [])
        node = {**node, "properties": {name: prop if name in required or _optional_none(prop) or not isinstance(
            prop, dict) else _with_null(prop) for name, prop in node["properties"].items()}}
    return {k: typed(v) for k, v in node.items() if not (k == "default" and v is None)}


def _with_null(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` that also accepts null, its top-level ``type`` kept (a list naming "null")."""
    kind = node.get("type")
    if isinstance(kind, list):
        return node if "null" in kind else {**node, "type": [*kind, "null"]}
    if isinstance(kind, str):
        out = {**node, "type": [kind, "null"]}
        if isinstance(node.get("enum"), list) and None not in node["enum"]:
            out["enum"] = [*node["enum"], None]
        return out
    if isinstance(node.get("anyOf"), list):  # several kinds: null is one more alternative
        kinds = [a.get("type") for a in node["anyOf"] if isinstance(a, dict)]
        out = {**node, "anyOf": [*node["anyOf"], NULL]}
        if all(isinstance(k, str) for k in kinds):
            out["type"] = [*dict.fromkeys(kinds), "null"]
        return out
    return node


_CHECKED_BY_THE_TOOL = {"maxLength", "minLength", "pattern", "maxItems", "minItems", "additionalProperties"}


def compact(node: Any) -> Any:
    """What the tool checks itself anyway (lengths, patterns, ``null`` alternatives of
    optional fields) left out: every agent model call pays for it in prompt tokens."""
    if isinstance(node, list):
        return [compact(v) for v in node]
    if not isinstance(node, dict):
        return node
    if _optional_none(node):
        node, _ = split_null(node)
    return {k: compact(v) for k, v in node.items()
            if k not in _CHECKED_BY_THE_TOOL and not (k == "default" and v is None)}


# Keywords outside OpenAI's strict subset (or meaningless in it): dropped, the tool checks them.
_NOT_STRICT = {"default", "minLength", "maxLength", "minProperties", "maxProperties", "uniqueItems", "title",
               "examples", "propertyNames", "patternProperties"}


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI strict rendering of a tool's input schema (an object)."""
    return _object(schema)


def _object(node: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = node.get("properties") or {}
    required = set(node.get("required") or [])
    out_props: dict[str, Any] = {}
    for name, prop in props.items():
        base, nullable = split_null(prop)
        rendered = _node(base)
        default = prop.get("default")
        if default not in (None, "", [], {}):  # the model cannot leave a field out: say what null means
            note = f"Null means {json.dumps(default, ensure_ascii=False)}."
            rendered["description"] = f"{rendered['description']} {note}" if rendered.get("description") else note
        out_props[name] = _nullable(rendered) if nullable or name not in required else rendered
    out: dict[str, Any] = {"type": "object"}
    if node.get("description"):
        out["description"] = node["description"]
    return {**out, "properties": out_props, "required": list(props), "additionalProperties": False}


def _free(node: Any) -> bool:
    """Holds an object whose keys are not fixed (strict mode has no way to say that)."""
    if not isinstance(node, dict):
        return False
    if node.get("type") == "object":
        return node.get("additionalProperties", True) is not False
    if node.get("type") == "array":
        return _free(node.get("items"))
    return any(_free(a) for a in node.get("anyOf") or [])


def _node(node: dict[str, Any]) -> dict[str, Any]:
    if _free(node):
        what = "object" if node.get("type") == "object" else "array"
        text = f"A JSON {what}, encoded as a string."
        return {"type": "string", "description": f"{node['description']} {text}" if node.get("description") else text}
    if node.get("type") == "object":
        return _object(node)
    out = {k: v for k, v in node.items() if k not in _NOT_STRICT}
    if isinstance(out.get("items"), dict):
        out["items"] = _node(out["items"])
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [a if a == NULL else _node(a) for a in out["anyOf"]]
    return out


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    if isinstance(node.get("anyOf"), list):
        return node if NULL in node["anyOf"] else {**node, "anyOf": [*node["anyOf"], NULL]}
    kind = node.get("type")
    if isinstance(kind, str) and kind not in ("object", "null") and "enum" not in node and "const" not in node:
        return {**node, "type": [kind, "null"]}
    outer = {"description": node["description"]} if "description" in node else {}
    return {"anyOf": [{k: v for k, v in node.items() if k != "description"}, NULL], **outer}
