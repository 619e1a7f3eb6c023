"""A keyed derived value's table read where a function settles it into a local: the statement
`_h_x = f_x(S)` becomes

    try:
        _h_x = k__keyed_x[S.a][S.b]
    except _KeyMiss:
        _h_x = f_x(S)

A keyed derived value (passes/keyed.py) is a table read in its own function `f_x`, so reading it
cost a call: a frame for two dict lookups. The calls phases' narrows read one at every call
(the bidding's `f_ashkal_seat`, the doubling's `f_next_step`): a frame is about 330 machine
instructions there, more than the lookups.

Exact because `f_x`'s body is that very lookup first (keyed.py `keyed_function`: `try: return
<lookup> except _KeyMiss: pass`, then the fill): where the lookup finds the entry, the value is
the one `f_x` returns; where it misses (a new key, a value that is no key, a field not set), `f_x`
runs as before and looks it up again (the same fields: nothing runs between) before filling it. A
failure of the lookup that is no miss propagates from the same statement. Only a statement of a
function that names no rule by its line (no `_RuleRuntimeError`: a narrow) is rewritten, so the
rule lines of a guarded function (passes/rule_lines.py) are never laid out around a new `try`.

Knows keyed.py's names and the shape of its functions, nothing of what the rules compute.
"""

from __future__ import annotations

import ast

from ...expr.astutil import clone
from .keyed import TABLE_PREFIX

_NESTED = ("body", "orelse", "finalbody")


def keyed_lookups(functions: list) -> dict:
    """`f_x` -> the table lookup its body starts with, for each keyed derived value among
    `functions` (keyed.py's front function: `try: return <lookup> except _KeyMiss: pass`)."""
    found = {}
    for function in functions:
        body = function.body
        if not (type(function) is ast.FunctionDef and function.name.startswith("f_") and len(body) == 2
                and type(body[0]) is ast.Try and len(body[0].body) == 1 and type(body[0].body[0]) is ast.Return):
            continue
        lookup, handlers = body[0].body[0].value, body[0].handlers
        if (len(handlers) == 1 and type(handlers[0].type) is ast.Name and handlers[0].type.id == "_KeyMiss"
                and _table(lookup) == TABLE_PREFIX + function.name[2:]):
            found[function.name] = lookup
    return found


def _table(lookup) -> str | None:
    while type(lookup) is ast.Subscript:
        lookup = lookup.value
    return lookup.id if type(lookup) is ast.Name else None


def keyed_reads(function: ast.FunctionDef, lookups: dict) -> ast.FunctionDef:
    """`function` with each `name = f_x(S)` statement of a keyed `f_x` (`lookups`) reading the
    table first (changed in place, returned)."""
    _block(function.body, lookups)
    return function


def _block(statements: list, lookups: dict) -> None:
    for k, statement in enumerate(statements):
        kind = type(statement)
        if kind is ast.Assign:
            value = statement.value
            if (len(statement.targets) == 1 and type(statement.targets[0]) is ast.Name and type(value) is ast.Call
                    and type(value.func) is ast.Name and value.func.id in lookups and len(value.args) == 1
                    and not value.keywords and type(value.args[0]) is ast.Name and value.args[0].id == "S"):
                target = statement.targets[0].id
                read = ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())], value=clone(lookups[value.func.id]))
                miss = ast.ExceptHandler(type=ast.Name(id="_KeyMiss", ctx=ast.Load()), name=None, body=[statement])
                statements[k] = ast.Try(body=[read], handlers=[miss], orelse=[], finalbody=[])
            continue
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda):
            continue
        for field in _NESTED:
            inner = getattr(statement, field, None)
            if type(inner) is list:
                _block(inner, lookups)
        for handler in getattr(statement, "handlers", ()):
            _block(handler.body, lookups)
