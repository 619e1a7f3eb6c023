"""A yes-or-no check of a rules document against its JSON Schema, without jsonschema.

jsonschema is imported (~50 ms with `referencing` and its metaschemas) and walked (~30 ms) for
every rules, params, preset and overlay file a load with no disk cache reads, and every one of
them is valid. `surely_valid` answers True only when it is sure jsonschema would find nothing:
it knows the keywords the rules' schemas use, each with jsonschema's own meaning (the types by
the same isinstance tests, `pattern` by re.search, `enum` and `const` among strings, `$ref` within
the document); anything else (another keyword, a `$ref` elsewhere, a malformed schema, an enum
of numbers) is "not sure". When it is not True, loader.validate asks jsonschema, whose first
error is the one reported, as before.
"""

from __future__ import annotations

import numbers
import re


class _Unsure(Exception):
    """A keyword, a schema or a value this check does not decide: jsonschema decides."""


def surely_valid(document, schema) -> bool:
    """True only if jsonschema's Draft 2020-12 validator would find no error in `document`."""
    try:
        return _valid(document, schema, schema)
    except Exception:   # (_Unsure, a malformed schema, RecursionError: jsonschema says what it is)
        return False


_IGNORED = frozenset({"$schema", "title", "description", "$comment", "default", "examples", "$defs",
                      "then", "else"})   # (annotations; `then` and `else` are read by `if`)


def _valid(value, schema, root) -> bool:
    if schema is True or schema is False:
        return schema
    if type(schema) is not dict:
        raise _Unsure
    for keyword, argument in schema.items():
        check = _KEYWORDS.get(keyword)
        if check is None:
            if keyword in _IGNORED or (keyword == "$id" and schema is root):
                continue
            raise _Unsure
        if not check(value, argument, schema, root):
            return False
    return True


def _is(value, kind: str) -> bool:
    """jsonschema's Draft 2020-12 type checks."""
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "integer":
        return not isinstance(value, bool) and (isinstance(value, int) or (isinstance(value, float) and value.is_integer()))
    if kind == "number":
        return not isinstance(value, bool) and isinstance(value, numbers.Number)
    raise _Unsure


def _type(value, kinds, schema, root) -> bool:
    if isinstance(kinds, str):
        return _is(value, kinds)
    if type(kinds) is not list:
        raise _Unsure
    return any(_is(value, kind) for kind in kinds)


def _strings(items) -> list:
    if type(items) is not list or not all(isinstance(item, str) for item in items):
        raise _Unsure   # (equality among numbers, booleans and containers: jsonschema's own rules)
    return items


def _ref(value, ref, schema, root) -> bool:
    if not isinstance(ref, str) or not ref.startswith("#/$defs/") or ref.count("/") != 2 or "~" in ref or "%" in ref:
        raise _Unsure
    defs = root.get("$defs")
    if type(defs) is not dict or ref[8:] not in defs:
        raise _Unsure
    return _valid(value, defs[ref[8:]], root)


def _properties(value, properties, schema, root) -> bool:
    if type(properties) is not dict:
        raise _Unsure
    if not isinstance(value, dict):
        return True
    return all(_valid(value[key], sub, root) for key, sub in properties.items() if key in value)


def _additional(value, sub, schema, root) -> bool:
    if "patternProperties" in schema:
        raise _Unsure
    if not isinstance(value, dict):
        return True
    known = schema.get("properties", {})
    return all(_valid(value[key], sub, root) for key in value if key not in known)


def _required(value, names, schema, root) -> bool:
    return not isinstance(value, dict) or all(name in value for name in _strings(names))


def _items(value, sub, schema, root) -> bool:
    if not (sub is True or sub is False or type(sub) is dict):
        raise _Unsure
    return not isinstance(value, list) or all(_valid(item, sub, root) for item in value)


def _count(kind: str, test):
    def check(value, limit, schema, root) -> bool:
        if type(limit) is not int:
            raise _Unsure
        return not _is(value, kind) or test(len(value), limit)
    return check


def _bound(test):
    def check(value, limit, schema, root) -> bool:
        if isinstance(limit, bool) or not isinstance(limit, (int, float)):
            raise _Unsure
        return not _is(value, "number") or test(value, limit)
    return check


def _pattern(value, pattern, schema, root) -> bool:
    if not isinstance(pattern, str):
        raise _Unsure
    return not isinstance(value, str) or re.search(pattern, value) is not None


def _enum(value, items, schema, root) -> bool:
    return any(value == item for item in _strings(items))


def _const(value, item, schema, root) -> bool:
    return value == _strings([item])[0]


def _unique(value, unique, schema, root) -> bool:
    if type(unique) is not bool:
        raise _Unsure
    if not unique or not isinstance(value, list):
        return True
    return len({_scalar(item) for item in value}) == len(value)


def _scalar(item):
    """A key equal for two items exactly when jsonschema's `equal` says so: strings, integers
    and None as themselves, booleans apart from 0 and 1 (anything else: not sure)."""
    if item is None or type(item) is int or isinstance(item, str):
        return item
    if type(item) is bool:
        return (bool, item)
    raise _Unsure


def _property_names(value, sub, schema, root) -> bool:
    return not isinstance(value, dict) or all(_valid(key, sub, root) for key in value)


def _if(value, sub, schema, root) -> bool:
    branch = schema.get("then", True) if _valid(value, sub, root) else schema.get("else", True)
    return _valid(value, branch, root)


def _subschemas(subs) -> list:
    if type(subs) is not list or not subs:
        raise _Unsure
    return subs


_KEYWORDS = {
    "type": _type, "$ref": _ref, "properties": _properties, "additionalProperties": _additional,
    "required": _required, "items": _items, "pattern": _pattern, "enum": _enum, "const": _const,
    "uniqueItems": _unique, "propertyNames": _property_names, "if": _if,
    "minItems": _count("array", lambda n, k: not n < k), "maxItems": _count("array", lambda n, k: not n > k),
    "minLength": _count("string", lambda n, k: not n < k), "maxLength": _count("string", lambda n, k: not n > k),
    "minProperties": _count("object", lambda n, k: not n < k), "maxProperties": _count("object", lambda n, k: not n > k),
    "minimum": _bound(lambda v, k: not v < k), "maximum": _bound(lambda v, k: not v > k),
    "anyOf": lambda value, subs, schema, root: any(_valid(value, sub, root) for sub in _subschemas(subs)),
    "allOf": lambda value, subs, schema, root: all(_valid(value, sub, root) for sub in _subschemas(subs)),
    "oneOf": lambda value, subs, schema, root: sum(_valid(value, sub, root) for sub in _subschemas(subs)) == 1,
    "not": lambda value, sub, schema, root: not _valid(value, sub, root),
}
