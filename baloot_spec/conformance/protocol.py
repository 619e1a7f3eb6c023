"""The engine protocol (baloot-protocol/1): message shapes, their JSON Schemas, line encoding.

A third-party engine is driven over JSON lines on its stdin/stdout (conformance/PROTOCOL.md).
This module knows what a valid request and response look like, so that the harness can tell an
engine's wrong answer (a failing case) from a malformed one (an error), and so that tests can
check that what the harness sends matches the published schemas.
"""

from __future__ import annotations

import json
from functools import lru_cache

import jsonschema
from referencing import Registry, Resource

from ..limits import InputLimitError, loads
from ..resources import conformance_dir

MAX_RESPONSE_BYTES = 1 << 20   # one response line (process.MAX_LINE)

PROTOCOL = "baloot-protocol/1"
COMMANDS = ("hello", "new_hand", "apply", "query", "score", "projects", "match", "audit", "perft", "stop")
CLAIMABLE = ("new_hand", "apply", "query", "score", "projects", "match", "audit", "perft")
QUERY_ITEMS = ("turn", "phase", "legal", "result")
SETUPS = ("events", "position")   # how new_hand may give a hand (hello's `setups`; default: events)

# the commands a case kind needs from an engine (hello's `commands` must list them all)
KIND_COMMANDS = {
    "legal": ("new_hand", "apply", "query"),
    "reject": ("new_hand", "apply", "query"),
    "hand": ("new_hand", "apply", "query"),
    "score": ("score",),
    "projects": ("projects",),
    "match": ("match",),
    "audit": ("audit",),
}


class ProtocolError(Exception):
    """A message that does not follow the protocol (not JSON, wrong shape...)."""


def encode(message: dict) -> bytes:
    """One message as one line: compact JSON, UTF-8, newline-terminated, no newline inside."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"


def decode(line: bytes) -> dict:
    """Parse one line into a JSON object; ProtocolError says what is wrong with it."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        value = loads(text, max_bytes=MAX_RESPONSE_BYTES)
    except InputLimitError as exc:
        where = f" at column {exc.column}" if exc.column else ""
        raise ProtocolError(f"not JSON under the input limits ({exc.message}{where}): {_clip(text)}") from None
    if not isinstance(value, dict):
        raise ProtocolError(f"not a JSON object: {_clip(text)}")
    return value


def schema_dir():
    return conformance_dir() / "schema" / "protocol"


@lru_cache(maxsize=None)
def _registry() -> Registry:
    resources = []
    case_schema = json.loads((conformance_dir() / "schema" / "case.schema.json").read_text(encoding="utf-8"))
    resources.append((case_schema["$id"], Resource.from_contents(case_schema)))
    position_schema = json.loads((conformance_dir() / "schema" / "position.schema.json").read_text(encoding="utf-8"))
    resources.append((position_schema["$id"], Resource.from_contents(position_schema)))
    for path in sorted(schema_dir().glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


@lru_cache(maxsize=None)
def validator(name: str) -> jsonschema.Draft202012Validator:
    """The validator of one schema file, e.g. 'hello.response' or 'request'.

    Every $ref is resolved once here (the schemas are not recursive): validating through the
    registry on each message cost several times more, and the harness validates every response."""
    schema = json.loads((schema_dir() / f"{name}.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(_inline(schema, _registry().resolver(schema["$id"])))


def _inline(node, resolver):
    if isinstance(node, dict):
        if "$ref" in node:
            resolved = resolver.lookup(node["$ref"])
            target = _inline(resolved.contents, resolved.resolver)
            siblings = {k: v for k, v in node.items() if k not in ("$ref", "$id", "$schema", "title", "description")}
            return {"allOf": [target, _inline(siblings, resolver)]} if siblings else target
        return {k: _inline(v, resolver) for k, v in node.items() if k not in ("$id", "$schema")}
    if isinstance(node, list):
        return [_inline(v, resolver) for v in node]
    return node


def problem(name: str, message) -> str | None:
    """The first schema violation of `message` against schema `name`, as text, or None."""
    check = validator(name)
    if next(check.iter_errors(message), None) is None:
        return None
    error = jsonschema.exceptions.best_match(check.iter_errors(message))
    where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"{where}: {_clip(error.message)}"


def check_response(cmd: str, message: dict) -> None:
    """ProtocolError unless `message` is a valid response to `cmd` (skipped/errored included)."""
    found = problem(f"{cmd}.response", message)
    if found:
        raise ProtocolError(f"invalid response to {cmd}: {found}")


def _clip(text: str, limit: int = 200) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"
