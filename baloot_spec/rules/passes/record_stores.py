"""Records built by item stores: in a lowered generated function, a statement whose whole value
is a record display with literal keys, `x = _R({'a': e1, 'b': e2})` (a map over a short constant
list written out, expr/unroll.py; the facts and steps read back as one record, fuse.py
record_of), becomes `t = _R(); t['a'] = e1; t['b'] = e2; x = t`; so does a record literal
(`_R(a=e1, b=e2)`, expr/emit.py), and one appended to a list the function made (`xs.append(...)`:
a list comprehension of records, written out as a loop by expr/lower.py).

A record is a dict subclass (expr/builtins.py Rec): making one from a dict display builds the
dict, then the record, copying every entry into it (CPython's quick copy is for plain dicts
only), and keyword arguments make a dict of their own too; storing the items into an empty
record builds one table. In CPython 3.11 a record of two entries costs about 40 % less this way
(25-35 % from keywords), one of 37 about as much.

The same values are worked out in the same order, and the same keys end in the same order with
the same values (a key given twice keeps its first place and its last value, as in a display).
If a value fails, the record being filled is a local nobody reads: the statement fails as it did.
"""

from __future__ import annotations

import ast

from ...expr.astutil import walk

RECORD = "_R"


def record_stores(function: ast.FunctionDef) -> ast.FunctionDef:
    """`function` with each such statement rewritten (changed in place, returned). The records
    are filled in locals `_rec1`, `_rec2`, ...: a prefix no other generated name has (the
    emitter's are `v_`, `k_`, `f_`, `b_`, `_h_`; the lowering's `_t`, `_l`)."""
    counter = [0]
    lists: list = []   # (the function's new lists, found when first asked: most functions have no record to append)

    def fresh() -> str:
        counter[0] += 1
        return f"_rec{counter[0]}"

    def new_lists() -> set:
        if not lists:
            lists.append(_lists(function))
        return lists[0]

    function.body = _block(function.body, fresh, new_lists)
    return function


def _display(value) -> list | None:
    """[(key, value)] of `_R({...})` whose keys are all literals, or of `_R(name=..., ...)`; else None."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == RECORD):
        return None
    if len(value.args) == 1 and not value.keywords and isinstance(value.args[0], ast.Dict):
        display = value.args[0]
        if display.keys and all(isinstance(k, ast.Constant) for k in display.keys):
            return list(zip(display.keys, display.values))
    if not value.args and value.keywords and all(k.arg is not None for k in value.keywords):
        return [(ast.Constant(k.arg), k.value) for k in value.keywords]
    return None


def _lists(function) -> set:
    """Names that the function only ever sets to a new empty list (their `.append` cannot fail)."""
    lists, other = set(), set()
    for n in walk(function):
        if isinstance(n, ast.Assign):
            for target in n.targets:
                if isinstance(target, ast.Name):
                    empty = isinstance(n.value, ast.List) and not n.value.elts and len(n.targets) == 1
                    (lists if empty else other).add(target.id)
        elif isinstance(n, (ast.AugAssign, ast.For, ast.comprehension)) and isinstance(n.target, ast.Name):
            other.add(n.target.id)
        elif isinstance(n, ast.NamedExpr):
            other.add(n.target.id)
        elif isinstance(n, ast.arg):
            other.add(n.arg)
    return lists - other


def _appended(statement, lists):
    """The call `t.append(_R(...))` of the statement, t one of `lists()`, else None."""
    if not isinstance(statement, ast.Expr):
        return None
    call = statement.value
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords
            and _display(call.args[0]) is not None and call.func.value.id in lists()):
        return call
    return None


def _block(statements: list, fresh, lists) -> list:
    out = []
    for statement in statements:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if inner:
                setattr(statement, field, _block(inner, fresh, lists))
        for handler in getattr(statement, "handlers", ()):
            handler.body = _block(handler.body, fresh, lists)
        holder, items = None, None
        if isinstance(statement, (ast.Assign, ast.Return)) and statement.value is not None:
            if not (isinstance(statement, ast.Assign) and len(statement.targets) != 1):
                holder, items = statement, _display(statement.value)
        else:
            call = _appended(statement, lists)
            if call is not None:   # (`t.append` of a new empty list: found after the values, nothing changes)
                holder, items = call, _display(call.args[0])
        if items is None:
            out.append(statement)
            continue
        local = fresh()
        out.append(ast.Assign(targets=[ast.Name(id=local, ctx=ast.Store())],
                              value=ast.Call(func=ast.Name(id=RECORD, ctx=ast.Load()), args=[], keywords=[])))
        for key, value in items:
            out.append(ast.Assign(targets=[ast.Subscript(value=ast.Name(id=local, ctx=ast.Load()), slice=key,
                                                         ctx=ast.Store())], value=value))
        if holder is statement:
            statement.value = ast.Name(id=local, ctx=ast.Load())
        else:
            holder.args = [ast.Name(id=local, ctx=ast.Load())]
        out.append(statement)
    return out
