"""A state field read again in a generated function that also writes the state is read once: the
generalisation of state_reads.py (which leaves such functions) to effects and steps.

The bidding's effects test `S.stage`, `S.round`, `S.pos`, `S.bid` rule after rule, between rules
that set some of them (`S.pos, S.done = (...)`). Here a field is kept in a local as state_reads.py
keeps it (`(_sw1 := S.x)` at its first read that always runs, first_reads.py's placement), and a
store to it keeps the local up to date: the element of the stored tuple display is bound to the
local as it is evaluated, `S.stage, S.pos = ((_sw1 := 'chance'), 1)`, the store to `S` kept. A
store that always runs in its block starts a local of its own (the field's value is then known
without a read), so later reads, in a later operand or a branch, read it.

Exact because the local always holds what `S.x` would give where a use reads it:
- a store updates the local only where no later element of the same display reads the field (it
  would see the new value before `S` has it); else, or where the value is no display of the
  targets' length, the field is forgotten (read again, kept again) from there;
- a nested block (a branch, a loop's body) starts from what its block knows and updates the same
  locals; a field it forgets is forgotten after it too; what it starts is its own. A loop's body
  and what follows the loop forget every field the loop stores (a second pass starts from what
  the first left). A `try` may stop anywhere, between a local's update and the store: what it
  stores is forgotten inside its handlers and after it;
- a property of the state (`hand`, computed from other fields) is forgotten at any store;
- the function is rewritten only where nothing else can give a field another value: `S` is never
  bound, is given only to functions that read the state (state_reads.py's readers), no nested
  scope, and every store into it is a plain `S.x` target of an assignment (no item or attribute
  of a field stored into, nothing deleted).
No read is added to a path that had none, none moves before anything that could fail first, and no
statement is added (passes/rule_lines.py lays a guarded function's lines out after this pass).

Knows the state's name, statement and expression shapes and the engine's State class (its
properties), nothing of what the rules compute. The locals are `_sw1`, `_sw2`, ...
"""

from __future__ import annotations

import ast

from ...engine.state import State
from ...expr.astutil import walk
from .first_reads import Plan, Reads, _expression, _put
from .state_reads import STATE, _reader

PREFIX = "_sw"
# Fields the state computes from others (a property): never kept across a store.
COMPUTED = frozenset(name for name, value in vars(State).items() if isinstance(value, property))
_SCOPES = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def stores_into_state(function: ast.FunctionDef) -> bool:
    """Whether the function is given S and some assignment in it stores into S (state_reads.py
    leaves such a function as it is: this pass's)."""
    return any(a.arg == STATE for a in function.args.args) and _stores(function.body)


def written_reads(function: ast.FunctionDef) -> ast.FunctionDef:
    """`function` with its state fields read twice or more read once across its stores (changed
    in place, returned); a function that stores nothing into S is left (state_reads.py's)."""
    if not stores_into_state(function) or not _plain(function):
        return function
    plan = _Plan(PREFIX)
    _block(function.body, Reads(STATE, attribute=True), {}, plan)
    if plan.used():
        plan.apply()
    return function


class _Plan(Plan):
    """first_reads.py's plan, with the stores that bind a local: (local, holder, index)."""

    def __init__(self, prefix: str):
        super().__init__(prefix)
        self.binds, self.own = [], set()   # (own: the locals the block being planned made)

    def keep(self, place) -> int:
        local = super().keep(place)
        self.own.add(local)
        return local

    def start(self) -> int:
        """A local first bound by a store, not by a read."""
        local = len(self.first) + 1
        self.first[local], self.uses[local] = None, []
        self.own.add(local)
        return local

    def apply(self) -> int:
        names = {}
        for local, place in self.first.items():
            if self.uses[local]:
                self.count += 1
                names[local] = name = f"{self.prefix}{self.count}"
                if place is not None:
                    read, holder, key = place
                    _put(holder, key, ast.NamedExpr(target=ast.Name(id=name, ctx=ast.Store()), value=read))
                for _, use_holder, use_key in self.uses[local]:
                    _put(use_holder, use_key, ast.Name(id=name, ctx=ast.Load()))
        for local, holder, key in self.binds:   # (after the reads: an element may itself be a read)
            if local in names:
                value = holder[key] if type(holder) is list else getattr(holder, key)
                _put(holder, key, ast.NamedExpr(target=ast.Name(id=names[local], ctx=ast.Store()), value=value))
        self.first, self.uses, self.binds = {}, {}, []
        return self.count


def _block(statements: list, reads: Reads, known: dict, plan: _Plan) -> set:
    """Plan each statement of a block in order (`known`: field -> local holding its value here);
    returns the fields forgotten in it, which the blocks around it forget too."""
    forgotten, outer, plan.own = set(), plan.own, set()

    def forget(fields):
        for field in fields:
            known.pop(field, None)
        forgotten.update(fields)

    for statement in statements:
        kind = type(statement)
        if kind is ast.Assign:
            _expression(statement, "value", reads, known, plan, True)
            forgotten.update(_store(statement, reads, known, plan))
        elif kind in (ast.Expr, ast.Return, ast.AugAssign):
            if statement.value is not None:
                _expression(statement, "value", reads, known, plan, True)
        elif kind is ast.If:
            _expression(statement, "test", reads, known, plan, True)
            forget(_block(statement.body, reads, dict(known), plan) | _block(statement.orelse, reads, dict(known), plan))
        elif kind is ast.For:
            _expression(statement, "iter", reads, known, plan, True)
            if known:   # (where nothing is known here, nothing is around either: no walk)
                forget(_stored(statement))
            forget(_block(statement.body, reads, dict(known), plan) | _block(statement.orelse, reads, dict(known), plan))
        elif kind is ast.Try:
            stored = _stored(statement) if known else ()
            _block(statement.body, reads, dict(known), plan)
            forget(stored)
            for block in (*(h.body for h in statement.handlers), statement.orelse, statement.finalbody):
                forget(_block(block, reads, dict(known), plan))
        else:   # (anything else, a while, a with: its reads left, its stores forgotten)
            forget(_stored(statement))
    plan.own = outer
    return forgotten


def _store(statement: ast.Assign, reads: Reads, known: dict, plan: _Plan) -> set:
    """The stores of an assignment planned (its value already planned): each field stored keeps
    its local, bound as its element is evaluated, where that is exact, or starts one (where it
    had none, or one this block read and nothing used yet: that read is then not kept); the
    fields forgotten, which the blocks around forget too, returned."""
    if len(statement.targets) != 1:
        return set()   # (_plain: no chained store into S)
    target = statement.targets[0]
    if type(target) is ast.Tuple:
        targets, value = target.elts, statement.value
        elements = value.elts if type(value) is ast.Tuple and len(value.elts) == len(targets) else None
        holder = elements
    else:
        targets, elements, holder = [target], [statement.value], None
    fields = [_field(t) for t in targets if _field(t) is not None]
    if not fields:
        return set()
    lost = set(COMPUTED)
    if elements is None or any(type(e) is ast.Starred for e in elements):
        for field in fields:
            if not field.startswith("_"):
                lost.add(field)
                known.pop(field, None)
    else:
        later = set()   # (the fields read by the elements after each, from the last one back)
        read_after = []
        for element in reversed(elements):
            read_after.append(frozenset(later))
            later.update(reads.key(n) for n in walk(element) if type(n) is ast.Attribute)
        read_after.reverse()
        for k, t in enumerate(targets):
            field = _field(t)
            if field is None or field.startswith("_"):
                continue
            if field in read_after[k]:
                lost.add(field)
                known.pop(field, None)
                continue
            local = known.get(field)
            if local is None or (local in plan.own and plan.first[local] is not None and not plan.uses[local]):
                local = known[field] = plan.start()   # (a read of this block nothing used yet: not kept)
            plan.binds.append((local, holder, k) if holder is not None else (local, statement, "value"))
    for field in COMPUTED:
        known.pop(field, None)
    return lost


def _field(target):
    """The field of a store target `S.x`, else None."""
    if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == STATE:
        return target.attr
    return None


def _stored(node) -> set:
    """The fields stored into S anywhere in `node` (and the computed ones, if any is)."""
    fields = {n.attr for n in walk(node) if type(n) is ast.Attribute and type(n.ctx) is ast.Store
              and type(n.value) is ast.Name and n.value.id == STATE}
    return fields | COMPUTED if fields else fields


def _stores(statements: list) -> bool:
    """Whether some assignment among the statements (at any depth) stores into S."""
    for statement in statements:
        if type(statement) is ast.Assign:
            for target in statement.targets:
                for t in (target.elts if type(target) is ast.Tuple else (target,)):
                    if type(t) is ast.Attribute and type(t.value) is ast.Name and t.value.id == STATE:
                        return True
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if type(inner) is list and _stores(inner):
                return True
        for handler in getattr(statement, "handlers", ()):
            if _stores(handler.body):
                return True
    return False


def _plain(function: ast.FunctionDef) -> bool:
    """Whether nothing but a plain assignment's `S.x` target can give a field another value: S
    never bound, given only to a reader, read only for an attribute; no store into or deletion of
    what a field holds; every store into S a target (alone or in a tuple) of a one-target
    assignment; no nested scope."""
    targets = set()   # (an assignment is met before its targets: walk gives a node, then what it holds)
    names = attributes = 0
    for node in walk(function):
        kind = type(node)
        if kind is ast.Assign:
            for target in node.targets:
                for t in (target.elts if type(target) is ast.Tuple else (target,)):
                    if type(t) is ast.Attribute:
                        if len(node.targets) != 1 and _on_state(t):
                            return False
                        targets.add(id(t))
        elif kind is ast.Name:
            if node.id == STATE:
                if type(node.ctx) is not ast.Load:
                    return False
                names += 1
        elif kind is ast.Attribute or kind is ast.Subscript:
            value = node.value
            if type(value) is ast.Name and value.id == STATE:
                if kind is ast.Subscript or (type(node.ctx) is not ast.Load and id(node) not in targets):
                    return False
                attributes += 1
            elif type(node.ctx) is not ast.Load and _on_state(node):
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
    return names == attributes


def _on_state(node) -> bool:
    """Whether `node` is an attribute or item of S, at any depth (`S.x`, `S.x[k]`, `S.x.y`)."""
    if type(node) not in (ast.Attribute, ast.Subscript):
        return False
    base = node.value
    while type(base) in (ast.Attribute, ast.Subscript):
        base = base.value
    return type(base) is ast.Name and base.id == STATE
