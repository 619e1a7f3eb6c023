"""Loops over a short list known when the rules compile, written out item by item.

`map(... for t in const.teams)` compiles to a dict comprehension over `k_teams`. In CPython 3.11
every comprehension makes a function object and runs a frame of its own: 0.1-0.27 us more than the
same two items written out (`{'NS': ..., 'EW': ...}`), and the scoring alone has a dozen such maps.
Written out, the same expressions run in the same order, in the enclosing function.

Only a loop whose iterable is a constant list of at most MAX_ITEMS plain values (a `k_` table the
rules declare, or a literal list), with one `for`, and whose loop variable nothing inside binds
again, is written out:

- `{v: e for v in xs}` becomes a dict display, `[e for v in xs]` a list display (no `if`);
- `next((e for v in xs if c), d)` (first / any / all) becomes `e1 if c1 else (e2 if c2 else d)`,
  which evaluates the same tests and items, lazily, in the same order;
- `max([e for v in xs] or [None])` becomes `max([e1, e2])`: a list display of items is never
  empty, so the `or` hands on nothing;
- `_flat([e for v in xs])` (flatten of lists, expr/builtin_forms.py) becomes `[*e1, *e2]`.

This works on the emitted `ast`, never on rule text nor on generated text.
"""

from __future__ import annotations

import ast

from .astutil import clone, walk
from .builtin_forms import FLAT, starred_display

MAX_ITEMS = 4


def unroll(node: ast.expr, constants: tuple) -> ast.expr:
    """An emitted `ast` expression (expr/emit.py) with such loops written out, changed in place
    (it must not be shared): a new node where the whole of it was a loop, `node` itself otherwise.
    `constants` (from short_lists) pairs a generated constant's name (`k_teams`) with its items."""
    table = dict(constants)
    if not any(isinstance(sub, _LOOPS) and _over_short(sub.generators[0].iter, table) for sub in walk(node)):
        return node   # (no loop over a short list: nothing to write out, and no tree rebuilt)
    wrapper = ast.Expression(body=node)
    _Unroller(table).visit(wrapper)
    return wrapper.body


_LOOPS = (ast.ListComp, ast.DictComp, ast.GeneratorExp)


def _over_short(iterable, table: dict) -> bool:
    """Whether a loop's iterable may be a short constant list (what _Unroller._loop accepts)."""
    return (isinstance(iterable, ast.Name) and iterable.id in table) or isinstance(iterable, ast.List)


def short_lists(constants: dict) -> tuple:
    """The constants a loop may be written out over: (`k_<name>`, their items) pairs."""
    return tuple((f"k_{name}", tuple(value)) for name, value in sorted(constants.items()) if _items(value) is not None)


def _items(value):
    if isinstance(value, (list, tuple)) and len(value) <= MAX_ITEMS and all(
            v is None or type(v) in (str, int, bool) for v in value):
        return tuple(value)
    return None


class _Unroller(ast.NodeTransformer):
    def __init__(self, constants: dict):
        self.constants = constants

    def _loop(self, generators):
        """(loop variable, items) of a single plain `for` over a short constant list, or None."""
        if len(generators) != 1:
            return None
        loop = generators[0]
        if loop.is_async or not isinstance(loop.target, ast.Name):
            return None
        if isinstance(loop.iter, ast.Name) and loop.iter.id in self.constants:
            items = self.constants[loop.iter.id]
        elif isinstance(loop.iter, ast.List) and all(isinstance(e, ast.Constant) for e in loop.iter.elts):
            items = _items([e.value for e in loop.iter.elts])
        else:
            return None
        if items is None:
            return None
        return loop.target.id, items

    def visit_DictComp(self, node):
        self.generic_visit(node)   # (inner loops first)
        found = self._loop(node.generators)
        if found is None or node.generators[0].ifs or _binds(found[0], node.key, node.value):
            return node
        name, items = found
        return ast.copy_location(ast.Dict(keys=[_with(node.key, name, v) for v in items],
                                          values=[_with(node.value, name, v) for v in items]), node)

    def visit_ListComp(self, node):
        self.generic_visit(node)
        found = self._loop(node.generators)
        if found is None or node.generators[0].ifs or _binds(found[0], node.elt):
            return node
        name, items = found
        return ast.copy_location(ast.List(elts=[_with(node.elt, name, v) for v in items], ctx=ast.Load()), node)

    def visit_BoolOp(self, node):
        """`[e1, e2] or [None]` (max/min of a list written out): the display, never empty, decides."""
        self.generic_visit(node)
        first = node.values[0]
        if (isinstance(node.op, ast.Or) and isinstance(first, ast.List) and first.elts
                and not any(isinstance(elt, ast.Starred) for elt in first.elts)):
            return first
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if (isinstance(node.func, ast.Name) and node.func.id == FLAT and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.List)):   # (flatten of lists, written out: their items in turn)
            return ast.copy_location(starred_display(node.args[0].elts), node)
        if not (isinstance(node.func, ast.Name) and node.func.id == "next" and len(node.args) == 2
                and not node.keywords and isinstance(node.args[0], ast.GeneratorExp)):
            return node
        gen, default = node.args
        found = self._loop(gen.generators)
        ifs = gen.generators[0].ifs if found else []
        if found is None or _binds(found[0], gen.elt, *ifs):
            return node
        name, items = found
        result = default
        for value in reversed(items):
            item = _with(gen.elt, name, value)
            if not ifs:
                result = item
                continue
            tests = [_with(test, name, value) for test in ifs]
            test = tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.And(), values=tests)
            result = ast.IfExp(test=test, body=item, orelse=result)
        return ast.copy_location(result, node)


def _binds(name: str, *nodes) -> bool:
    """Whether `name` is bound anywhere inside `nodes` (a loop variable, :=, a lambda's)."""
    for node in nodes:
        for sub in walk(node):
            if isinstance(sub, ast.Name) and sub.id == name and not isinstance(sub.ctx, ast.Load):
                return True
            if isinstance(sub, ast.arg) and sub.arg == name:
                return True
    return False


def _with(node, name: str, value):
    """A copy of `node` with every read of `name` replaced by the constant `value`."""
    class Substitute(ast.NodeTransformer):
        def visit_Name(self, sub):
            if sub.id == name:
                return ast.copy_location(ast.Constant(value), sub)
            return sub
    return Substitute().visit(clone(node))
