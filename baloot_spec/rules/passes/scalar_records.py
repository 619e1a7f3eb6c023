"""Records filled and read back in one generated function: a read by a literal key is the value
stored under it; and the literal operations that writing values in leaves, folded.

After record_stores.py a record is `_recN = _R()`, then `_recN['k'] = e` for each key, then
often `x = _recN` (a scoring step's local, rules/scored.py); a later step reads `x['k']`: a
lookup in a dict subclass, which CPython does not specialise. Here each such value is kept in a
local of its own where it is stored (`_cN = e; _recN['k'] = _cN`; a literal, or a name only
earlier statements of the same block set, is used as it is), and every later `x['k']` of a
stored key reads it. The record is still made and filled as before: it is part of a result, or
read by a key that is not a literal.

Exact because: the record's names are each set once in the function, the fill and the reads are
in one block that no loop encloses (a read after the fill sees that fill); nothing in generated
code changes a record in place but its own fill (a value a rule expression makes is never
changed; effects set state fields), and a record whose name is stored into by key, deleted from,
or read an attribute of (a method) outside its fill is left alone. A key not filled stays a
lookup (its KeyError where it was). Reads inside a nested scope (a generator) are left.

`fold` then writes what the literals decide, where Python's own result is known: `==`/`!=` of
two plain literals (None, bool, int, str), `not` of one, `a if <literal> else b` (the other
branch is never evaluated), and `_isum([a, b, ...])` of two or more items (emitted only for
items typed int or bool: `a + b + ...` is the same int, with no list and no call).
"""

from __future__ import annotations

import ast
from collections import Counter

from ...expr.astutil import clone, walk
from ...expr.emit import SUM_OF_INTS
from .record_stores import RECORD

PREFIX = "_c"   # (the components' locals: no other generated name starts so; see record_stores.py)
_PLAIN = (type(None), bool, int, str)
_SCOPES = (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.FunctionDef)
_NOT_STRAIGHT = (ast.For, ast.While, ast.AsyncFor, ast.With, ast.AsyncWith, ast.FunctionDef, ast.ClassDef)


def scalar_records(function: ast.FunctionDef) -> ast.FunctionDef:
    """`function` with such reads replaced and its literals folded (changed in place, returned)."""
    function = fold(function)
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == RECORD for n in walk(function)):
        return function
    facts = _Facts(function)
    _blocks(function.body, facts)
    return fold(function) if facts.changed else function


class _Facts:
    """What the pass asks of the whole function, found once."""

    def __init__(self, function):
        self.bound = _bound(function)
        self.stored, self.attributes = _uses(function)
        self.changed = False
        self.count = 0
        self.made: set = set()
        self.arguments = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
        self._bound_in: dict = {}

    def bound_in(self, statement) -> Counter:
        found = self._bound_in.get(id(statement))
        if found is None:
            found = self._bound_in[id(statement)] = _bound(statement)
        return found

    def fresh(self) -> str:
        self.count += 1
        local = f"{PREFIX}{self.count}"
        self.made.add(local)   # (set once, where its value was stored, before any read)
        return local


def _blocks(statements: list, facts: _Facts) -> None:
    """Every block run straight through (the function's body, and those of `if`/`try` in it)."""
    _block(statements, facts)
    for statement in statements:
        if isinstance(statement, _NOT_STRAIGHT):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if inner:
                _blocks(inner, facts)
        for handler in getattr(statement, "handlers", ()):
            _blocks(handler.body, facts)


def _block(statements: list, facts: _Facts) -> None:
    position = 0
    while position < len(statements):
        found = _filled(statements, position)
        if found is None:
            position += 1
            continue
        record, end, alias = found
        names = {record} | ({alias} if alias else set())
        fill_count = end - position - 1
        if (any(facts.bound[n] != 1 or n in facts.attributes for n in names)   # (set once; no method read)
                or facts.stored[record] != fill_count or (alias and facts.stored[alias])):   # (stored into by its fill only)
            position = end
            continue
        after = end + (1 if alias else 0)
        reads = [read for statement in statements[after:] for read in _literal_reads(statement, names)]
        last = {fill.targets[0].slice.value: fill for fill in statements[position + 1:end]}   # (a key filled twice: its last value)
        wanted = {key for _holder, _field, _index, key in reads} & set(last)
        if not wanted:   # (no read to replace: the fill as it is, no local added)
            position = after
            continue
        components, fills = {}, []
        before = statements[:position]
        for fill in statements[position + 1:end]:
            key = fill.targets[0].slice.value
            value = fill.value = fold(fill.value)   # (a read replaced above may have made it a literal)
            if key in wanted and last[key] is fill:
                if not (isinstance(value, ast.Constant) or _set_before(value, before, facts)):
                    local = facts.fresh()
                    fills.append(_assign(local, value))
                    fill.value = value = ast.Name(id=local, ctx=ast.Load())
                components[key] = value
            fills.append(fill)
        statements[position + 1:end] = fills
        for holder, field, index, key in reads:
            if key in components:
                new = clone(components[key])
                if index is None:
                    setattr(holder, field, new)
                else:
                    getattr(holder, field)[index] = new
        facts.changed = True
        position = after + len(fills) - (end - position - 1)


def _filled(statements: list, position: int):
    """(record name, end of its fill, alias or None) of `r = _R()` at `position` followed by at
    least one `r['k'] = e` (k a text), else None."""
    first = statements[position]
    if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)
            and isinstance(first.value, ast.Call) and isinstance(first.value.func, ast.Name)
            and first.value.func.id == RECORD and not first.value.args and not first.value.keywords):
        return None
    record = first.targets[0].id
    end = position + 1
    while end < len(statements) and _fills(statements[end], record):
        end += 1
    if end == position + 1:
        return None
    alias = None
    if end < len(statements):
        following = statements[end]
        if (isinstance(following, ast.Assign) and len(following.targets) == 1 and isinstance(following.targets[0], ast.Name)
                and isinstance(following.value, ast.Name) and following.value.id == record):
            alias = following.targets[0].id
    return record, end, alias


def _fills(statement, record: str) -> bool:
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return False
    target = statement.targets[0]
    return (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == record
            and isinstance(target.slice, ast.Constant) and type(target.slice.value) is str)


def _uses(function) -> tuple:
    """(how many times each name is stored into by key or deleted from, names read an attribute of)."""
    stored, attributes = Counter(), set()
    for node in walk(function):
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name):
            stored[node.value.id] += 1
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            attributes.add(node.value.id)
    return stored, attributes


def _set_before(value, before: list, facts) -> bool:
    """A name every binding of which is in `before` (the earlier statements of the block, or
    inside them) or the function's argument: run before the fill, and none after it."""
    bound = facts.bound
    if isinstance(value, ast.Name) and value.id in facts.made:
        return True
    if not isinstance(value, ast.Name) or not bound[value.id]:
        return False
    return bound[value.id] == (value.id in facts.arguments) + sum(facts.bound_in(statement)[value.id] for statement in before)


def _literal_reads(statement, names: set) -> list:
    """(holder, field, index or None, key) of each `x['k']` read in `statement` (x one of
    `names`, k a text), outside nested scopes."""
    found = []
    stack = [statement]
    while stack:
        node = stack.pop()
        for field, old in ast.iter_fields(node):
            items = old if isinstance(old, list) else [old]
            for index, child in enumerate(items):
                if not isinstance(child, ast.AST) or isinstance(child, _SCOPES):
                    continue
                if (isinstance(child, ast.Subscript) and isinstance(child.ctx, ast.Load) and isinstance(child.value, ast.Name)
                        and child.value.id in names and isinstance(child.slice, ast.Constant)
                        and type(child.slice.value) is str):
                    found.append((node, field, index if isinstance(old, list) else None, child.slice.value))
                    continue
                stack.append(child)
    return found


def _bound(function) -> Counter:
    """How many times each name is bound in the function (assigned, a loop's target, an argument...)."""
    bound = Counter()
    for node in walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound[node.id] += 1
        elif isinstance(node, ast.arg):
            bound[node.arg] += 1
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound[node.name] += 1
    return bound


def _assign(local: str, value) -> ast.Assign:
    return ast.Assign(targets=[ast.Name(id=local, ctx=ast.Store())], value=value)


def fold(node):
    """`node` with the literal operations above folded (changed in place; the new node where the
    whole of it folded)."""
    return _Fold().visit(node)


def _plain(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in _PLAIN


class _Fold(ast.NodeTransformer):
    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)) and _plain(node.left) and _plain(node.comparators[0]):
            equal = node.left.value == node.comparators[0].value
            return ast.Constant(equal if isinstance(node.ops[0], ast.Eq) else not equal)
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and _plain(node.operand):
            return ast.Constant(not node.operand.value)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if _plain(node.test):
            return node.body if node.test.value else node.orelse
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if (isinstance(node.func, ast.Name) and node.func.id == SUM_OF_INTS and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.List) and len(node.args[0].elts) >= 2
                and not any(isinstance(e, ast.Starred) for e in node.args[0].elts)):
            elts = node.args[0].elts
            total = elts[0]
            for elem in elts[1:]:
                total = ast.BinOp(left=total, op=ast.Add(), right=elem)
            return total
        return node
