"""Module names a fused loop (fused_loops.py) reads once, before the loop, because a failure in
it replays the original loops.

The fused loop runs in a `try` whose handler sets a flag, and with the flag set every original
loop runs again at its own place (accumulators set again first): whatever raises inside the
fused loop, the values and the failure are the original code's. So the fused loop may read what
it reads in another way, as long as that way gives the same values whenever it does not raise:
a **module name** (the emitter's constants and tables `k_`, builtins `b_`, rule functions `f_`)
the loop's body reads and nothing in the loop binds is read once into a local before the loop
(`_g1 = k_table`), a `LOAD_FAST` at each read where there was a `LOAD_GLOBAL`. Nothing in the
loop can give the name another value (it binds no such name, and the generated code never
rebinds a module name: no `global` statement), so the local holds what every read would give; a
name not bound at all raises `NameError` before the loop instead of at a read, and the original
loops run. (Which names are the module's is the prefixes' guess, not a premise: a local of such
a name, bound before the loop, is copied with the same exactness, only uselessly.)

Measured and left out (step 127, at its merge): a list read at every position `e[0]` ... `e[n-1]`
unpacked once (`_i1, ..., _in = e`). Exact for a list, a tuple or a text, whatever their length
(another length raises and the original loops run), but not for a map whose keys are 0 ... n-1:
it unpacks into its keys and raises nothing (tests/test_fused_reads.py), and these passes do not
know an expression's type. It was worth about 5 bytecodes a trick.

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
