"""Where a repeated read runs, for the passes that keep it in a local: field_reads.py (a loop
item's field, `x['k']`) and state_reads.py (a state field, `S.x`).

A read is kept where it first ran, as `(_p1 := read)`, only where it always runs when its
statement does (not in a conditional's branch, a short-circuit's later operand, a chained
comparison's later link, a nested scope); a later read of the same key in the same pass becomes
the local. "Later" is the order CPython evaluates: a statement's value before its targets, left
before right, a call's function then its arguments, a test before its branches; in the same
statement, a later statement of the same block, or a block nested there. So no read is added
to a path that had none and none moves before anything that could fail first. One walk for
both passes: what differs is which reads count (`Reads`) and which blocks may keep their own.
"""

from __future__ import annotations

import ast


class Reads:
    """The reads a pass counts: `name.attr` (`attribute=True`; names starting with `_` left) or
    `name['text']`, each a Load; its key is the attribute or the text."""

    __slots__ = ("name", "attribute")

    def __init__(self, name: str, attribute: bool):
        self.name, self.attribute = name, attribute

    def key(self, node):
        """The key of `node` if it is such a read, else None."""
        value = node.value
        if type(value) is not ast.Name or value.id != self.name or type(node.ctx) is not ast.Load:
            return None
        if self.attribute:
            return None if node.attr.startswith("_") else node.attr
        index = node.slice
        return index.value if type(index) is ast.Constant and type(index.value) is str else None


class Plan:
    """The reads kept (the first of a key that always runs) and the reads of their locals, each
    with where it stands (its holder: a node and a field, or a list and an index)."""

    def __init__(self, prefix: str, count: int = 0):
        self.prefix, self.count, self.first, self.uses = prefix, count, {}, {}

    def keep(self, place) -> int:
        local = len(self.first) + 1
        self.first[local], self.uses[local] = place, []
        return local

    def used(self) -> bool:
        return any(self.uses.values())

    def apply(self) -> int:
        """The kept reads some later read uses made `(_pN := read)` (numbered on from `count`,
        in order), and those reads the local; a local no later read uses is not made (a store for
        nothing). Returns the last number given."""
        for local, (read, holder, key) in self.first.items():
            if self.uses[local]:
                self.count += 1
                name = f"{self.prefix}{self.count}"
                _put(holder, key, ast.NamedExpr(target=ast.Name(id=name, ctx=ast.Store()), value=read))
                for _, use_holder, use_key in self.uses[local]:
                    _put(use_holder, use_key, ast.Name(id=name, ctx=ast.Load()))
        self.first, self.uses = {}, {}
        return self.count


def _put(holder, key, node) -> None:
    if type(holder) is list:
        holder[key] = node
    else:
        setattr(holder, key, node)


def plan_block(statements: list, reads: Reads, known: dict, plan: Plan, adding: bool, nested_keep: bool,
               tries: bool) -> None:
    """Each statement of a block run in order: its reads planned as uses of what `known` holds
    (key -> local), and, where `adding`, its first reads that always run kept. A nested block
    starts from a copy of `known` and keeps its own first reads where `nested_keep`; a `try`'s
    blocks are planned where `tries` (after it, only what was known before: its body may stop
    anywhere). Anything else, a while, a with: left as it is."""
    for statement in statements:
        kind = type(statement)
        if kind in (ast.Assign, ast.Expr, ast.Return, ast.AugAssign):
            if statement.value is not None:
                _expression(statement, "value", reads, known, plan, adding)
        elif kind is ast.If or kind is ast.For:
            _expression(statement, "test" if kind is ast.If else "iter", reads, known, plan, adding)
            plan_block(statement.body, reads, dict(known), plan, nested_keep, nested_keep, tries)
            plan_block(statement.orelse, reads, dict(known), plan, nested_keep, nested_keep, tries)
        elif kind is ast.Try and tries:
            for block in (statement.body, *(h.body for h in statement.handlers), statement.orelse,
                          statement.finalbody):
                plan_block(block, reads, dict(known), plan, nested_keep, nested_keep, tries)


def _expression(statement, field: str, reads: Reads, known: dict, plan: Plan, adding: bool) -> None:
    found: list = []
    _ordered(getattr(statement, field), reads, True, found, statement, field)
    for read, key, always, holder, where in found:
        local = known.get(key)
        if local is not None:
            plan.uses[local].append((read, holder, where))
        elif always and adding:
            known[key] = plan.keep((read, holder, where))


def _ordered(node, reads: Reads, always: bool, found: list, holder, where) -> None:
    """`found` gets each read of `reads` in `node` as (node, its key, whether it runs whenever
    `node` does, its holder and place there), in the order CPython evaluates them; nested scopes
    are not entered."""
    kind = type(node)
    if kind is ast.Attribute or kind is ast.Subscript:
        if (kind is ast.Attribute) is reads.attribute:
            key = reads.key(node)
            if key is not None:
                found.append((node, key, always, holder, where))
                return
        _ordered(node.value, reads, always, found, node, "value")
        if kind is ast.Subscript:
            _ordered(node.slice, reads, always, found, node, "slice")
    elif kind is ast.IfExp:
        _ordered(node.test, reads, always, found, node, "test")
        _ordered(node.body, reads, False, found, node, "body")
        _ordered(node.orelse, reads, False, found, node, "orelse")
    elif kind is ast.BoolOp:
        values = node.values
        for k, value in enumerate(values):
            _ordered(value, reads, always and k == 0, found, values, k)
    elif kind is ast.Compare:
        _ordered(node.left, reads, always, found, node, "left")
        comparators = node.comparators
        for k, value in enumerate(comparators):
            _ordered(value, reads, always and k == 0, found, comparators, k)
    elif kind is ast.Call:
        _ordered(node.func, reads, always, found, node, "func")
        args = node.args
        for k, arg in enumerate(args):
            _ordered(arg, reads, always, found, args, k)
        for keyword in node.keywords:
            _ordered(keyword.value, reads, always, found, keyword, "value")
    elif kind is ast.Dict:
        keys, values = node.keys, node.values
        for k, value in enumerate(values):
            if keys[k] is not None:
                _ordered(keys[k], reads, always, found, keys, k)
            _ordered(value, reads, always, found, values, k)
    elif kind in _IN_ORDER:
        for field in node._fields:   # (in field order: the order they run)
            value = getattr(node, field, None)
            if type(value) is list:
                for k, item in enumerate(value):
                    _ordered(item, reads, always, found, value, k)
            elif isinstance(value, ast.expr):
                _ordered(value, reads, always, found, node, field)
    # (a name, a literal, a nested scope, anything else: no read of it counted)


_IN_ORDER = (ast.BinOp, ast.UnaryOp, ast.List, ast.Tuple, ast.Set, ast.Starred, ast.NamedExpr, ast.JoinedStr,
             ast.FormattedValue)
