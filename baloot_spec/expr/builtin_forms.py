"""Some builtins written as Python expressions where the typed tree says what their arguments are
(expr/emit.py): the same value, the same failures, without a Python call of builtins.py.

- `index(xs, v)` of a value typed list: `xs.index(v) if v in xs else -1`. `in` and `list.index`
  both compare each item by identity, then `==`, in order, so the position found and the -1 are
  what `_index` answers (it calls `xs.index` on a list). `xs` and `v` are each evaluated twice,
  so both must be repeatable (the emitter's `_trivial`), and `v` is evaluated first: it must be
  a value whose reading cannot fail (a literal, a name, a state field, a field its record type
  has), so that the first failure, if any, is still the list's.
- `round_to(x, step, half)` of an `x` typed int or bool, a literal positive int `step` and a
  literal text `half`: `(x + add) // step * step`, with add = step // 2 when half is 'up', else
  (step - 1) // 2 (`_round_to` takes every other text as 'down'). Floor division rounds a
  negative x as `_round_to`'s `x // step` does; a bool adds as 0 or 1; the result is an int.
- `unique(xs)` of a list whose items are typed as values that are never a dict or a list (a
  bool, an int, a text, none, a seat, a suit, a card): `[*_fromkeys(xs)]` (`dict.fromkeys`,
  rules/compiled.py SAFE_PY_BUILTINS). `_unique` keeps
  the first of the items equal by hash and `==` (by identity only for a dict or a list), in
  order: for those items a dict's keys are exactly that. Other items keep `b_unique`.
- `flatten(xss)` of a list whose items are typed lists: of a list display, `[*a, *b, ...]` (each
  item's items in turn, what `flatten` chains, with no call); of a comprehension, `_flat([...])`,
  which the lowering (expr/lower.py) writes as one loop that extends its list by each item, where
  `flatten` made the list of items and then chained them; a display the comprehension becomes
  when it is written out (expr/unroll.py) is the starred display. Items typed lists are lists, so
  extending by each as it is made cannot fail where chaining them afterwards would not. Other
  arguments keep `b_flatten`, as does `_flat` where it is not lowered.
"""

from __future__ import annotations

import ast

from . import tree as t
from .astutil import clone
from .builtins import REC_OWN_NAMES


def record_has(kind, field: str) -> bool:
    """Whether a value of type `kind` is a record (a `Rec`, built by a record literal) that has
    `field`: then `x[field]` reads what `x.field` reads, without the record's Python
    __getattribute__ frame. Not for a name the record has of its own (a dict method: `items`),
    which the attribute read answers with the method."""
    return kind.kind == "record" and kind.field(field) is not None and field not in REC_OWN_NAMES


def written_builtin(emitter, name: str, nodes: tuple, args: list, first_repeatable: bool) -> ast.expr | None:
    """The form of builtin `name` called on the typed `nodes` (emitted as `args`), or None."""
    if name == "index" and len(args) == 2:
        return index_of_list(args[0], args[1], _kind(emitter, nodes[0]), first_repeatable, _safe(emitter, nodes[1], args[1]))
    if name == "round_to" and len(args) == 3:
        return rounded(*args, emitter.type_of(nodes[0]).kind)
    if name == "unique" and len(args) == 1:
        return unique_of_hashable(args[0], emitter.type_of(nodes[0]))
    if name == "flatten" and len(args) == 1:
        return flat_of_lists(args[0], emitter.type_of(nodes[0]))
    return None


def _kind(emitter, node: t.Node) -> str:
    """The kind of `node`'s type; of a derived value read before its body was checked (typed
    unknown where it was read), its checked body's."""
    kind = emitter.type_of(node).kind
    if kind == "unknown" and type(node) is t.Ref and node.kind == "derived" and node.name in emitter.scope.derived:
        kind = emitter.scope.derived[node.name][0].type.kind
    return kind


def _safe(emitter, node: t.Node, emitted: ast.expr) -> bool:
    """Whether evaluating `emitted` cannot fail: a literal, a name (a parameter, a loop's
    variable), a state field, or a field of a value whose record type has it (itself safe)."""
    if isinstance(emitted, (ast.Constant, ast.Name)):
        return True
    if type(node) is t.Ref and node.kind == "state":
        return isinstance(emitted, ast.Attribute) and isinstance(emitted.value, ast.Name) and emitted.value.id == "S"
    return (type(node) is t.Attr and isinstance(emitted, ast.Subscript) and record_has(emitter.type_of(node.value), node.attr)
            and _safe(emitter, node.value, emitted.value))


def index_of_list(items: ast.expr, value: ast.expr, items_kind: str, repeatable: bool, value_safe: bool) -> ast.expr | None:
    """`xs.index(v) if v in xs else -1`, or None where the types or the operands do not allow it."""
    if items_kind != "list" or not (repeatable and value_safe):
        return None
    found = ast.Call(func=ast.Attribute(value=clone(items), attr="index", ctx=ast.Load()), args=[clone(value)], keywords=[])
    return ast.IfExp(test=ast.Compare(left=value, ops=[ast.In()], comparators=[items]), body=found,
                     orelse=ast.Constant(-1))


# The kinds whose values are never a dict or a list (expr/types.py): `_unique` compares them by
# hash and `==`, as a dict's keys do.
HASHED_KINDS = frozenset({"bool", "int", "text", "none", "seat", "suit", "card"})
FROMKEYS = "_fromkeys"   # (a global of every generated module, never rebound: expr/lower.py reads it in place)


def unique_of_hashable(items: ast.expr, kind) -> ast.expr | None:
    """`[*_fromkeys(xs)]`, or None where the items' type does not say they are hashed values."""
    if kind.kind != "list" or kind.item is None or kind.item.kind not in HASHED_KINDS:
        return None
    keys = ast.Call(func=ast.Name(id=FROMKEYS, ctx=ast.Load()), args=[items], keywords=[])
    return ast.List(elts=[ast.Starred(value=keys, ctx=ast.Load())], ctx=ast.Load())


FLAT = "_flat"   # (flatten of a comprehension of lists: a global never rebound, bound to builtins.py's `flatten`)


def flat_of_lists(items: ast.expr, kind) -> ast.expr | None:
    """`[*a, *b, ...]` or `_flat([... for ...])`, or None where the items are not typed lists
    (or the argument is neither a display nor a comprehension)."""
    if kind.kind != "list" or kind.item is None or kind.item.kind != "list":
        return None
    if isinstance(items, ast.List) and not any(isinstance(item, ast.Starred) for item in items.elts):
        return starred_display(items.elts)
    if isinstance(items, ast.ListComp):
        return ast.Call(func=ast.Name(id=FLAT, ctx=ast.Load()), args=[items], keywords=[])
    return None


def starred_display(lists: list) -> ast.List:
    """`[*a, *b, ...]`: the items of each list in turn."""
    return ast.List(elts=[ast.Starred(value=item, ctx=ast.Load()) for item in lists], ctx=ast.Load())


def rounded(x: ast.expr, step: ast.expr, half: ast.expr, x_kind: str) -> ast.expr | None:
    """`(x + add) // step * step`, or None where the types or the literals do not allow it."""
    if x_kind not in ("int", "bool"):
        return None
    if not (isinstance(step, ast.Constant) and type(step.value) is int and step.value > 0):
        return None
    if not (isinstance(half, ast.Constant) and type(half.value) is str):
        return None
    size = step.value
    add = size // 2 if half.value == "up" else (size - 1) // 2
    shifted = ast.BinOp(left=x, op=ast.Add(), right=ast.Constant(add)) if add else x
    return ast.BinOp(left=ast.BinOp(left=shifted, op=ast.FloorDiv(), right=ast.Constant(size)), op=ast.Mult(),
                     right=ast.Constant(size))
