"""The first item whose key is the greatest, where the greatest key is a derived value: one pass.

Rules name the greatest key of a list as a derived value, `m: max(key(y) for y in xs)`, and
then look for the item that has it, `first(x for x in xs if key(x) == m)`. Emitted as written,
the keys are worked out twice (once for `m`, in its own frame, then again until the item is
found). When the tree says exactly that, the keys are worked out once, in order, and the item
is taken by the builtins `max` and `list.index`: `_first_of_max([key(x) for x in xs], xs)` (the
keys first: the lowering then needs no temporary for `xs`, read after their loop).

How the emitter knows it is the same computation: `xs` is a derived value (so both read the one
value of the position), and `m`'s body is a `max` over that same derived value, without a
condition, of a key whose tree is the first's key tree, node for node, once each loop variable
is matched with the other's (trees compare without their positions; tree.py). A key tree that
read anything of the place where `first` stands (a parameter, an outer loop's variable) could
not match `m`'s, which has no such names.

Exact: `max` keeps the first of equal greatest keys and `list.index` finds the first key equal
to it, which is the first item `key(x) == m` picks (the language's values are each equal to
themselves, and `==` between them is symmetric); no item gives None, as `first` does, and `m`
is then not needed, as before; keys that cannot be compared fail in `max` as they failed in `m`.
"""

from __future__ import annotations

import ast
from dataclasses import fields

from . import tree as t
from .types import list_of

HELPER = "_first_of_max"   # (greatest_key_item, as the generated code names it: rules/compiled.py)


def greatest_key_item(keys, items):
    """first(x for x in items if key(x) == max(keys)) given keys = [key(x) for x in items]."""
    return items[keys.index(max(keys))] if keys else None


def first_of_max(emitter, node: t.Aggregate) -> ast.expr | None:
    """The one-pass form of `node` (a `first` aggregate) if it is the pattern above, else None."""
    if node.kind != "first" or type(node.cond) is not t.Compare or node.cond.op != "==":
        return None
    if not (type(node.elem) is t.Ref and node.elem.kind == "local" and node.elem.binder is node.var):
        return None
    items = node.iterable
    if not (type(items) is t.Ref and items.kind == "derived"):
        return None
    for key, other in ((node.cond.left, node.cond.right), (node.cond.right, node.cond.left)):
        greatest = _derived_max(emitter, other)
        if greatest is not None and greatest.iterable == items and same(key, greatest.elem, {node.var: greatest.var}):
            keys = t.Aggregate("list", key, node.var, items, None, type=list_of(key.type))
            return ast.Call(func=ast.Name(id=HELPER, ctx=ast.Load()), args=[emitter.emit(keys), emitter.emit(items)],
                            keywords=[])
    return None


def _derived_max(emitter, node: t.Node) -> t.Aggregate | None:
    """The body of derived value `node` if it is `max(... for y in ...)` without a condition."""
    if not (type(node) is t.Ref and node.kind == "derived") or node.name in emitter.scope.literal_derived:
        return None
    entry = emitter.scope.derived.get(node.name)
    if entry is None:
        return None
    body = entry[0]
    if type(body) is t.Aggregate and body.kind == "max" and body.cond is None and body.type is not None:
        return body
    return None


def same(a, b, binders: dict) -> bool:
    """Whether trees `a` and `b` say the same thing once `binders` (a's loop variable -> b's)
    are matched: field by field (not positions or types), each aggregate's variable matched
    with the other's."""
    if type(a) is not type(b):
        return False
    if isinstance(a, t.Binder):
        return binders.get(a) is b
    if type(a) is tuple:
        return len(a) == len(b) and all(same(x, y, binders) for x, y in zip(a, b))
    if not isinstance(a, t.Node):
        return a == b
    if type(a) is t.Ref and a.kind == "local":   # (a loop variable is its binder, whatever its name)
        return b.kind == "local" and binders.get(a.binder) is b.binder
    if type(a) is t.Aggregate:
        binders = {**binders, a.var: b.var}
    return all(same(getattr(a, f.name), getattr(b, f.name), binders) for f in fields(a) if f.compare)
