"""A loop item's field read again in the loop's body is read once: `x['k']`, x the name a `for`
binds, k a text, kept in a local where a read of it always runs, `(_fv1 := x['k'])`, and that
local read at the reads that run after it in the same pass through the body.

A comprehension over records, lowered to a loop, reads each item's fields as often as the rule
names them: the projects' sort key reads each declared project's `project` three times and its
`seat` twice (the second in a conditional's branch, after the test read it); a record's read by
key goes through CPython's generic `slot_mp_subscript` (~274 machine instructions, a dict's ~195).

Exact because: nothing in the body binds x again, stores into it by key or reads an attribute of
it (no method of it runs), and a record's fields are not changed after its fill (record_stores.py:
a value a rule expression makes is never changed in place; effects set state fields), so a later
read in the same pass through the body gives the object the first gave. The first read is kept
where it ran, and only one that always runs when its statement does (not in a conditional's
branch, a short-circuit's later operand, a chained comparison's later link, a nested block or
scope); a read replaced runs after it (in the order CPython evaluates: a statement's value
before its targets, left before right, a call's function then its arguments, a test before its
branches) in the same pass: in the same statement, or a later statement of the same block, or a
block nested there. Reads before the first one that always runs are left as they are.

Knows expression shapes and the loop's own names, nothing of what the rules compute. The locals
are `_fv1`, `_fv2`, ...: a prefix no other generated name has.
"""

from __future__ import annotations

import ast
from collections import Counter

from ...expr.astutil import walk

PREFIX = "_fv"
_NESTED = ("body", "orelse", "finalbody")


def field_reads(function: ast.FunctionDef) -> ast.FunctionDef:
    """`function` with such reads kept in locals (changed in place, returned)."""
    count = 0
    for outer in _loops(function.body, False):
        facts = _Facts(outer)   # (one walk of the outermost loop's body: its nested loops' too)
        for loop in [outer, *_loops(outer.body, True)]:
            item = loop.target.id
            if facts.kept(item, loop is not outer):
                plan = _Plan(count)
                _block(loop.body, item, {}, True, plan)
                swap = plan.swap()
                if swap:
                    count = plan.count
                    _Swap(swap).visit(loop)
    return function


def _loops(block: list, nested: bool):
    """Every `for` over a name in `block` and the blocks inside it (statements only: cheaper
    than every node; a nested function is not entered), or the outermost ones only."""
    for statement in block:
        kind = type(statement)
        if kind in (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef):
            continue
        if kind is ast.For and type(statement.target) is ast.Name:
            yield statement
            if not nested:
                continue
        for field in _NESTED:
            inner = getattr(statement, field, None)
            if type(inner) is list:
                yield from _loops(inner, nested)
        for handler in getattr(statement, "handlers", ()):
            yield from _loops(handler.body, nested)


class _Facts:
    """What an outermost loop's body does with names, in one walk: all that could run between
    two reads of one pass through it, or through a loop nested in it, is in that body."""

    def __init__(self, loop):
        self.bound, self.unsafe, self.reads = Counter(), set(), Counter()
        for node in walk(ast.Module(body=loop.body, type_ignores=[])):
            kind = type(node)
            if kind is ast.Name:
                if type(node.ctx) is not ast.Load:
                    self.bound[node.id] += 1
            elif kind is ast.Subscript or kind is ast.Attribute:
                if type(node.value) is ast.Name:
                    if kind is ast.Attribute or type(node.ctx) is not ast.Load:
                        self.unsafe.add(node.value.id)
                    elif type(node.slice) is ast.Constant and type(node.slice.value) is str:
                        self.reads[node.value.id, node.slice.value] += 1
            elif kind is ast.arg:
                self.bound[node.arg] += 1
        self.again = {name for (name, _), n in self.reads.items() if n > 1}

    def kept(self, item: str, nested: bool) -> bool:
        """Whether some field of `item` is read twice by a literal key, and nothing binds `item`
        again (a nested loop's own `for` binds it once in the body), stores into it by key or
        reads an attribute of it (a method)."""
        return item in self.again and self.bound[item] == (1 if nested else 0) and item not in self.unsafe


class _Plan:
    """The reads kept (the first of a key that always runs) and the reads of their locals; a
    local no later read uses is not made (a store for nothing)."""

    def __init__(self, count: int):
        self.count, self.first, self.uses = count, {}, {}

    def keep(self, read) -> str:
        self.count += 1
        local = f"{PREFIX}{self.count}"
        self.first[local], self.uses[local] = read, []
        return local

    def swap(self) -> dict:
        """id(read) -> its replacement, for the locals some read uses (numbered again in order)."""
        swap, number = {}, self.count - len(self.first)
        for local, read in self.first.items():
            if self.uses[local]:
                number += 1
                name = f"{PREFIX}{number}"
                swap[id(read)] = ast.NamedExpr(target=ast.Name(id=name, ctx=ast.Store()), value=read)
                for use in self.uses[local]:
                    swap[id(use)] = ast.Name(id=name, ctx=ast.Load())
        self.count = number
        return swap


def _block(statements: list, item: str, known: dict, adding: bool, plan: _Plan) -> None:
    """Each statement of a block run in order: its reads of `item` planned as uses of what
    `known` holds (key -> local), and, where `adding`, its first reads that always run kept."""
    for statement in statements:
        kind = type(statement)
        if kind in (ast.Assign, ast.Expr, ast.Return, ast.AugAssign):
            if statement.value is not None:
                _expression(statement.value, item, known, adding, plan)
        elif kind is ast.If:
            _expression(statement.test, item, known, adding, plan)
            _block(statement.body, item, dict(known), False, plan)
            _block(statement.orelse, item, dict(known), False, plan)
        elif kind is ast.For:
            _expression(statement.iter, item, known, adding, plan)
            _block(statement.body, item, dict(known), False, plan)
            _block(statement.orelse, item, dict(known), False, plan)
        # (anything else, a while, a try, a with: left as it is)


def _expression(node, item: str, known: dict, adding: bool, plan: _Plan) -> None:
    reads: list = []
    _ordered(node, item, True, reads)
    if not reads:
        return
    for read, always in reads:
        key = read.slice.value
        local = known.get(key)
        if local is not None:
            plan.uses[local].append(read)
        elif always and adding:
            known[key] = plan.keep(read)


def _ordered(node, item: str, always: bool, reads: list) -> None:
    """`reads` gets each `item['k']` in `node` as (node, whether it runs whenever `node` does),
    in the order CPython evaluates them; nested scopes are not entered."""
    kind = type(node)
    if kind is ast.Subscript:
        if (type(node.value) is ast.Name and node.value.id == item and type(node.ctx) is ast.Load
                and type(node.slice) is ast.Constant and type(node.slice.value) is str):
            reads.append((node, always))
            return
        _ordered(node.value, item, always, reads)
        _ordered(node.slice, item, always, reads)
    elif kind is ast.IfExp:
        _ordered(node.test, item, always, reads)
        _ordered(node.body, item, False, reads)
        _ordered(node.orelse, item, False, reads)
    elif kind is ast.BoolOp:
        for k, value in enumerate(node.values):
            _ordered(value, item, always and k == 0, reads)
    elif kind is ast.Compare:
        _ordered(node.left, item, always, reads)
        for k, value in enumerate(node.comparators):
            _ordered(value, item, always and k == 0, reads)
    elif kind is ast.Call:
        _ordered(node.func, item, always, reads)
        for arg in node.args:
            _ordered(arg, item, always, reads)
        for keyword in node.keywords:
            _ordered(keyword.value, item, always, reads)
    elif kind is ast.Dict:
        for key, value in zip(node.keys, node.values):
            if key is not None:
                _ordered(key, item, always, reads)
            _ordered(value, item, always, reads)
    elif kind in (ast.BinOp, ast.UnaryOp, ast.Attribute, ast.List, ast.Tuple, ast.Set, ast.Starred,
                  ast.NamedExpr, ast.JoinedStr, ast.FormattedValue):
        for child in ast.iter_child_nodes(node):   # (in field order: the order they run)
            _ordered(child, item, always, reads)
    # (a name, a literal, a nested scope, anything else: no read of it counted)


class _Swap(ast.NodeTransformer):
    def __init__(self, swap: dict):
        self.swap = swap

    def visit_Subscript(self, node):
        new = self.swap.get(id(node))
        return new if new is not None else self.generic_visit(node)
