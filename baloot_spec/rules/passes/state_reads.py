"""A state field read again in a generated function is read once: `S.x`, kept in a local where
a read of it always runs, `(_sv1 := S.x)`, and that local read at the reads that run after it.

The rules name state fields as often as they read them: the play phase's trick winner reads
`S.trick` five times in one expression, the score facts read `S.tricks` in every loop, the
announcement checks `S.actor` and `S.declared` in loops. Each `S.x` is a LOAD_FAST and a
LOAD_ATTR (a slot's read, still a few dozen machine instructions) where a local is one LOAD_FAST.

Exact because the function cannot give `S.x` another value between two reads: nothing in it
stores to or deletes an attribute or an item of S, or binds S; and S itself reaches only an
attribute read or a call of a function that reads the state (a rule function `f_...`, a keyed
derived value's body, `_keyed_fill`, `_LazyMap`: none sets a state field, the language's derived
values being pure and effects the only writers). A function that passes S anywhere else (an
effect, a narrowing picked at run time, a value holding it) is left as it is. Fields whose name
starts with `_` (the engine's memos) are never touched. A read replaced by the local reads the
object the first read gave (a list changed in place is the same object: still what `S.x` gives).

Placement is field_reads.py's, over the whole function: the first read is kept where it ran, and
only one that always runs when its statement does (not in a conditional's branch, a
short-circuit's later operand, a chained comparison's later link, a nested scope); a read
replaced runs after it in the same pass (in the order CPython evaluates: a statement's value
before its targets, left before right, a call's function then its arguments, a test before its
branches): in the same statement, a later statement of the same block, or a block nested there.
A nested block (a branch, a loop's body, a `try`'s body or handler) may keep its own first read
for the reads after it inside that block only. So no read is added to a path that had none, no
read moves before anything that could fail first, and no statement is added (a guarded
function's rule is named from its line, passes/rule_lines.py, laid out after this pass).

Knows the state's name and expression shapes, nothing of what the rules compute. The locals are
`_sv1`, `_sv2`, ...: a prefix no other generated name has.
"""

from __future__ import annotations

import ast
from collections import Counter

from ...expr.astutil import walk
from .keyed import MEMOISED_PREFIX

PREFIX = "_sv"
STATE = "S"
# Called with S, these only read it: rule functions (derived values), a keyed derived value's
# body and its table filler (passes/keyed.py), a lazy map over state (passes/lazy_maps.py).
READERS = ("f_", MEMOISED_PREFIX)
READER_NAMES = frozenset(("_keyed_fill", "_LazyMap"))


def state_reads(function: ast.FunctionDef) -> ast.FunctionDef:
    """`function` with its state fields read twice or more read once (changed in place, returned)."""
    if STATE not in [a.arg for a in function.args.args]:
        return function
    again = _again(function)
    if again:
        plan = _Plan()
        _block(function.body, again, {}, plan)
        swap = plan.swap()
        if swap:
            _Swap(swap).visit(function)
    return function


def _again(function: ast.FunctionDef) -> set:
    """The fields read more than once, or nothing if the function may change S's fields or hand
    S to something that might."""
    reads, passed, seen = Counter(), set(), set()
    attribute_of = set()
    for node in walk(function):
        kind = type(node)
        if kind is ast.Attribute or kind is ast.Subscript:
            if type(node.value) is ast.Name and node.value.id == STATE:
                if type(node.ctx) is not ast.Load or kind is ast.Subscript:
                    return set()
                attribute_of.add(id(node.value))
                if not node.attr.startswith("_"):
                    if id(node) in seen:   # (one node in two places: not planned by place)
                        return set()
                    seen.add(id(node))
                    reads[node.attr] += 1
            elif type(node.ctx) is not ast.Load and _based_on_state(node):
                return set()
        elif kind is ast.Call:
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                if type(argument) is ast.Name and argument.id == STATE:
                    if not _reader(node.func):
                        return set()
                    passed.add(id(argument))
        elif kind is ast.arg:
            if node.arg == STATE and node not in function.args.args:
                return set()
        elif kind is ast.Name and node.id == STATE and type(node.ctx) is not ast.Load:
            return set()
        elif kind is ast.Lambda or kind is ast.FunctionDef:
            if node is not function:
                return set()
    for node in walk(function):   # (S anywhere else, in a list, a tuple, a starred argument: left)
        if type(node) is ast.Name and node.id == STATE and id(node) not in attribute_of and id(node) not in passed:
            return set()
    return {field for field, n in reads.items() if n > 1}


def _based_on_state(node) -> bool:
    base = node.value
    while type(base) in (ast.Attribute, ast.Subscript):
        base = base.value
    return type(base) is ast.Name and base.id == STATE


def _reader(func) -> bool:
    return type(func) is ast.Name and (func.id.startswith(READERS) or func.id in READER_NAMES)


class _Plan:
    """The reads kept (the first of a field that always runs) and the reads of their locals; a
    local no later read uses is not made (a store for nothing)."""

    def __init__(self):
        self.count, self.first, self.uses = 0, {}, {}

    def keep(self, read) -> int:
        self.count += 1
        self.first[self.count], self.uses[self.count] = read, []
        return self.count

    def swap(self) -> dict:
        """id(read) -> its replacement, for the locals some read uses (numbered in order)."""
        swap, number = {}, 0
        for local, read in self.first.items():
            if self.uses[local]:
                number += 1
                name = f"{PREFIX}{number}"
                swap[id(read)] = ast.NamedExpr(target=ast.Name(id=name, ctx=ast.Store()), value=read)
                for use in self.uses[local]:
                    swap[id(use)] = ast.Name(id=name, ctx=ast.Load())
        return swap


def _block(statements: list, again: set, known: dict, plan: _Plan) -> None:
    """Each statement of a block run in order: its reads planned as uses of what `known` holds
    (field -> local), its first reads that always run kept; a nested block starts from a copy."""
    for statement in statements:
        kind = type(statement)
        if kind in (ast.Assign, ast.Expr, ast.Return, ast.AugAssign):
            if statement.value is not None:
                _expression(statement.value, again, known, plan)
        elif kind is ast.If:
            _expression(statement.test, again, known, plan)
            _block(statement.body, again, dict(known), plan)
            _block(statement.orelse, again, dict(known), plan)
        elif kind is ast.For:
            _expression(statement.iter, again, known, plan)
            _block(statement.body, again, dict(known), plan)
            _block(statement.orelse, again, dict(known), plan)
        elif kind is ast.Try:   # (after it, only what was known before: its body may stop anywhere)
            _block(statement.body, again, dict(known), plan)
            for handler in statement.handlers:
                _block(handler.body, again, dict(known), plan)
            _block(statement.orelse, again, dict(known), plan)
            _block(statement.finalbody, again, dict(known), plan)
        # (anything else, a while, a with, a raise: left as it is)


def _expression(node, again: set, known: dict, plan: _Plan) -> None:
    reads: list = []
    _ordered(node, again, True, reads)
    for read, always in reads:
        local = known.get(read.attr)
        if local is not None:
            plan.uses[local].append(read)
        elif always:
            known[read.attr] = plan.keep(read)


def _ordered(node, again: set, always: bool, reads: list) -> None:
    """`reads` gets each `S.x` (x in `again`) in `node` as (node, whether it runs whenever `node`
    does), in the order CPython evaluates them; nested scopes are not entered."""
    kind = type(node)
    if kind is ast.Attribute:
        value = node.value
        if type(value) is ast.Name and value.id == STATE:
            if node.attr in again:
                reads.append((node, always))
            return
        _ordered(value, again, always, reads)
    elif kind is ast.Subscript:
        _ordered(node.value, again, always, reads)
        _ordered(node.slice, again, always, reads)
    elif kind is ast.IfExp:
        _ordered(node.test, again, always, reads)
        _ordered(node.body, again, False, reads)
        _ordered(node.orelse, again, False, reads)
    elif kind is ast.BoolOp:
        for k, value in enumerate(node.values):
            _ordered(value, again, always and k == 0, reads)
    elif kind is ast.Compare:
        _ordered(node.left, again, always, reads)
        for k, value in enumerate(node.comparators):
            _ordered(value, again, always and k == 0, reads)
    elif kind is ast.Call:
        _ordered(node.func, again, always, reads)
        for arg in node.args:
            _ordered(arg, again, always, reads)
        for keyword in node.keywords:
            _ordered(keyword.value, again, always, reads)
    elif kind is ast.Dict:
        for key, value in zip(node.keys, node.values):
            if key is not None:
                _ordered(key, again, always, reads)
            _ordered(value, again, always, reads)
    elif kind in (ast.BinOp, ast.UnaryOp, ast.List, ast.Tuple, ast.Set, ast.Starred,
                  ast.NamedExpr, ast.JoinedStr, ast.FormattedValue):
        for child in ast.iter_child_nodes(node):   # (in field order: the order they run)
            _ordered(child, again, always, reads)
    # (a name, a literal, a nested scope, anything else: no read of it counted)


class _Swap(ast.NodeTransformer):
    def __init__(self, swap: dict):
        self.swap = swap

    def visit_Attribute(self, node):
        new = self.swap.get(id(node))
        return new if new is not None else self.generic_visit(node)
