"""Read `baloot-log/1` input from files, directories or standard input, without ever raising.

Each document comes with where it was found (file, line for JSON Lines) and either the parsed,
schema-checked document or the located errors that make it unreadable. Input is streamed: a
JSON Lines file is read a line at a time, so memory does not grow with its size.
"""

from __future__ import annotations

import json
import marshal
import os
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import fastjsonschema

from ..limits import MAX_JSON_FILE_BYTES, MAX_LOG_LINE_BYTES, InputLimitError, loads
from ..resources import conformance_dir
from ..rules import cache as disk_cache


@dataclass
class LogInput:
    name: str                      # file name ('-' for standard input)
    line: int | None               # line of a JSON Lines document
    document: dict | None = None
    errors: list = field(default_factory=list)   # [{"path", "message", "line"?, "column"?}]

    @property
    def where(self) -> str:
        return f"{self.name}:{self.line}" if self.line else self.name


@lru_cache(maxsize=None)
def _schema() -> dict:
    return json.loads((conformance_dir() / "schema" / "log.schema.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _validator():
    import jsonschema  # imported here: only an invalid document needs it (0.1 s of start-up)
    return jsonschema.Draft202012Validator(_schema())


@lru_cache(maxsize=None)
def _fast_validator():
    """The schema compiled to Python by fastjsonschema: ~40x faster on the (common) valid
    document. It only says yes or no; the messages come from jsonschema. The schema uses only
    keywords that mean the same in both (tests/test_log_reader.py checks they agree)."""
    schema = _flat_records()[0]
    # Generating the validator takes 0.1 s and compiling its source 0.04 s, a large part of a
    # short audit's start-up: its code is kept in the rules cache, marshalled as in a .pyc, keyed
    # by the schema, fastjsonschema's version, this module and the Python version.
    key = json.dumps([schema, fastjsonschema.VERSION, Path(__file__).read_text(encoding="utf-8"), sys.version],
                     sort_keys=True)
    try:
        code, name = disk_cache.load("log-validator", key)
        namespace: dict = {}
        exec(marshal.loads(code), namespace)  # fastjsonschema's own output, compiled by us
        return namespace[name]
    except Exception:   # no entry, or a damaged one: generate it again
        validator = fastjsonschema.compile(schema)
        code = compile(fastjsonschema.compile_to_code(schema), "<log schema validator>", "exec")
        disk_cache.store("log-validator", key, (marshal.dumps(code), validator.__name__))
        return validator


@lru_cache(maxsize=None)
def _flat_records():
    """The fast validator's schema, and the arrays of flat records it leaves to `_flat_check`.

    A log's events are most of a document, and fastjsonschema checks each one property by
    property (two sets and nine membership tests an event, about 1 us): a third of the time of
    a valid document. Where an array's items are flat records (only `required` and the JSON
    type of each property), the schema keeps `type: array` and drops the items, and each item
    is checked here by a plain loop over its own keys. The check is never looser than the
    schema (exact types: a value it doubts sends the document to jsonschema, which decides)."""
    found = []

    def walk(node, path):
        if not isinstance(node, dict):
            return node
        node = dict(node)
        if isinstance(node.get("properties"), dict) and node.get("type") == "object":
            node["properties"] = {k: walk(v, path + (k,)) for k, v in node["properties"].items()}
        if node.get("type") == "array" and isinstance(node.get("items"), dict):
            check = _flat_check(node["items"])
            if check is None:
                node["items"] = walk(node["items"], path + ("*",))
            else:
                found.append((path, check))
                node.pop("items")
        return node

    return walk(_without_failing_branches(_inline_refs(_schema())), ()), tuple(found)


_EXACT_TYPES = {"string": str, "boolean": bool, "integer": int}
_NOTES = {"description", "title", "$comment"}


def _flat_check(schema):
    """check(item) -> bool for a flat record schema (see _flat_records), or None for any other."""
    if not (isinstance(schema, dict) and schema.get("type") == "object" and set(schema) <= {"type", "required", "properties"} | _NOTES
            and isinstance(schema.get("properties", {}), dict) and isinstance(schema.get("required", []), list)):
        return None
    expected = {}   # property -> (its exact type, the exact type of its items or None)
    for name, spec in schema.get("properties", {}).items():
        if not isinstance(spec, dict) or not set(spec) <= {"type", "items"} | _NOTES:
            return None
        kind, items = spec.get("type"), spec.get("items")
        if kind in _EXACT_TYPES and items is None:
            expected[name] = (_EXACT_TYPES[kind], None)
        elif (kind == "array" and isinstance(items, dict) and set(items) <= {"type"} | _NOTES
              and items.get("type") in _EXACT_TYPES):
            expected[name] = (list, _EXACT_TYPES[items["type"]])
        else:
            return None
    required = frozenset(schema.get("required", []))

    def check(item) -> bool:
        if type(item) is not dict or not required <= item.keys():
            return False
        for name, value in item.items():
            kind = expected.get(name)
            if kind is not None and (type(value) is not kind[0] or (kind[1] is not None and any(
                    type(v) is not kind[1] for v in value))):
                return False
        return True
    return check


def _records_pass(data, path: tuple, check) -> bool:
    """Whether every item of the arrays at `path` ('*': each item of an array) passes `check`.
    A part of the path that is missing or of another type has nothing to check here (the
    schema's own checks decide about it)."""
    if not path:
        return type(data) is not list or all(map(check, data))
    step, rest = path[0], path[1:]
    if step == "*":
        return type(data) is not list or all(_records_pass(item, rest, check) for item in data)
    return type(data) is not dict or step not in data or _records_pass(data[step], rest, check)


def _inline_refs(schema: dict) -> dict:
    """The schema with every local `#/$defs/...` reference replaced by its definition, so that
    fastjsonschema validates each event inline instead of through a function call that formats
    the event's path on every call (half of the validation time). Left as is if recursive."""
    defs = schema.get("$defs", {})

    def expand(node, stack):
        if isinstance(node, list):
            return [expand(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and len(node) == 1:
            name = ref[len("#/$defs/"):]
            if name in stack or name not in defs:
                raise RecursionError(name)
            return expand(defs[name], stack | {name})
        return {key: (value if key == "$defs" else expand(value, stack)) for key, value in node.items()}

    try:
        inlined = expand(schema, frozenset())
    except RecursionError:
        return schema
    inlined.pop("$defs", None)
    return inlined


def _without_failing_branches(node):
    """The schema with two forms that fail a branch on every valid document rewritten to ones
    that do not (fastjsonschema builds a detailed exception for each failing branch, half of
    the validation time). Both rewrites accept exactly the same documents:
    - anyOf of branches that are each only an `enum` or `type: null`: one enum;
    - oneOf of two object forms told apart by a key, required by the first and not allowed by
      the second (additionalProperties false): if the key is present, the first, else the second."""
    if isinstance(node, list):
        return [_without_failing_branches(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: ({name: _without_failing_branches(sub) for name, sub in value.items()}   # (names, not a schema)
                  if key in _SCHEMA_MAPS and isinstance(value, dict) else _without_failing_branches(value))
            for key, value in node.items()}
    branches = node.get("anyOf")
    if isinstance(branches, list) and branches and "enum" not in node and all(_enum_of(b) is not None for b in branches):
        node.pop("anyOf")
        node["enum"] = [v for b in branches for v in _enum_of(b)]
    forms = node.get("oneOf")
    if isinstance(forms, list) and len(forms) == 2 and "if" not in node:
        key = _telling_key(*forms)
        flipped = _telling_key(*forms[::-1]) if key is None else None
        if key is not None or flipped is not None:
            first, second = forms if key is not None else forms[::-1]
            node.pop("oneOf")
            node.update({"if": {"required": [key or flipped]}, "then": first, "else": second})
    return node


_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def _enum_of(branch):
    if isinstance(branch, dict) and set(branch) == {"enum"} and isinstance(branch["enum"], list):
        return branch["enum"]
    if branch == {"type": "null"}:
        return [None]
    return None


def _telling_key(first, second):
    """A key the first form requires and the second does not allow (None if there is none)."""
    if not (isinstance(first, dict) and isinstance(second, dict)):
        return None
    if first.get("type") != "object" or second.get("type") != "object" or second.get("additionalProperties") is not False:
        return None
    if "patternProperties" in second:
        return None
    allowed = second.get("properties", {})
    return next((k for k in first.get("required", []) if k not in allowed), None)


def json_path(parts) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def prepare_checks() -> None:
    """Compile the fast validator now (a parent before it forks workers). Checking an empty
    document would do it too, but that document is invalid: it would also import jsonschema
    for the messages, 40 ms of start-up that a run of valid documents never needs."""
    _fast_validator()


def check_document(data) -> list:
    """Schema errors of one parsed document, each with its JSON path (all of them, path order)."""
    try:
        _fast_validator()(data)
        if all(_records_pass(data, path, check) for path, check in _flat_records()[1]):
            return []
    except fastjsonschema.JsonSchemaException:
        pass  # invalid: let jsonschema find and locate every error
    errors = []
    for error in sorted(_validator().iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
        error = _deepest(error)
        errors.append({"path": json_path(error.absolute_path), "message": error.message})
    return errors


def _deepest(error):
    """For a value that fits none of several forms (oneOf/anyOf), the sub-error that reaches
    deepest into it: 'deal.cut.option: 5 is not of type string' says more than 'the deal is not
    valid under any of the given schemas' followed by the whole deal."""
    while error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return error


def parse_document(text: str, name: str, line: int | None) -> LogInput:
    """One document's text (of file `name`, at `line` of a JSON Lines file) read and checked
    against the log schema: a LogInput with its data or its located errors (what an audit
    worker is given, audit.py audit_text)."""
    item = LogInput(name, line)
    try:
        # (duplicate keys, NaN and integers over Python's 4,300 digits refused; the log schema
        # bounds the integers a valid document holds, and its shape, so its depth)
        data = loads(text, max_bytes=MAX_JSON_FILE_BYTES, check_depth=False, strict_ints=False)
    except InputLimitError as exc:
        error = {"path": "$", "message": exc.message if exc.message.startswith("not valid JSON") else f"not valid JSON: {exc.message}"}
        if exc.line:
            error["column"] = exc.column
            error["line"] = (line or 0) + exc.line - 1 if line else exc.line
        if "Extra data" in error["message"] and line is None and not name.endswith(".jsonl"):
            error["message"] += " (one JSON document per line? name the file .jsonl to read it as JSON Lines)"
        item.errors.append(error)
        return item
    try:
        problems = check_document(data)
    except RecursionError:
        problems = [{"path": "$", "message": "nested too deeply to check"}]
    if problems:
        item.errors.extend(problems)
        return item
    item.document = data
    return item


def _read_stream(stream, name: str, jsonl: bool | None):
    """Yield (name, line, text) for each document in a stream (line None for a whole file); for
    a document over the input limits, text is a _TooLong saying so. Memory stays bounded by the
    limits whatever the input (a line is read at most MAX_LOG_LINE_BYTES at a time)."""
    if jsonl is False:
        text = stream.read(MAX_JSON_FILE_BYTES + 1)
        if len(text) > MAX_JSON_FILE_BYTES:
            yield name, None, _TooLong(f"larger than the limit of {MAX_JSON_FILE_BYTES} characters for a .json log "
                                       "(write a long log as JSON Lines, a document a line)")
            return
        yield name, None, text
        return
    number = 0
    while True:
        raw = stream.readline(MAX_LOG_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LOG_LINE_BYTES and not raw.endswith("\n"):
            while raw and not raw.endswith("\n"):     # skip the rest of the line, a bounded piece at a time
                raw = stream.readline(1 << 20)
            yield name, number, _TooLong(f"a line longer than the limit of {MAX_LOG_LINE_BYTES} characters")
            continue
        text = raw.strip()
        if not text:
            continue
        if jsonl is None and number == 1 and text.startswith("{") and not _is_complete(text):
            # a pretty-printed single JSON document on standard input: read it whole
            rest = stream.read(MAX_JSON_FILE_BYTES + 1 - len(raw))
            if len(raw) + len(rest) > MAX_JSON_FILE_BYTES:
                yield name, None, _TooLong(f"larger than the limit of {MAX_JSON_FILE_BYTES} characters")
                return
            yield name, None, raw + rest
            return
        yield name, number, text


class _TooLong(str):
    """Where a document should be: why there is none (over the input limits)."""


def _is_complete(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except json.JSONDecodeError:
        return False
    except (RecursionError, ValueError):
        return True


def read_raw(sources):
    """Yield (name, line, text, error) for every document in files, directories and '-' (stdin);
    text is None when the input could not be read (error says why). Parsing is left to the
    caller, so that it can happen in worker processes."""
    for source in sources:
        if source == "-":
            for name, line, text in _read_stream(sys.stdin, "-", None):
                yield (name, line, None, str(text)) if isinstance(text, _TooLong) else (name, line, text, None)
            continue
        path = Path(source)
        if path.is_dir():
            if not os.access(path, os.R_OK | os.X_OK):
                yield str(path), None, None, "cannot read the directory: permission denied"
                continue
            unreadable: list = []   # (a folder inside that cannot be read is said so, not skipped)
            files = sorted(Path(folder) / name for folder, _, names in os.walk(path, onerror=unreadable.append)
                           for name in names if Path(name).suffix in (".json", ".jsonl") and (Path(folder) / name).is_file())
            for exc in unreadable:
                yield str(exc.filename or path), None, None, f"cannot read the directory: {exc.strerror or exc}"
            if not files and not unreadable:
                yield str(path), None, None, "the directory holds no .json or .jsonl file"
                continue
        elif path.exists():
            files = [path]   # (a file, a FIFO, /dev/stdin, /dev/null: read as they come)
        else:
            yield str(path), None, None, "no such file or directory"
            continue
        for file in files:
            try:
                with file.open("r", encoding="utf-8") as stream:
                    for name, line, text in _read_stream(stream, str(file), True if file.suffix == ".jsonl" else (None if not file.is_file() else False)):
                        yield (name, line, None, str(text)) if isinstance(text, _TooLong) else (name, line, text, None)
            except UnicodeDecodeError as exc:
                yield str(file), None, None, f"not UTF-8 text: {exc.reason}"
            except OSError as exc:
                yield str(file), None, None, f"cannot read: {exc.strerror or exc}"


def read_logs(sources):
    """Yield a parsed, schema-checked LogInput for every document (never raises)."""
    for name, line, text, error in read_raw(sources):
        if text is None:
            yield LogInput(name, line, errors=[{"path": "$", "message": error}])
        else:
            yield parse_document(text, name, line)
