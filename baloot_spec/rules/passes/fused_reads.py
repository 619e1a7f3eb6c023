"""Reads a fused loop (fused_loops.py) makes cheaper because a failure in it replays the
original loops: a list read at each of its positions unpacked once, and module names read into
locals before the loop.

The fused loop runs in a `try` whose handler sets a flag, and with the flag set every original
loop runs again at its own place (accumulators set again first): whatever raises inside the
fused loop, the values and the failure are the original code's. So the fused loop may read what
it reads in another way, as long as that way gives the same values whenever it does not raise:

- **a list read at every position** `e[0]`, `e[1]`, ... `e[n-1]` (constant indexes, all of them,
  `e` a name or a name's attribute) in one statement is unpacked into n locals just before the
  statement, `_it1, _it2, ... = e`, and each `e[i]` reads its local: one read of `e` and one
  `UNPACK_SEQUENCE` where there were n reads of `e` and n subscripts (a finished trick's cards
  summed in the score phase: `k[x.cards[0]] + ... + k[x.cards[3]]`). A list of another length
  makes the unpacking raise, and the original loops run (the same value where it is longer, the
  same `IndexError` where it is shorter); where the list has n items the locals hold what the
  subscripts give (nothing in the statement runs before it reads them: the fused loop's
  statements change nothing but their own names, no walrus);
- **a module name** (the emitter's constants and tables `k_`, builtins `b_`, rule functions
  `f_`) the loop's body reads and nothing in the loop binds is read once into a local before
  the loop (`_g1 = k_table`), a `LOAD_FAST` at each read where there was a `LOAD_GLOBAL`. Nothing
  in the loop can give the name another value (it binds no such name, and the generated code
  never rebinds a module name: no `global` statement), so the local holds what every read would
  give; a name not bound at all raises `NameError` before the loop instead of at a read, and the
  original loops run. (Which names are the module's is the prefixes' guess, not a premise: a
  local of such a name, bound before the loop, is copied with the same exactness, only uselessly.)

Knows statement shapes, names and the replay the fused loop runs in; nothing of what the rules
compute.
"""

from __future__ import annotations

import ast

from ...expr.astutil import walk

_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# The generated module's own names (expr/emit.py): constants and per-card tables `k_`, builtins
# `b_`, rule functions `f_`: what a loop reads once an item, and a read of the module each time.
MODULE_PREFIXES = ("k_", "b_", "f_")
_SIMPLE = (ast.Assign, ast.AugAssign, ast.Expr)


def unpacked_items(body: list, fresh) -> list:
    """The fused loop's body with each list read at every position in one statement unpacked
    just before it (new statements; the ones unpacked are changed in place)."""
    out = []
    for statement in body:
        if isinstance(statement, _SIMPLE):
            out += _unpacked(statement, fresh)
            continue
        for field in ("body", "orelse"):
            inner = getattr(statement, field, None)
            if inner and isinstance(statement, (ast.If, ast.For)):
                setattr(statement, field, unpacked_items(inner, fresh))
        out.append(statement)
    return out


def _unpacked(statement, fresh) -> list:
    value = statement.value
    if any(isinstance(n, _SCOPES) for n in walk(value)):
        return [statement]   # (a name inside a nested scope may be that scope's own)
    reads: dict = {}
    for node in walk(value):
        if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _listed(node.value)
                and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int):
            reads.setdefault(_list_key(node.value), []).append(node)
    before, replaced = [], {}
    for subscripts in reads.values():
        positions = {s.slice.value for s in subscripts}
        if len(positions) < 2 or positions != set(range(len(positions))):
            continue
        names = [fresh("it") for _ in positions]
        before.append(ast.Assign(targets=[ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Store()) for n in names], ctx=ast.Store())],
                                 value=subscripts[0].value))
        replaced.update((id(s), names[s.slice.value]) for s in subscripts)
    if replaced:
        _replace(statement, replaced)
    return before + [statement]


def _replace(root, replaced: dict) -> None:
    """Each subscript node of `replaced` (by id) under `root` replaced, in its parent, by a read
    of its local (one walk: a node replaced is not walked into)."""
    for node in walk(root):
        for field, value in node.__dict__.items():
            if type(value) is list:
                value[:] = [_local(item, replaced) for item in value]
            elif id(value) in replaced and isinstance(value, ast.Subscript):
                setattr(node, field, _local(value, replaced))


def _local(node, replaced: dict):
    local = replaced.get(id(node)) if isinstance(node, ast.Subscript) else None
    return node if local is None else ast.Name(id=local, ctx=ast.Load())


def _listed(node) -> bool:
    """`x` or `x.a`: a list whose read twice gives the same object (a name, a name's attribute)."""
    return isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name))


def _list_key(node) -> tuple:
    """What tells two `_listed` reads of the same list alike (cheaper than their dumps)."""
    return (node.id, None) if isinstance(node, ast.Name) else (node.value.id, node.attr)


def held_names(loop: ast.For, fresh) -> list:
    """`_gN = name` for each module name (`MODULE_PREFIXES`) the loop's body reads and nothing in
    the loop binds (the reads replaced by the locals, in place); [] for a loop holding a nested
    scope (a name bound there is that scope's)."""
    nodes = [n for statement in loop.body for n in walk(statement)]
    if any(isinstance(n, _SCOPES) for n in nodes):
        return []
    bound = {n.id for n in walk(loop) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    locals_: dict = {}
    for node in nodes:
        if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id.startswith(MODULE_PREFIXES)
                and node.id not in bound):
            local = locals_.get(node.id)
            if local is None:
                local = locals_[node.id] = fresh("g")
            node.id = local
    return [ast.Assign(targets=[ast.Name(id=local, ctx=ast.Store())], value=ast.Name(id=module, ctx=ast.Load()))
            for module, local in locals_.items()]
