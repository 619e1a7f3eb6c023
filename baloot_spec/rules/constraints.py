"""The knob constraints of rules/params.yaml (`when` ... `require` ...), evaluated by walking
their parse tree.

A constraint is read by the rules' own grammar (rules/grammar/expr.lark) and evaluated here
over the tree, against knob values only: knobs (`param.NAME`), literals, lists, comparisons,
`in`/`not in` and `and`/`or`/`not`. Nothing of its text reaches eval/exec or generated Python,
and anything else in it (a name, a call, arithmetic, an aggregate) is a load error located in
rules/params.yaml, as is a result that is not true or false."""

from __future__ import annotations

import operator

import lark

from ..errors import RulesError
from ..expr.parser import ExprSyntaxError, locate_in_yaml, parse_expression
from ..suggest import did_you_mean
from .source import source_of, text_of

_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}
_ALLOWED = "knobs (param.NAME), literals, lists, comparisons, in, not in, and, or, not"


class _Refused(Exception):
    """What the evaluator cannot accept, at a node of the expression."""

    def __init__(self, message: str, node):
        super().__init__(message)
        meta = getattr(node, "meta", None)
        known = meta is not None and not getattr(meta, "empty", True)
        self.message = message
        self.line, self.column = (meta.line, meta.column) if known else (1, 1)
        self.length = max(1, meta.end_column - meta.column) if known and meta.end_line == meta.line else 1


def constraint_holds(constraint, key: str, knobs: dict) -> bool:
    """Whether the `key` part ("when" or "require") of a constraint is true for these knob values.
    Raises RulesError, located in the constraint's file, for anything but a true/false answer
    from the allowed forms."""
    value = constraint[key]
    text, where = text_of(value), source_of(value)
    try:
        result = _evaluate(parse_expression(text), knobs)
        if not isinstance(result, bool):
            raise _Refused(f"a constraint's {key!r} must be true or false, not {result!r}", parse_expression(text))
        return result
    except ExprSyntaxError as exc:
        raise locate_in_yaml(text, where, exc.line, exc.column, exc.length, "syntax error: " + exc.message,
                             constraint["id"]) from None
    except _Refused as exc:
        raise locate_in_yaml(text, where, exc.line, exc.column, exc.length, exc.message, constraint["id"]) from None


def _evaluate(node, knobs: dict):
    """The value of one node (depth is bounded by the parser's nesting limit)."""
    if not isinstance(node, lark.Tree):
        raise _Refused(f"a constraint may use only {_ALLOWED}", node)
    kind, kids = node.data, node.children
    if kind == "number":
        return int(kids[0])
    if kind == "string":
        return str(kids[0])[1:-1]   # (the grammar's strings have no escapes)
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "none":
        return None
    if kind == "neg":
        value = _evaluate(kids[0], knobs)
        if not _is_int(value):
            raise _Refused(f"'-' takes a whole number, not {value!r}", node)
        return -value
    if kind == "attr" and isinstance(kids[0], lark.Tree) and kids[0].data == "name" and str(kids[0].children[0]) == "param":
        name = str(kids[1])
        if name not in knobs:
            hint = did_you_mean("param." + name, ["param." + k for k in knobs]) or " (declare it in rules/params.yaml)"
            raise _Refused(f"unknown knob 'param.{name}'{hint}", node)
        return knobs[name]
    if kind == "list_":
        arglist = kids[0]
        return [] if arglist is None else [_evaluate(item, knobs) for item in arglist.children]
    if kind == "not_":
        return not _truth(kids[0], knobs, "not")
    if kind in ("and_", "or_"):
        left, right = _truth(kids[0], knobs, kind[:-1]), _truth(kids[1], knobs, kind[:-1])
        return (left and right) if kind == "and_" else (left or right)
    if kind == "compare":
        left, op, right = _evaluate(kids[0], knobs), str(kids[1]), _evaluate(kids[2], knobs)
        if op not in ("==", "!=") and not (_is_int(left) and _is_int(right)):
            raise _Refused(f"{op} compares whole numbers, not {left!r} and {right!r}", node)
        return _COMPARE[op](left, right)
    if kind in ("in_", "not_in"):
        item, collection = _evaluate(kids[0], knobs), _evaluate(kids[1], knobs)
        if not isinstance(collection, list):
            raise _Refused(f"'in' takes a list on its right, not {collection!r}", kids[1])
        return (item in collection) == (kind == "in_")
    raise _Refused(f"a constraint may use only {_ALLOWED}", node)


def _truth(node, knobs: dict, operator_name: str) -> bool:
    value = _evaluate(node, knobs)
    if not isinstance(value, bool):
        raise _Refused(f"'{operator_name}' takes true or false, not {value!r}", node)
    return value


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_constraints(values: dict, constraints: list, context: str) -> None:
    """Refuse knob values that rules/params.yaml says cannot be combined."""
    from ..errors import Location
    for constraint in constraints:
        when, require = (constraint_holds(constraint, key, values) for key in ("when", "require"))
        if when and not require:
            involved = ", ".join(f"{name}={values[name]}" for name in values
                                 if f"param.{name}" in f"{constraint['when']} {constraint['require']}")
            raise RulesError(f"{context}: the knob values {involved} cannot be combined: {' '.join(str(constraint['message']).split())}",
                             constraint.location() if hasattr(constraint, "location") else Location("rules/params.yaml"),
                             constraint["id"])
