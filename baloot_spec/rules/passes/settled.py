"""Settled lazy locals: in a lowered generated function, the tests of a derived value's lazy
local (`_h_x`, expr/emit.py LAZY_LOCAL) whose answer is known where they stand are dropped.

Every generated function starts with `_h_x = ...` for each derived value it reads, and reads one
as `(_h_x if _h_x is not ... else (_h_x := body))`, or, once lowered (expr/lower.py), as
`if _h_x is not ...: t = _h_x else: ...`. Along straight-line code the answer is often known: at
the first read the local is still `...`, after an unconditional read it holds the value. A
flow pass over the statements, in the order they run, keeps what is known of each lazy local
(unset or set) and replaces a test it can answer by the branch that runs: `(_h_x := body)` at a
first read, `_h_x` at a later one. What is not sure is forgotten: a local assigned inside a loop,
a branch that only one side of an `if` runs, an exception handler. The body of a derived value
has no side effects, so computing it where the local was unset is what the test would have done.
"""

from __future__ import annotations

import ast

from ...expr.astutil import walk
from ...expr.emit import LAZY_LOCAL

UNSET, SET = "unset", "set"
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)


def settle(function: ast.FunctionDef) -> ast.FunctionDef:
    """`function` with its answerable lazy-local tests replaced (changed in place, returned),
    then what that left dead dropped (_drop_dead)."""
    function.body = _block(function.body, {})[0] or [ast.Pass()]
    return _drop_dead(function)


def _drop_dead(function: ast.FunctionDef) -> ast.FunctionDef:
    """Once every test of a lazy local is answered, its `_h_x = ...` is never seen: every read
    left comes after a value was assigned (the start is dropped); a lazy local never read at all
    keeps no `(_h_x := body)` either, only the body (still computed, where it was)."""
    read, tested, named = set(), set(), set()
    for sub in walk(function):
        kind = type(sub)
        if kind is ast.Name:
            if type(sub.ctx) is ast.Load and _lazy(sub.id):
                read.add(sub.id)
        elif kind is ast.Compare:
            found = _test_of(sub)
            if found is not None:
                tested.add(found[0])
        elif kind is ast.NamedExpr:
            named.add(sub.target.id)
    if any(_lazy(local) for local in named - read):   # (a value whose name nothing reads: the value alone)
        for sub in walk(function):
            for field, value in sub.__dict__.items():
                if type(value) is ast.NamedExpr and _lazy(value.target.id) and value.target.id not in read:
                    setattr(sub, field, _unnamed(value, read))
                elif type(value) is list:
                    value[:] = [_unnamed(v, read) if type(v) is ast.NamedExpr else v for v in value]
    _drop_starts(function.body, tested)
    return function


def _unnamed(node: ast.NamedExpr, read: set):
    while type(node) is ast.NamedExpr and _lazy(node.target.id) and node.target.id not in read:
        node = node.value
    return node


def _drop_starts(block: list, tested: set) -> None:
    """Drop `_h_x = ...` for each lazy local `x` no test reads, in `block` and the blocks in it."""
    block[:] = [s for s in block if not (type(s) is ast.Assign and len(s.targets) == 1 and type(s.targets[0]) is ast.Name
                                         and _lazy(s.targets[0].id) and s.targets[0].id not in tested
                                         and _is_ellipsis(s.value))] or ([ast.Pass()] if block else [])
    for statement in block:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if type(inner) is list and inner and isinstance(inner[0], ast.stmt):
                _drop_starts(inner, tested)
        for handler in getattr(statement, "handlers", ()):
            _drop_starts(handler.body, tested)


def _lazy(identifier: str) -> bool:
    return identifier.startswith(LAZY_LOCAL) and len(identifier) > len(LAZY_LOCAL)


def _merge(*states: dict) -> dict:
    first = states[0]
    return {k: v for k, v in first.items() if all(other.get(k) == v for other in states[1:])}


def _assigned(node: ast.AST) -> set:
    """The lazy locals any statement or expression inside `node` assigns."""
    found = set()
    for sub in walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and _lazy(sub.id):
            found.add(sub.id)
        elif isinstance(sub, ast.NamedExpr) and _lazy(sub.target.id):
            found.add(sub.target.id)
    return found


def _forget(state: dict, names: set) -> dict:
    return {k: v for k, v in state.items() if k not in names}


def _test_of(test: ast.expr) -> tuple[str, bool] | None:
    """(local, whether the test holds when it is set) of `_h_x is not ...` / `_h_x is ...`."""
    if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and _lazy(test.left.id)
            and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is Ellipsis):
        return test.left.id, isinstance(test.ops[0], ast.IsNot)
    return None


def _answer(test: ast.expr, state: dict) -> bool | None:
    found = _test_of(test)
    if found is None or found[0] not in state:
        return None
    local, holds_when_set = found
    return (state[local] == SET) == holds_when_set


def _refined(test: ast.expr, state: dict, outcome: bool) -> dict:
    """The state in the branch where `test` came out `outcome`."""
    found = _test_of(test)
    if found is None:
        return state
    local, holds_when_set = found
    return {**state, local: SET if outcome == holds_when_set else UNSET}


def _block(statements: list, state: dict) -> tuple[list, dict]:
    out = []
    for statement in statements:
        new, state = _statement(statement, state)
        out += new
    return out, state


def _statement(node: ast.stmt, state: dict) -> tuple[list, dict]:
    if isinstance(node, ast.If):
        test, state = _expr(node.test, state)
        answer = _answer(test, state)
        if answer is not None:
            return _block(node.body if answer else node.orelse, state)
        body, after_body = _block(node.body, _refined(test, state, True))
        orelse, after_else = _block(node.orelse, _refined(test, state, False))
        node.test, node.body, node.orelse = test, body or [ast.Pass()], orelse
        return [node], _merge(after_body, after_else)
    if isinstance(node, (ast.For, ast.While)):
        if isinstance(node, ast.For):
            node.iter, state = _expr(node.iter, state)
        inside = _forget(state, _assigned(node))
        node.body = _block(node.body, inside)[0] or [ast.Pass()]
        node.orelse = _block(node.orelse, inside)[0]
        return [node], inside
    if isinstance(node, ast.Try):
        body, after_body = _block(node.body, state)
        outside = _forget(state, _assigned(node))
        for handler in node.handlers:
            handler.body = _block(handler.body, outside)[0] or [ast.Pass()]
        orelse, after = _block(node.orelse, after_body)
        if node.finalbody or not all(h.body and isinstance(h.body[-1], (ast.Raise, ast.Return)) for h in node.handlers):
            after = outside
        node.body, node.orelse = body or [ast.Pass()], orelse
        node.finalbody = _block(node.finalbody, outside)[0]
        return [node], _forget(after, _assigned(ast.Module(body=node.finalbody, type_ignores=[])))
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Raise)):
        for field in ("value", "exc", "cause"):
            value = getattr(node, field, None)
            if value is not None:
                new, state = _expr(value, state)
                setattr(node, field, new)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for local in _assigned(target):
                    state = {**state, local: UNSET if _is_ellipsis(node.value) else SET}
        return [node], state
    return [node], _forget(state, _assigned(node))   # (anything else: what it assigns is not known)


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _expr(node: ast.expr, state: dict) -> tuple[ast.expr, dict]:
    """`node` with answerable lazy reads replaced, and the state after it ran. Sub-expressions
    are visited in the order Python evaluates them; one that may not run leaves only what every
    way through agrees on."""
    if isinstance(node, ast.IfExp):
        found = _test_of(node.test)
        if (found is not None and isinstance(node.orelse, ast.NamedExpr) and node.orelse.target.id == found[0]
                and isinstance(node.body, ast.Name) and node.body.id == found[0] and found[1]):
            local = found[0]   # the lazy read `(_h_x if _h_x is not ... else (_h_x := body))`
            if state.get(local) == SET:
                return ast.Name(id=local, ctx=ast.Load()), state
            value, after = _expr(node.orelse.value, state)
            if state.get(local) == UNSET:
                return ast.NamedExpr(target=node.orelse.target, value=value), {**after, local: SET}
            node.orelse.value = value
            return node, {**_merge(state, after), local: SET}
        test, state = _expr(node.test, state)
        answer = _answer(test, state)
        if answer is not None:
            return _expr(node.body if answer else node.orelse, state)
        body, after_body = _expr(node.body, _refined(test, state, True))
        orelse, after_else = _expr(node.orelse, _refined(test, state, False))
        node.test, node.body, node.orelse = test, body, orelse
        return node, _merge(after_body, after_else)
    if isinstance(node, ast.BoolOp):
        values, exits, current = [], [], state
        for value in node.values:
            new, current = _expr(value, current)
            values.append(new)
            exits.append(current)
        node.values = values
        return node, _merge(*exits)
    if isinstance(node, ast.NamedExpr):
        node.value, state = _expr(node.value, state)
        return node, ({**state, node.target.id: SET} if _lazy(node.target.id) else state)
    if isinstance(node, _COMPREHENSIONS):
        return node, _forget(state, _assigned(node))
    if isinstance(node, ast.Compare) and len(node.ops) > 1:   # (a chain stops at the first false link)
        return node, _forget(state, _assigned(node))
    if isinstance(node, ast.Dict):   # (evaluated key, value, key, value ...)
        keys, values = [], []
        for key, value in zip(node.keys, node.values):
            if key is not None:
                key, state = _expr(key, state)
            value, state = _expr(value, state)
            keys.append(key)
            values.append(value)
        node.keys, node.values = keys, values
        return node, state
    for field, value in ast.iter_fields(node):   # (in the order Python evaluates them)
        if isinstance(value, ast.expr):
            new, state = _expr(value, state)
            setattr(node, field, new)
        elif isinstance(value, list):
            items = []
            for item in value:
                if isinstance(item, ast.expr):
                    item, state = _expr(item, state)
                elif isinstance(item, ast.keyword):
                    item.value, state = _expr(item.value, state)
                items.append(item)
            setattr(node, field, items)
    return node, state
