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
read in the same pass through the body gives the object the first gave. Placement is
first_reads.py's (shared with state_reads.py), in the loop's body: the first read that always
runs there is kept where it ran (not one in a nested block), and the reads after it in the same
pass through the body use it; reads before it are left as they are.

Knows expression shapes and the loop's own names, nothing of what the rules compute. The locals
are `_fv1`, `_fv2`, ...: a prefix no other generated name has.
"""

from __future__ import annotations

import ast
from collections import Counter

from ...expr.astutil import walk
from .first_reads import Plan, Reads, plan_block

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
                # (first_reads.py: kept in the loop's own body only, a nested block using them)
                plan = Plan(PREFIX, count)
                plan_block(loop.body, Reads(item, attribute=False), {}, plan, adding=True, nested_keep=False,
                           tries=False)
                count = plan.apply()
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
