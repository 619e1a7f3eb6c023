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

Placement is first_reads.py's (shared with field_reads.py), over the whole function: the first
read that always runs is kept where it ran, and the reads after it in the same pass use it. A
nested block (a branch, a loop's body, a `try`'s body or handler) may keep its own first read for
the reads after it inside that block only. So no read is added to a path that had none, no read
moves before anything that could fail first, and no statement is added (a guarded function's rule
is named from its line, passes/rule_lines.py, laid out after this pass).

Knows the state's name and expression shapes, nothing of what the rules compute. The locals are
`_sv1`, `_sv2`, ...: a prefix no other generated name has.
"""

from __future__ import annotations

import ast
from ...expr.astutil import walk
from .first_reads import Plan, Reads, plan_block
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
    plan = Plan(PREFIX)
    plan_block(function.body, Reads(STATE, attribute=True), {}, plan, adding=True, nested_keep=True, tries=True)
    if plan.used() and _unchanged(function):
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
