"""Records built by item stores: in a lowered generated function, a statement whose whole value
is a record display with literal keys, `x = _R({'a': e1, 'b': e2})` (a map over a short constant
list written out, expr/unroll.py; the facts and steps read back as one record, fuse.py
record_of), becomes `t = _R(); t['a'] = e1; t['b'] = e2; x = t`.

A record is a dict subclass (expr/builtins.py Rec): making one from a dict display builds the
dict, then the record, copying every entry into it (CPython's quick copy is for plain dicts
only); storing the items into an empty record builds one table. In CPython 3.11 a record of two
entries costs about 40 % less this way, one of 37 about as much.

The same values are worked out in the same order, and the same keys end in the same order with
the same values (a key given twice keeps its first place and its last value, as in a display).
If a value fails, the record being filled is a local nobody reads: the statement fails as it did.
"""

from __future__ import annotations

import ast

from ...expr.astutil import walk

RECORD = "_R"


def record_stores(function: ast.FunctionDef) -> ast.FunctionDef:
    """`function` with each such statement rewritten (changed in place, returned)."""
    used = {n.id for n in walk(function) if isinstance(n, ast.Name)}
    counter = [0]

    def fresh() -> str:
        while True:
            counter[0] += 1
            candidate = f"_rec{counter[0]}"
            if candidate not in used:
                used.add(candidate)
                return candidate

    function.body = _block(function.body, fresh)
    return function


def _display(value) -> ast.Dict | None:
    """The dict display of `_R({...})` whose keys are all literals, else None."""
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == RECORD
            and len(value.args) == 1 and not value.keywords and isinstance(value.args[0], ast.Dict)):
        display = value.args[0]
        if display.keys and all(isinstance(k, ast.Constant) for k in display.keys):
            return display
    return None


def _block(statements: list, fresh) -> list:
    out = []
    for statement in statements:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if inner:
                setattr(statement, field, _block(inner, fresh))
        for handler in getattr(statement, "handlers", ()):
            handler.body = _block(handler.body, fresh)
        display = _display(statement.value) if isinstance(statement, (ast.Assign, ast.Return)) and statement.value is not None else None
        if display is None or (isinstance(statement, ast.Assign) and len(statement.targets) != 1):
            out.append(statement)
            continue
        local = fresh()
        out.append(ast.Assign(targets=[ast.Name(id=local, ctx=ast.Store())],
                              value=ast.Call(func=ast.Name(id=RECORD, ctx=ast.Load()), args=[], keywords=[])))
        for key, value in zip(display.keys, display.values):
            out.append(ast.Assign(targets=[ast.Subscript(value=ast.Name(id=local, ctx=ast.Load()), slice=key,
                                                         ctx=ast.Store())], value=value))
        statement.value = ast.Name(id=local, ctx=ast.Load())
        out.append(statement)
    return out
