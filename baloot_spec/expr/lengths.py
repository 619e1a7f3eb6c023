"""Code specialised on the length of a list the engine keeps: loops over it written out.

The engine knows how long some of its lists are when it calls a generated function (a trick
phase's current trick: 0 .. seats-1 cards when it narrows a player's cards, every seat's when it
asks the winner; engine/state.py CURRENT_TRICK). A function compiled for one length (expr/emit.py,
`lengths`: state field -> length) then reads `len(S.f)` as a constant, which the emitter folds
with the comparisons, `and`/`or`, `not` and `x if c else y` around it, and an aggregate over `S.f`
as its items written out, `S.f[0]`, `S.f[1]`, ... in order: the same items read, the same
operations, in the same order, without a loop or a list built only to be iterated.

Written out here (the emitted elements and conditions, one per item, are given):

- `[e for x in xs]` -> `[e0, e1, ...]`;
- `max(e for x in xs)` / `min` -> `max(e0, e1, ...)` (the builtin's own loop over its arguments:
  the first of equal items wins, as over a list), `e0` for one item, `None` for none;
- sum of ints -> `e0 + e1 ...` (`0 + e0` for one item, `0` for none); count -> `(1 if t0 else 0) + ...`;
- first / any / all -> a chain of `x if c else ...` that stops where the loop would stop;

and, from the shape of the written-out list, `index(xs, v)` of such a list of ints, texts or
booleans -> `0 if xs[0] == v else 1 if ... else -1` (what builtins.py `_index` answers),
`index(xs, max(xs))` (min) -> `0 if xs[0] >= xs[1] and ... else 1 if ... else n-1`, and
`max([*xs] or [None])` of a list known not empty -> `max(xs)`.
"""

from __future__ import annotations

import ast

from .astutil import clone

# The item types whose `==` is plain equality (what list.index's identity-or-equality decides).
_PLAIN_ITEMS = frozenset({"int", "bool", "text", "seat", "suit"})


def known_length(node: ast.expr, lengths: dict | None) -> int | None:
    """The length of `S.<field>` when the code is specialised on it, else None."""
    if (lengths and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "S" and node.attr in lengths):
        return lengths[node.attr]
    return None


def item_of(items: ast.expr, position: int) -> ast.Subscript:
    """`items[position]` (a copy of `items`)."""
    return ast.Subscript(value=clone(items), slice=ast.Constant(position), ctx=ast.Load())


def writable(kind: str, has_cond: bool, numeric: bool) -> bool:
    """Whether `written` can write out an aggregate of this kind (with a condition or not)."""
    if kind in ("first", "any", "all", "count"):
        return True
    if kind in ("list", "max", "min"):
        return not has_cond
    return kind == "sum" and numeric and not has_cond


def written(kind: str, elems: list, conds: list | None) -> ast.expr:
    """The aggregate over the items written out (`writable` said yes): `elems` and `conds` are
    the element and the condition (or None) emitted for each item, in order."""
    count = len(elems)
    if kind == "list":
        return ast.List(elts=elems, ctx=ast.Load())
    if kind in ("max", "min"):
        if count == 0:
            return ast.Constant(None)
        if count == 1:
            return elems[0]
        return ast.Call(func=ast.Name(id=kind, ctx=ast.Load()), args=elems, keywords=[])
    if kind == "sum":
        # (`0 +` first only for fewer than two items: two ints or bools added are an int, as
        # their sum is; one bool alone is not)
        total, elems = (ast.Constant(0), elems) if count < 2 else (elems[0], elems[1:])
        for elem in elems:
            total = ast.BinOp(left=total, op=ast.Add(), right=elem)
        return total
    tests = [_both(conds[i] if conds else None, elems[i]) for i in range(count)]
    if kind == "count":
        if count == 0:
            return ast.Constant(0)
        total = None
        for test in tests:
            one = (ast.Constant(int(bool(test.value))) if isinstance(test, ast.Constant)
                   else ast.IfExp(test=test, body=ast.Constant(1), orelse=ast.Constant(0)))
            total = one if total is None else ast.BinOp(left=total, op=ast.Add(), right=one)
        return total
    if kind == "first":
        result, values = ast.Constant(None), elems
        tests = list(conds) if conds else [None] * count
    elif kind == "any":
        result, values = ast.Constant(False), [ast.Constant(True)] * count
    else:   # all: the first item whose element is false decides
        result, values = ast.Constant(True), [ast.Constant(False)] * count
        tests = [_both(conds[i] if conds else None, ast.UnaryOp(op=ast.Not(), operand=elems[i])) for i in range(count)]
    for test, value in zip(reversed(tests), reversed(values)):
        if test is None or (isinstance(test, ast.Constant) and test.value):
            result = clone(value)
        elif not isinstance(test, ast.Constant):
            result = ast.IfExp(test=test, body=clone(value), orelse=result)
    return result


def _both(cond, elem):
    """`cond and elem` as a test (a literal condition decided: the emitter folded it)."""
    if cond is None or (isinstance(cond, ast.Constant) and cond.value):
        return elem
    if isinstance(cond, ast.Constant):
        return ast.Constant(False)
    return ast.BoolOp(op=ast.And(), values=[cond, elem])


def list_length(node: ast.expr) -> int | None:
    """The length of a list display with no starred item, or of a derived value's lazy local
    whose body is one (`(_h_x if _h_x is not ... else (_h_x := [a, b]))`), else None."""
    if isinstance(node, ast.IfExp) and isinstance(node.orelse, ast.NamedExpr) and _lazy_read(node):
        node = node.orelse.value
    if isinstance(node, ast.List) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return len(node.elts)
    return None


def _lazy_read(node: ast.IfExp) -> bool:
    test = node.test
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.IsNot) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is Ellipsis and isinstance(node.body, ast.Name)
            and node.body.id == test.left.id == node.orelse.target.id)


def _repeatable(node: ast.expr) -> bool:
    """Whether `node` may be evaluated again at the same cost as a name: a name, a constant, or
    a lazy local (read once, then a local: rules/passes/settled.py)."""
    return isinstance(node, (ast.Name, ast.Constant)) or (
        isinstance(node, ast.IfExp) and isinstance(node.orelse, ast.NamedExpr) and _lazy_read(node))


def written_index(items: ast.expr, value: ast.expr, item_kind: str | None) -> ast.expr | None:
    """`index(items, value)` of a list of known length, or None. Where `value` is the max (min)
    of that same non-empty list, it is in it: `items.index(value)`, what builtins.py `_index`
    calls. Else, for a lazy local (evaluated once, then a local) of plain items and a repeatable
    `value`, a chain of tests evaluated in the same order as the call (the list, then the
    value): an item equal to the value is found at the same position, one not there gives -1."""
    count = list_length(items)
    extreme = _extreme_of(value, items) if count else None
    if extreme:
        if item_kind in _PLAIN_ITEMS and 2 <= count <= _FIRST_EXTREME_MOST and _repeatable(items):
            return _first_extreme(items, count, extreme)
        return ast.Call(func=ast.Attribute(value=items, attr="index", ctx=ast.Load()), args=[value], keywords=[])
    if count is None or item_kind not in _PLAIN_ITEMS or not (_repeatable(items) and not isinstance(items, ast.List)):
        return None
    if not _repeatable(value):
        return None
    result: ast.expr = ast.Constant(-1)
    for position in reversed(range(count)):
        test = ast.Compare(left=item_of(items, position), ops=[ast.Eq()], comparators=[clone(value)])
        result = ast.IfExp(test=test, body=ast.Constant(position), orelse=result)
    return result


# (at most this many items: the chain has count * (count - 1) / 2 comparisons in its code)
_FIRST_EXTREME_MOST = 6


def _first_extreme(items: ast.expr, count: int, kind: str) -> ast.expr:
    """`items.index(max(items))` (min) of `count` >= 2 plain items as a chain of comparisons:
    position i if its item is >= (<=) every later one, the last position else. Reached, every
    earlier item is below (above) a later one, so this is the first greatest (least) item, what
    max (which keeps the first of equal items) then index find. Every item is compared at least
    once, so a list that cannot be compared fails here too (a TypeError, as max's). The max
    itself is not computed: a derived value, without side effects; where its lazy local is read
    again later, that read computes it (rules/passes/settled.py sees the code as it is). No call,
    no iterator, no argument tuple: ~3 specialised int comparisons where max and index took ~2,000
    machine instructions and ~35 mispredicted branches (tools/BENCHMARKS.md, step 108)."""
    op = ast.GtE if kind == "max" else ast.LtE
    result: ast.expr = ast.Constant(count - 1)
    for position in reversed(range(count - 1)):
        tests = [ast.Compare(left=item_of(items, position), ops=[op()], comparators=[item_of(items, later)])
                 for later in range(position + 1, count)]
        test = tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.And(), values=tests)
        result = ast.IfExp(test=test, body=ast.Constant(position), orelse=result)
    return result


def _extreme_of(value: ast.expr, items: ast.expr) -> str | None:
    """"max" or "min" where `value` is `max(items)` or `min(items)` (or a lazy local holding it),
    `items` being a lazy local: read as itself, and so always the same list; else None."""
    if isinstance(value, ast.IfExp) and isinstance(value.orelse, ast.NamedExpr) and _lazy_read(value):
        value = value.orelse.value
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("max", "min")
            and len(value.args) == 1 and not value.keywords):
        return None
    local = _local_of(items)
    return value.func.id if local is not None and _local_of(value.args[0]) == local else None


def _local_of(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.IfExp) and isinstance(node.orelse, ast.NamedExpr) and _lazy_read(node):
        return node.body.id
    return None


def max_of_known_list(call: ast.Call) -> ast.expr | None:
    """`max([*xs] or [None])` (and min) of a list `xs` known not empty by its shape -> `max(xs)`."""
    if not (isinstance(call.func, ast.Name) and call.func.id in ("max", "min") and len(call.args) == 1):
        return None
    arg = call.args[0]
    if not (isinstance(arg, ast.BoolOp) and isinstance(arg.op, ast.Or) and len(arg.values) == 2):
        return None
    listed = arg.values[0]
    if not (isinstance(listed, ast.List) and len(listed.elts) == 1 and isinstance(listed.elts[0], ast.Starred)):
        return None
    items = listed.elts[0].value
    if not list_length(items):
        return None
    return ast.Call(func=call.func, args=[items], keywords=[])
