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
object the first read gave (a list changed in place is the same object: still what `S.x` gives;
the engine's `hand`, a property over `hands` and `actor`, gives an equal list while neither changes).

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
from ...expr.astutil import walk
from .keyed import MEMOISED_PREFIX

PREFIX = "_sv"
STATE = "S"
# Called with S, these only read it: rule functions (derived values), a keyed derived value's
# body and its table filler (passes/keyed.py), a lazy map over state (passes/lazy_maps.py).
READERS = ("f_", MEMOISED_PREFIX)
READER_NAMES = frozenset(("_keyed_fill", "_LazyMap"))


def state_reads(function: ast.FunctionDef) -> ast.FunctionDef:
    """`function` with its state fields read twice or more read once (changed in place, returned).
    (The reads are planned first, in one pass over the statements; only a function where some
    later read would use a kept one is then checked for what could change S, in one walk.)"""
    if not any(a.arg == STATE for a in function.args.args):
        return function
    plan = _Plan()
    _block(function.body, {}, plan)
    if plan.used and _unchanged(function):
        plan.apply()
    return function


def _unchanged(function: ast.FunctionDef) -> bool:
    """Whether nothing in the function can give a field of S another value: no store into or
    deletion of S or what it holds, no binding of S, no nested scope, and S itself only read for
    an attribute or given to a function that reads the state."""
    names = attributes = 0
    for node in walk(function):
        kind = type(node)
        if kind is ast.Name:
            if node.id == STATE:
                if type(node.ctx) is not ast.Load:
                    return False
                names += 1
        elif kind is ast.Attribute or kind is ast.Subscript:
            value = node.value
            if type(value) is ast.Name and value.id == STATE:
                if type(node.ctx) is not ast.Load or kind is ast.Subscript:
                    return False
                attributes += 1
            elif type(node.ctx) is not ast.Load and _based_on_state(node):
                return False
        elif kind is ast.Call:
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                if type(argument) is ast.Name and argument.id == STATE:
                    if not _reader(node.func):
                        return False
                    attributes += 1
        elif kind is ast.arg:
            if node.arg == STATE and node not in function.args.args:
                return False
        elif kind in _SCOPES and node is not function:
            return False
    return names == attributes   # (S anywhere else, in a list, a tuple, a starred argument: left)


_SCOPES = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def _based_on_state(node) -> bool:
    base = node.value
    while type(base) in (ast.Attribute, ast.Subscript):
        base = base.value
    return type(base) is ast.Name and base.id == STATE


def _reader(func) -> bool:
    return type(func) is ast.Name and (func.id.startswith(READERS) or func.id in READER_NAMES)


class _Plan:
    """The reads kept (the first of a field that always runs) and the reads of their locals,
    each with where it stands (its holder: a node and a field, or a list and an index)."""

    def __init__(self):
        self.count, self.first, self.uses, self.used = 0, {}, {}, False

    def keep(self, place) -> int:
        self.count += 1
        self.first[self.count], self.uses[self.count] = place, []
        return self.count

    def use(self, local: int, place) -> None:
        self.uses[local].append(place)
        self.used = True

    def apply(self) -> None:
        """The kept reads some later read uses made `(_svN := S.x)` (numbered in order), and
        those reads the local; a local no later read uses is not made (a store for nothing)."""
        number = 0
        for local, (read, holder, key) in self.first.items():
            if self.uses[local]:
                number += 1
                name = f"{PREFIX}{number}"
                _put(holder, key, ast.NamedExpr(target=ast.Name(id=name, ctx=ast.Store()), value=read))
                for _, use_holder, use_key in self.uses[local]:
                    _put(use_holder, use_key, ast.Name(id=name, ctx=ast.Load()))


def _put(holder, key, node) -> None:
    if type(holder) is list:
        holder[key] = node
    else:
        setattr(holder, key, node)


def _block(statements: list, known: dict, plan: _Plan) -> None:
    """Each statement of a block run in order: its reads planned as uses of what `known` holds
    (field -> local), its first reads that always run kept; a nested block starts from a copy."""
    for statement in statements:
        kind = type(statement)
        if kind in (ast.Assign, ast.Expr, ast.Return, ast.AugAssign):
            if statement.value is not None:
                _expression(statement, "value", known, plan)
        elif kind is ast.If:
            _expression(statement, "test", known, plan)
            _block(statement.body, dict(known), plan)
            _block(statement.orelse, dict(known), plan)
        elif kind is ast.For:
            _expression(statement, "iter", known, plan)
            _block(statement.body, dict(known), plan)
            _block(statement.orelse, dict(known), plan)
        elif kind is ast.Try:   # (after it, only what was known before: its body may stop anywhere)
            _block(statement.body, dict(known), plan)
            for handler in statement.handlers:
                _block(handler.body, dict(known), plan)
            _block(statement.orelse, dict(known), plan)
            _block(statement.finalbody, dict(known), plan)
        # (anything else, a while, a with, a raise: left as it is)


def _expression(statement, field: str, known: dict, plan: _Plan) -> None:
    reads: list = []
    _ordered(getattr(statement, field), True, reads, statement, field)
    for read, always, holder, key in reads:
        local = known.get(read.attr)
        if local is not None:
            plan.use(local, (read, holder, key))
        elif always:
            known[read.attr] = plan.keep((read, holder, key))


def _ordered(node, always: bool, reads: list, holder, key) -> None:
    """`reads` gets each `S.x` in `node` as (node, whether it runs whenever `node` does, its
    holder and key), in the order CPython evaluates them; nested scopes are not entered."""
    kind = type(node)
    if kind is ast.Attribute:
        value = node.value
        if type(value) is ast.Name and value.id == STATE:
            if not node.attr.startswith("_"):
                reads.append((node, always, holder, key))
            return
        _ordered(value, always, reads, node, "value")
    elif kind is ast.Subscript:
        _ordered(node.value, always, reads, node, "value")
        _ordered(node.slice, always, reads, node, "slice")
    elif kind is ast.IfExp:
        _ordered(node.test, always, reads, node, "test")
        _ordered(node.body, False, reads, node, "body")
        _ordered(node.orelse, False, reads, node, "orelse")
    elif kind is ast.BoolOp:
        values = node.values
        for k, value in enumerate(values):
            _ordered(value, always and k == 0, reads, values, k)
    elif kind is ast.Compare:
        _ordered(node.left, always, reads, node, "left")
        comparators = node.comparators
        for k, value in enumerate(comparators):
            _ordered(value, always and k == 0, reads, comparators, k)
    elif kind is ast.Call:
        _ordered(node.func, always, reads, node, "func")
        args = node.args
        for k, arg in enumerate(args):
            _ordered(arg, always, reads, args, k)
        for keyword in node.keywords:
            _ordered(keyword.value, always, reads, keyword, "value")
    elif kind is ast.Dict:
        keys, values = node.keys, node.values
        for k, value in enumerate(values):
            if keys[k] is not None:
                _ordered(keys[k], always, reads, keys, k)
            _ordered(value, always, reads, values, k)
    elif kind in _IN_ORDER:
        for field in node._fields:   # (in field order: the order they run)
            value = getattr(node, field, None)
            if type(value) is list:
                for k, item in enumerate(value):
                    _ordered(item, always, reads, value, k)
            elif isinstance(value, ast.expr):
                _ordered(value, always, reads, node, field)
    # (a name, a literal, a nested scope, anything else: no read of it counted)


_IN_ORDER = (ast.BinOp, ast.UnaryOp, ast.List, ast.Tuple, ast.Set, ast.Starred, ast.NamedExpr, ast.JoinedStr,
             ast.FormattedValue)
