"""Counts of the items whose attribute equals a value, inside a loop that leaves the list as it
is: the attribute read once an item for the whole loop, each count one `list.count` (a pass
over a lowered generated function).

`count(x.a == v for x in xs)` is lowered to `t = 0; for x in xs: if not x.a == v: continue;
t += 1`. Inside an enclosing loop (`[... for r in ks if count(c.a == r for c in cards) == 4]`)
every turn reads the same attributes again: len(ks) * len(xs) turns of a Python loop. Here the
first count that runs reads them into a list, and every count is that list's `count(v)`:

    _cn1 = ...                      (before the enclosing loop)
    for r in ks:
        if _cn1 is ...:             (the first count: where the attributes were first read)
            _cn1 = []
            for x in xs:
                _cn1.append(x.a)
        t = _cn1.count(r)

Exact, because:
- `xs` is a name that the enclosing loop never assigns, nor calls a method of (`xs.append`): the
  generated code changes nothing but its own temporaries, so every turn would read the same
  items, and their attributes the same values (records, cards: no attribute read has effects);
- the attributes are read where the first count read them, in the same order, all of them (a
  count reads every item): one that fails fails at the same point, with the same error;
- `list.count(v)` counts the items for which `item == v` is true, the test the loop made, after
  an identity test that differs from `==` only for a value unequal to itself (a float NaN),
  which no rule value is (ints, texts, booleans, none, seats, suits, cards, records, lists);
- `v` is a name other than the item or a literal: read once a count rather than once an item,
  it is the same value; the item's name is read nowhere else in the function (its value after
  the loop is not needed).

The pass knows loops, names and statement shapes, nothing of what the rules compute.
"""

from __future__ import annotations

import ast
from collections import Counter

from ...expr.astutil import walk
from ..pyast import append, assign, attr, call, const, if_, name, store

PREFIX = "_cn"   # (the lists' names: no other generated name starts so)


def hoisted_counts(function: ast.FunctionDef) -> ast.FunctionDef:
    """`function` with its counts in loops rewritten (in place, returned). (What a count needs
    to be checked against, the names the function reads and what a loop changes, is gathered
    only once a count in a loop is found: most functions have none.)"""
    function.body = _block(function.body, None, _Names(function), [0])
    return function


class _Names:
    """How many times each name occurs in the function, counted when first asked."""

    def __init__(self, function: ast.FunctionDef):
        self.function, self.counts = function, None

    def __getitem__(self, identifier: str) -> int:
        if self.counts is None:
            self.counts = Counter(node.id for node in walk(self.function) if type(node) is ast.Name)
        return self.counts[identifier]


class _Loop:
    """The nearest enclosing `for`, and the lists made for it: (list, attribute) -> name."""

    def __init__(self, node: ast.For):
        self.node = node
        self.lists: dict = {}
        self.seen = None

    def leaves(self, identifier: str) -> bool:
        """Whether the loop neither assigns `identifier` nor reads an attribute of it (a method
        call: `xs.append`)."""
        if self.seen is None:
            self.seen = {sub.id for sub in walk(self.node) if type(sub) is ast.Name and type(sub.ctx) is not ast.Load}
            self.seen.update(sub.value.id for sub in walk(self.node)
                             if type(sub) is ast.Attribute and type(sub.value) is ast.Name)
        return identifier not in self.seen


def _block(statements: list, loop: _Loop | None, names: _Names, fresh: list) -> list:
    out = []
    i = 0
    while i < len(statements):
        statement = statements[i]
        found = _count(statement, statements[i + 1], names) if loop is not None and i + 1 < len(statements) else None
        if found is not None and loop.leaves(found[1]):
            total, items, item, field, value = found
            key = (items, field)
            made = loop.lists.get(key)
            if made is None:
                fresh[0] += 1
                made = loop.lists[key] = f"{PREFIX}{fresh[0]}"
            read = ast.For(target=store(item), iter=name(items), body=[append(made, attr(item, field))], orelse=[])
            first = ast.Compare(left=name(made), ops=[ast.Is()], comparators=[const(...)])
            out += [if_(first, [assign(made, ast.List(elts=[], ctx=ast.Load())), read]),
                    assign(total, call(attr(made, "count"), value))]
            i += 2
            continue
        if isinstance(statement, ast.For):
            inner = _Loop(statement)
            statement.body = _block(statement.body, inner, names, fresh)
            statement.orelse = _block(statement.orelse, loop, names, fresh)
            out += [assign(made, const(...)) for made in inner.lists.values()]
        elif isinstance(statement, ast.If):
            statement.body = _block(statement.body, loop, names, fresh)
            statement.orelse = _block(statement.orelse, loop, names, fresh)
        elif isinstance(statement, ast.Try):
            statement.body = _block(statement.body, loop, names, fresh)
            for handler in statement.handlers:
                handler.body = _block(handler.body, loop, names, fresh)
            statement.orelse = _block(statement.orelse, loop, names, fresh)
            statement.finalbody = _block(statement.finalbody, loop, names, fresh)
        out.append(statement)   # (a `while`, a `with`: left as they are, counts and all)
        i += 1
    return out


def _count(start: ast.stmt, loop: ast.stmt, names: _Names):
    """(total, list, item, attribute, value) if `start; loop` is `total = 0; for item in list:
    if not item.attribute == value: continue; total += 1` with `value` a name other than the
    item or a plain literal, and the item read nowhere else in the function; else None."""
    if not (type(start) is ast.Assign and len(start.targets) == 1 and type(start.targets[0]) is ast.Name
            and type(start.value) is ast.Constant and start.value.value == 0 and type(start.value.value) is int):
        return None
    total = start.targets[0].id
    if not (type(loop) is ast.For and type(loop.target) is ast.Name and type(loop.iter) is ast.Name
            and not loop.orelse and len(loop.body) == 2):
        return None
    item, items = loop.target.id, loop.iter.id
    test, add = loop.body
    if not (type(test) is ast.If and not test.orelse and len(test.body) == 1 and type(test.body[0]) is ast.Continue
            and type(add) is ast.AugAssign and type(add.op) is ast.Add and type(add.target) is ast.Name
            and add.target.id == total and type(add.value) is ast.Constant and add.value.value == 1
            and type(add.value.value) is int):
        return None
    cond = test.test
    if not (type(cond) is ast.UnaryOp and type(cond.op) is ast.Not and type(cond.operand) is ast.Compare):
        return None
    compare = cond.operand
    read = compare.left
    if not (len(compare.ops) == 1 and type(compare.ops[0]) is ast.Eq and type(read) is ast.Attribute
            and type(read.value) is ast.Name and read.value.id == item):
        return None
    value = compare.comparators[0]
    plain = type(value) is ast.Constant and type(value.value) in (str, int, bool, type(None))
    if not (plain or (type(value) is ast.Name and value.id not in (item, total))) or items in (item, total) \
            or names[item] != 2:
        return None
    return total, items, item, read.attr, value
