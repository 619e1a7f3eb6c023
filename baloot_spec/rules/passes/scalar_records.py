"""Records filled and read back in one generated function: a read by a literal key is the value
stored under it; and the literal operations that writing values in leaves, folded.

After record_stores.py a record is `_recN = _R()`, then `_recN['k'] = e` for each key, then
often `x = _recN` (a scoring step's local, rules/scored.py); a later step reads `x['k']`: a
lookup in a dict subclass, which CPython does not specialise. Here each such value is kept in a
local of its own where it is stored (`_cN = e; _recN['k'] = _cN`; a literal, or a name no
later statement of the block sets, is used as it is), and every later `x['k']` of a stored key
reads it. A read by a key that is a name, `x[k]`, reads those locals chosen by comparing k
with the filled keys, the lookup last (`_chosen`: a score step's record read by a team). The
record is still made and filled as before: it is part of a result, or read by a key that is
neither. A record no later statement reads by a literal or a name key is left as it was (no
local added). An alias of the record (`y = x`) later in the block is read through likewise.

Exact because: the record's names are each set once in the function, the fill and the reads are
in one block that no loop encloses (a read after the fill sees that fill); nothing in generated
code changes a record in place but its own fill (a value a rule expression makes is never
changed; effects set state fields), and a record whose name is stored into by key, deleted from,
or read an attribute of (a method) outside its fill is left alone. A key not filled stays a
lookup (its KeyError where it was). Reads inside a nested scope (a generator) are left.

`fold` writes what the literals decide in such a record's fill and in a statement a literal
was read into (`None == 'NS'` where a contract fixed a fact to None, then `2 if False else 0`),
where Python's own result is known: `==`/`!=` of two plain literals (None, bool, int, str),
`not` of one, `a if <literal> else b` (the other branch is never evaluated), and
`_isum([a, b, ...])` of two or more items (emitted only for items typed int or bool:
`a + b + ...` is the same int, with no list and no call).

Cost: a walk of the statements of each function (most keep no record under a name: nothing
more; a record returned, appended or set on the state as soon as it is filled is not read back
in the function), then one walk of the function and one of each block holding a record.
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
    if not _fills_a_record(function.body):   # (statements only: most functions keep no record under a name)
        return function
    facts = _Facts(function)   # (one walk of the whole function)
    if facts.read & facts.records:
        _blocks(function.body, facts)
    return function


def _fills_a_record(statements: list) -> bool:
    """Whether some block has `r = _R()`, its fill, then `x = r` (the statements walked, not their
    values): a record kept under a name, which a later step may read back (rules/scored.py). A
    record returned, appended or set on the state as soon as it is filled is not read back here."""
    for position, statement in enumerate(statements):
        found = _filled(statements, position)
        if found is not None and found[2] is not None:
            return True
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if inner and _fills_a_record(inner):
                return True
        if any(_fills_a_record(handler.body) for handler in getattr(statement, "handlers", ())):
            return True
    return False


class _Facts:
    """What the pass asks of the whole function, found in one walk."""

    def __init__(self, function):
        self.bound, self.stored, self.attributes = Counter(), Counter(), set()
        self.read, self.records = set(), set()   # (names read by a literal or a name key; `r` of `r = _R()`, and `x` of `x = r`)
        aliases = []
        for node in walk(function):
            kind = type(node)
            if kind is ast.Name:
                if type(node.ctx) is not ast.Load:
                    self.bound[node.id] += 1
            elif kind is ast.Subscript:
                if isinstance(node.value, ast.Name):
                    if type(node.ctx) is not ast.Load:
                        self.stored[node.value.id] += 1
                    elif (type(node.slice) is ast.Name
                          or isinstance(node.slice, ast.Constant) and type(node.slice.value) is str):
                        self.read.add(node.value.id)
            elif kind is ast.Attribute:
                if isinstance(node.value, ast.Name):
                    self.attributes.add(node.value.id)
            elif kind is ast.Assign:
                if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    value = node.value
                    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == RECORD
                            and not value.args and not value.keywords):
                        self.records.add(node.targets[0].id)
                    elif isinstance(value, ast.Name):
                        aliases.append((node.targets[0].id, value.id))
            elif kind is ast.arg:
                self.bound[node.arg] += 1
            elif kind is ast.ExceptHandler:
                if node.name:
                    self.bound[node.name] += 1
        self.aliases = aliases
        self.records = self.reached(self.records)   # (an alias of an alias: `compared = totals` after `totals = _rec10`)
        self.count = 0
        self.made: set = set()

    def reached(self, names: set) -> set:
        """`names` and every name set to one of them (`y = x`), and to those, anywhere."""
        reached, grown = set(names), True
        while grown:
            grown = False
            for alias, record in self.aliases:
                if record in reached and alias not in reached:
                    reached.add(alias)
                    grown = True
        return reached

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
    reads_of: dict = {}   # id(statement) -> its literal reads of the names read so (found when first asked)
    last_bound: dict = {}   # name -> the last statement of the block (as it was) that binds it
    literal: set = set()   # (ids of the statements a literal was written into: folded then)
    while position < len(statements):
        found = _filled(statements, position)
        if found is None:
            position += 1
            continue
        record, end, alias = found
        names = {record} | ({alias} if alias else set())
        if not facts.reached(names) & facts.read:
            position = end
            continue
        fill_count = end - position - 1
        if (any(facts.bound[n] != 1 or n in facts.attributes for n in names)   # (set once; no method read)
                or facts.stored[record] != fill_count or (alias and facts.stored[alias])):   # (stored into by its fill only)
            position = end
            continue
        after = end + (1 if alias else 0)
        if not reads_of:   # (each statement of the block walked once: its literal reads, the names it binds)
            for index, statement in enumerate(statements):
                reads_of[id(statement)], bound = _scan(statement, facts.read)
                for name in bound:
                    last_bound[name] = index
        reads = _reads(statements[after:], names, reads_of, facts)
        last = {fill.targets[0].slice.value: fill for fill in statements[position + 1:end]}   # (a key filled twice: its last value)
        keys = {read[3] for read in reads}
        wanted = set(last) if any(type(key) is not str for key in keys) else keys & set(last)
        if not wanted:   # (no read to replace: the fill as it is, no local added)
            position = after
            continue
        components, fills = {}, []
        shift = len(statements) - len(reads_of)   # (statements added to the block above: the fills' locals)
        for fill in statements[position + 1:end]:
            key = fill.targets[0].slice.value
            value = fill.value = fold(fill.value)   # (literals, and reads replaced above by one: what they decide)
            if key in wanted and last[key] is fill:
                if not (isinstance(value, ast.Constant) or _set_before(value, position - shift, last_bound, facts)):
                    local = facts.fresh()
                    fills.append(_assign(local, value))
                    fill.value = value = ast.Name(id=local, ctx=ast.Load())
                components[key] = value
            fills.append(fill)
        statements[position + 1:end] = fills
        for holder, field, index, key, statement in reads:
            if type(key) is not str:
                new = _chosen(key, components, getattr(holder, field) if index is None else getattr(holder, field)[index])
                if new is None:
                    continue
                if index is None:
                    setattr(holder, field, new)
                else:
                    getattr(holder, field)[index] = new
            elif key in components:
                new = clone(components[key])
                if index is None:
                    setattr(holder, field, new)
                else:
                    getattr(holder, field)[index] = new
                if isinstance(new, ast.Constant):
                    literal.add(statement)
        position = after + len(fills) - (end - position - 1)
    if literal:
        statements[:] = [fold(statement) if id(statement) in literal else statement for statement in statements]


def _reads(statements: list, names: set, reads_of: dict, facts) -> list:
    """The reads of the record's names in `statements` (after its fill): (holder, field, index,
    key, id of the statement). A later `y = x` (x one of the names; y set once in the function,
    never stored into, no method read) makes y one of them for the statements after it."""
    live, found = set(names), []
    for statement in statements:
        found += [(*read[:4], id(statement)) for read in reads_of.get(id(statement), ()) if read[4] in live]
        if (type(statement) is ast.Assign and len(statement.targets) == 1 and type(statement.targets[0]) is ast.Name
                and type(statement.value) is ast.Name and statement.value.id in live):
            alias = statement.targets[0].id
            if facts.bound[alias] == 1 and alias not in facts.attributes and not facts.stored[alias]:
                live.add(alias)
    return found


def _chosen(key, components: dict, read):
    """`x[k]` (k a name) as the stored values chosen by comparing k with the filled keys, the
    lookup last: `_c1 if k == 'NS' else _c2 if k == 'EW' else x[k]`; None where no key has a
    value here. Exact: every key filled is a text, and what equals a text is a text of the same
    characters, which a dict finds under that key (the language's other values, None, bool, int,
    cards, plays, tricks, lists and records, equal no text; no generated class defines equality
    with one), so the first match is what the lookup finds; a key matching none (another text,
    None, a value that cannot be hashed) is looked up as before, its KeyError or TypeError where it
    was. k is a name: reading it again has no effect and gives the same value. The record and
    its values are not changed after the fill (above)."""
    if not components:
        return None
    chosen = read
    for text, value in reversed(components.items()):
        test = ast.Compare(left=ast.Name(id=key.id, ctx=ast.Load()), ops=[ast.Eq()], comparators=[ast.Constant(text)])
        chosen = ast.IfExp(test=test, body=clone(value), orelse=chosen)
    return chosen


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


def _set_before(value, position: int, last_bound: dict, facts) -> bool:
    """A name no statement of the block from `position` on binds (a local made here, or one set
    before the fill or outside the block): the value it has at the fill it keeps for the rest."""
    if not isinstance(value, ast.Name):
        return False
    return value.id in facts.made or last_bound.get(value.id, -1) < position


def _scan(statement, names: set) -> tuple:
    """([(holder, field, index or None, key, x)] of each `x['k']` read in `statement` (x one of
    `names`, k a text) outside nested scopes, the names the statement binds anywhere)."""
    found, bound = [], set()
    stack = [(statement, False)]
    while stack:
        node, nested = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is not ast.Load:
                bound.add(node.id)
            continue
        if kind is ast.ExceptHandler and node.name:
            bound.add(node.name)
        elif kind is ast.arg:
            bound.add(node.arg)
        for field, old in ast.iter_fields(node):
            items = old if isinstance(old, list) else [old]
            for index, child in enumerate(items):
                if not isinstance(child, ast.AST):
                    continue
                if (not nested and type(child) is ast.Subscript and type(child.ctx) is ast.Load
                        and type(child.value) is ast.Name and child.value.id in names):
                    key = child.slice
                    if type(key) is ast.Constant and type(key.value) is str:
                        found.append((node, field, index if isinstance(old, list) else None, key.value, child.value.id))
                        continue
                    if type(key) is ast.Name and type(key.ctx) is ast.Load:   # (the node: chosen by comparing)
                        found.append((node, field, index if isinstance(old, list) else None, key, child.value.id))
                        continue
                stack.append((child, nested or isinstance(child, _SCOPES)))
    return found, bound


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
