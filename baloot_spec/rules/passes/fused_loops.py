"""Loops over the same iterable fused: in a lowered generated function, accumulating loops over
one iterable (sums, counts, appends, each under its own filter) become one loop reading each item
once, with a filter's key read once an item.

A map over a short constant list is written out one entry at a time (expr/unroll.py), so a sum
per key of the items whose key matches (`map(sum(... for x in xs if key(x) == k) for k in ks)`)
becomes one loop over `xs` per key, each reading every item and its key again; two facts over
the same list add as many more. Fused, one loop reads each item, works out `key(x)` once, and
adds it to the accumulator its filter chooses.

The result is exactly the original's, failure included, because:

- only loops that can change nothing but their own accumulators are fused (statements: a
  filter `if not c: continue` first, assignments to names, `acc.append(v)`, nested such loops;
  no walrus, no break, no `else`); the generated code reads state and calls functions that have
  no side effects (rule functions, builtins; a memo or a lazy map entry filled in is the value
  that would have been computed);
- a loop is moved before the statements between it and the first one only when those neither
  write what it reads nor read or write what it writes (its accumulators, its loop variable),
  so its iterable, read once for all, gives what it would have given where it stood (a list, a
  record or an engine list: the generated code makes no one-shot iterator);
- the fused loop runs in a `try`: if anything in it raises, a flag says so and each original
  loop runs again at its own place (accumulators set again first), so that the exception raised
  is the one, and at the point (the rule running), that the unfused code raises.

The pass knows loops, names and statement shapes, nothing of what the rules compute.
"""

from __future__ import annotations

import ast

from ...expr.astutil import clone, walk
from .fused_reads import held_names

_ALLOWED_CALLS = ("append",)


def fuse_loops(function: ast.FunctionDef) -> ast.FunctionDef:
    """`function` with its fusable loops over the same iterable fused (changed in place, returned)."""
    function.body = _block(function.body, _Fresh())
    return function


class _Fresh:
    """New local names, `_fused1`, `_key2`, `_g3`, ...: prefixes no other generated name
    has (the emitter's are `v_`, `k_`, `f_`, `b_`, `_h_`; the lowering's `_t`, `_l`)."""

    def __init__(self):
        self.count = 0

    def __call__(self, stem: str) -> str:
        self.count += 1
        return f"_{stem}{self.count}"


# ---- names read and written ----------------------------------------------------------------------
def _reads(node) -> set:
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _writes(node) -> set:
    """Names a statement binds or changes: assigned, walrus targets, `x.append(...)`, and the base
    of an attribute or item it stores into (`V.a = ...` changes V)."""
    found = set()
    for n in walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            found.add(n.id)
        elif isinstance(n, ast.NamedExpr):
            found.add(n.target.id)
        elif isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.ctx, (ast.Store, ast.Del)):
            base = n.value
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(base, ast.Name):
                found.add(base.id)
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _ALLOWED_CALLS
              and isinstance(n.func.value, ast.Name)):
            found.add(n.func.value.id)
    return found


def _exits(node) -> bool:
    """Whether a statement may leave the block it stands in (a `break` or `continue` of a loop
    inside it does not)."""
    if isinstance(node, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        return True
    if isinstance(node, (ast.For, ast.While)):
        return any(isinstance(n, (ast.Return, ast.Raise)) for n in walk(node))
    return any(_exits(child) for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)) or \
        any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in walk(node) if isinstance(n, ast.expr))


def _accumulators(loop) -> set:
    """The names a loop adds to (`t += ...`, `t.append(...)`) without setting them itself: what
    must be set again before the loop is run again."""
    added, set_here = set(), set()
    for n in walk(loop):
        if isinstance(n, ast.AugAssign):
            added.add(n.target.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name):
            added.add(n.func.value.id)
        elif isinstance(n, ast.Assign):
            set_here |= {t.id for t in n.targets}
        elif isinstance(n, ast.For):
            set_here.add(n.target.id)
    return added - set_here


# ---- what may be fused ---------------------------------------------------------------------------
def _fusable(node) -> bool:
    """A `for` loop that changes nothing but its own names (see the module's docstring)."""
    if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name) and not node.orelse):
        return False
    if any(isinstance(n, ast.NamedExpr) for n in walk(node)):
        return False
    return all(_plain(s, top=True) for s in node.body)


def _is_filter(statement) -> bool:
    return (isinstance(statement, ast.If) and len(statement.body) == 1 and isinstance(statement.body[0], ast.Continue)
            and not statement.orelse)


def _plain(statement, top: bool = False) -> bool:
    if top and _is_filter(statement):
        return True
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Assign):
        return all(isinstance(t, ast.Name) for t in statement.targets)
    if isinstance(statement, ast.AugAssign):
        return isinstance(statement.target, ast.Name)
    if isinstance(statement, ast.Expr):
        value = statement.value
        return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr in _ALLOWED_CALLS and isinstance(value.func.value, ast.Name)
                and len(value.args) == 1 and not value.keywords)
    if isinstance(statement, ast.If):
        return all(_plain(s) for s in statement.body + statement.orelse)
    if isinstance(statement, ast.For):   # (an inner loop: its own `continue` filters are its own)
        return (isinstance(statement.target, ast.Name) and not statement.orelse
                and all(_plain(s, top=True) for s in statement.body))
    return False


def _inits(statements: list, at: int, stop: int, loop) -> list:
    """The indexes of the statements just before `at` (after `stop`) that only set a name the
    loop accumulates into to a literal or an empty list (`t = 0`, `t = []`): moved with it."""
    accumulated = _writes(ast.Module(body=loop.body, type_ignores=[]))
    found, k = [], at - 1
    while k > stop:
        s = statements[k]
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                and s.targets[0].id in accumulated
                and (isinstance(s.value, ast.Constant) or (isinstance(s.value, ast.List) and not s.value.elts))):
            break
        found.append(k)
        k -= 1
    return sorted(found)


# ---- the pass ------------------------------------------------------------------------------------
def _block(statements: list, fresh: _Fresh) -> list:
    statements = _fuse_here(list(statements), fresh)
    for statement in statements:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if inner:
                setattr(statement, field, _block(inner, fresh))
        for handler in getattr(statement, "handlers", ()):
            handler.body = _block(handler.body, fresh)
    return statements


def _fuse_here(statements: list, fresh: _Fresh) -> list:
    loops = [s for s in statements if isinstance(s, ast.For)]
    if len(loops) < 2:
        return statements
    facts = _Facts()
    loops = [facts.iterable(s) for s in loops]
    if len(loops) == len(set(loops)):   # (most blocks: no two loops over one iterable)
        return statements
    twice = {key for key in loops if loops.count(key) > 1}
    i = 0
    while i < len(statements):
        s = statements[i]
        group = _group(statements, i, facts) if isinstance(s, ast.For) and facts.iterable(s) in twice else None
        if group is None:
            i += 1
            continue
        statements, i = _rewrite(statements, group, fresh)
    return statements


class _Facts:
    """What `_group` asks of a statement (the names it reads and writes, its iterable's dump,
    whether it is fusable, may leave the block, what it accumulates), worked out once per
    statement of a block: `_group` asks them again of the same statements for every later loop
    and every group. Exact: no statement is changed while the block is fused (`_rewrite` copies
    what it moves, and keeps the originals, unchanged, in the replay branches); each answer is
    kept with its statement, so an id is never reused for another node."""

    def __init__(self):
        self._known: dict = {}

    def _get(self, kind: str, statement, work):
        key = (kind, id(statement))
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = (statement, work(statement))
        return found[1]

    def reads(self, statement) -> set:
        return self._get("reads", statement, _reads)

    def writes(self, statement) -> set:
        return self._get("writes", statement, _writes)

    def iterable(self, loop) -> str:
        return self._get("iterable", loop, _iterable)

    def fusable(self, statement) -> bool:
        return self._get("fusable", statement, _fusable)

    def exits(self, statement) -> bool:
        return self._get("exits", statement, _exits)

    def accumulators(self, loop) -> set:
        return self._get("accumulators", loop, _accumulators)


def _iterable(loop) -> str:
    """What tells two loops' iterables alike: its dump."""
    return ast.dump(loop.iter)


def _group(statements: list, first: int, facts: _Facts):
    """[(loop index, its inits' indexes)] of the loops that fuse with the loop at `first`, or None."""
    head = statements[first]
    if not facts.fusable(head):
        return None
    key = facts.iterable(head)
    members = [(first, _inits(statements, first, -1, head))]
    if not facts.accumulators(head) <= {statements[k].targets[0].id for k in members[0][1]}:
        return None
    taken = {first, *members[0][1]}
    for j in range(first + 1, len(statements)):
        s = statements[j]
        if not (facts.fusable(s) and facts.iterable(s) == key):
            if facts.exits(s):   # (a later loop might not run: fusing it would be wasted work)
                break
            continue
        inits = _inits(statements, j, first, s)
        if not facts.accumulators(s) <= {statements[k].targets[0].id for k in inits}:
            continue   # (an accumulator set elsewhere: the loop could not be run again from the start)
        loop_writes = facts.writes(s) | {statements[k].targets[0].id for k in inits}
        loop_reads = facts.reads(s)
        between = [statements[k] for k in range(first + 1, j) if k not in taken and k not in inits]
        if any(facts.writes(m) & (loop_writes | loop_reads) or facts.reads(m) & loop_writes for m in between):
            continue
        if any(facts.writes(statements[k]) & (loop_writes | loop_reads) or facts.reads(statements[k]) & loop_writes
               for k, _ in members):
            continue
        later = statements[j + 1:]
        if any(s.target.id in facts.reads(m) for m in later + between):
            continue   # (its loop variable is read after it: the fused loop does not set it)
        members.append((j, inits))
        taken |= {j, *inits}
    return members if len(members) > 1 else None


def _rewrite(statements: list, group: list, fresh: _Fresh) -> tuple[list, int]:
    """The statements with the group's loops fused at the first one's place; each loop kept,
    run only when the fused loop raised, at its own place. -> (statements, index after the fused loop)."""
    failed = fresh("fused")
    head = statements[group[0][0]]
    target = head.target.id
    bodies, inits_all = [], []
    for index, inits in group:
        loop = statements[index]
        inits_all += [clone(statements[k]) for k in inits]
        renamed = _rename(clone(loop.body), loop.target.id, target)
        bodies.append(_unfiltered(renamed))
    fused = ast.For(target=ast.Name(id=target, ctx=ast.Store()), iter=clone(head.iter),
                    body=_shared_keys(bodies, fresh), orelse=[])
    held = held_names(fused, fresh)   # (exact in the try: passes/fused_reads.py)
    attempt = ast.Try(body=[*inits_all, *held, fused, _set(failed, False)],
                      handlers=[ast.ExceptHandler(type=ast.Name(id="_Exception", ctx=ast.Load()), name=None,
                                                  body=[_set(failed, True)])],
                      orelse=[], finalbody=[])
    replaced = {}
    for n, (index, inits) in enumerate(group):
        again = ast.If(test=ast.Name(id=failed, ctx=ast.Load()),
                       body=[statements[k] for k in inits] + [statements[index]], orelse=[])
        replaced[index] = ([attempt] if n == 0 else []) + [again]
        for k in inits:
            replaced[k] = []
    out, after = [], 0
    for k, s in enumerate(statements):
        out += replaced.get(k, [s])
        if k == group[0][0]:
            after = len(out)
    return out, after


def _set(identifier: str, value: bool) -> ast.Assign:
    return ast.Assign(targets=[ast.Name(id=identifier, ctx=ast.Store())], value=ast.Constant(value))


def _rename(nodes: list, old: str, new: str) -> list:
    if old != new:
        for node in nodes:
            for n in walk(node):
                if isinstance(n, ast.Name) and n.id == old:
                    n.id = new
    return nodes


def _unfiltered(body: list) -> list:
    """A loop body without `continue`: `if not c: continue; rest` -> `if c: rest` (so that one
    loop's filter does not skip another's body)."""
    for k, s in enumerate(body):
        if _is_filter(s):
            test = s.test.operand if isinstance(s.test, ast.UnaryOp) and isinstance(s.test.op, ast.Not) else \
                ast.UnaryOp(op=ast.Not(), operand=s.test)
            return body[:k] + [ast.If(test=test, body=_unfiltered(body[k + 1:]) or [ast.Pass()], orelse=[])]
    return body


def _shared_keys(bodies: list, fresh: _Fresh) -> list:
    """The fused loop's body: the loops' bodies in order; bodies that are one `if` on the same test
    merged, and the left side of comparisons `key == literal` shared by several read once into a
    local. (Reordering within an item is safe: nothing here changes what another part reads, or
    the `try` around the loop replays the original.)"""
    written = set().union(*(_writes(ast.Module(body=b, type_ignores=[])) for b in bodies))
    out, by_test = [], {}
    for body in bodies:
        if len(body) == 1 and isinstance(body[0], ast.If) and not body[0].orelse and not (_reads(body[0].test) & written):
            test_key = ast.dump(body[0].test)
            if test_key in by_test:
                by_test[test_key].body += body[0].body
                continue
            by_test[test_key] = body[0]
        out += body
    keys: dict = {}
    for s in out:
        if isinstance(s, ast.If) and _keyed(s.test) and not (_reads(s.test) & written):
            keys.setdefault(ast.dump(s.test.left), []).append(s.test)
    prelude = []
    for tests in keys.values():
        if len(tests) < 2:
            continue
        local = fresh("key")
        prelude.append(ast.Assign(targets=[ast.Name(id=local, ctx=ast.Store())], value=tests[0].left))
        for test in tests:
            test.left = ast.Name(id=local, ctx=ast.Load())
    return prelude + _chained(out, {a.targets[0].id for a in prelude})


def _chained(statements: list, locals_: set) -> list:
    """Adjacent `if k == c1: ...` / `if k == c2: ...` on one key local, distinct literals, made
    `if`/`elif`: once the key has matched one literal it cannot match another, so the later tests
    are skipped. Exact because the key local is set once before the body and never written in it,
    and the literals are str or int (not bool) and differ: no value the rules make is equal to two
    of them (a bool or a float equals at most one such int; a str, at most one str)."""
    out, chain_key, seen, tail = [], None, set(), None
    for s in statements:
        key = _literal_test(s, locals_)
        if key is not None and key[0] == chain_key and key[1] not in seen:
            tail.orelse = [s]
            seen.add(key[1])
            tail = s
            continue
        out.append(s)
        chain_key, seen, tail = (key[0], {key[1]}, s) if key is not None else (None, set(), None)
    return out


def _literal_test(statement, locals_: set):
    """(local, (type, literal)) for `if local == literal: ...` with no `else`, a str or int literal; else None."""
    if not (isinstance(statement, ast.If) and not statement.orelse):
        return None
    test = statement.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.left, ast.Name) and test.left.id in locals_
            and isinstance(test.comparators[0], ast.Constant)):
        return None
    value = test.comparators[0].value
    if type(value) not in (str, int):
        return None
    return test.left.id, (type(value) is str, value)


def _keyed(test) -> bool:
    """`e == literal` (or `!=`) with `e` worth reading once (not a name or a literal)."""
    return (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))
            and isinstance(test.comparators[0], ast.Constant)
            and not isinstance(test.left, (ast.Name, ast.Constant)))
