"""Kept derived values: a derived value (a zero-argument rule function) kept across events
while nothing has written a field it reads.

The per-position memo (`S._memo`) is emptied at every event, so a derived value reading only
fields nothing wrote since (whether a doubling is allowed, read at each call of the doubling) was
worked out again. A derived value whose reads are known (`state_reads`: through the rule
functions and the other derived values it calls) and are all either the rules' own state fields
that the engine never writes or the generic fields fixed when the state is made
(ENGINE_CONSTANT, engine/state.py) is kept instead in `S._kept`. Only rule effects write those
fields in play, so `S._kept` is replaced (`if S._kept: S._kept = {}`, never cleared in place:
`Hand.copy` copies it, nothing shares it) by exactly the effects that write a field some kept
value reads (rules/fuse.py), and by the engine's own paths that set rule fields outside play (a
position's set-up, the conformance runner's). Anything else stays in the per-position memo.
"""

from __future__ import annotations

import ast

from ...engine.state import ENGINE_CONSTANT, ENGINE_WRITES, IN_PLACE
from ..module import memoized_function
from ..pyast import attr, if_
from .lazy_maps import state_reads

# Fields the engine writes (at any event, in place or not), whatever the rules declare.
ENGINE_WRITTEN = (frozenset().union(*ENGINE_WRITES.values(), *IN_PLACE.values())
                  | {"public", "exposed", "leader", "initial", "_memo", "_kept"})


def kept_fields(body: ast.expr, bodies: dict, declared) -> frozenset | None:
    """The fields a derived value of this body reads, if it can be kept (each one of the rules'
    `declared` fields or ENGINE_CONSTANT, none ENGINE_WRITTEN); else None."""
    reads = state_reads(body, bodies)
    if reads is None or reads & ENGINE_WRITTEN or not reads <= (ENGINE_CONSTANT | frozenset(declared)):
        return None
    return frozenset(reads)


def kept_function(fn_name: str, key: str, body: ast.expr) -> ast.FunctionDef:
    """f(S) computing `body` once while S._kept is not replaced: add_memoized's function
    (rules/module.py) on `_kept` instead of `_memo`."""
    return memoized_function(fn_name, key, body, "_kept")


def keep_derived(builder, derived: list, declared) -> frozenset:
    """Each derived value of `derived` ((function name, key)) that can be kept made so, its
    function in `builder` replaced (once every body is known: a value may call one defined
    further down). -> the fields the kept values read: what an effect must not write without
    replacing S._kept."""
    reads: set = set()
    for fn_name, key in derived:
        body = builder.bodies[fn_name]
        fields = kept_fields(body, builder.bodies, declared)
        if fields is None:
            continue
        at = next(i for i, fn in enumerate(builder.functions) if fn.name == fn_name)
        builder.functions[at] = kept_function(fn_name, key, body)
        reads |= fields
    return frozenset(reads)


def fresh_kept() -> ast.If:
    """`if S._kept: S._kept = {}`: after an effect that writes a field a kept value reads."""
    kept = attr("S", "_kept")
    return if_(kept, [ast.Assign(targets=[attr("S", "_kept", ast.Store())], value=ast.Dict(keys=[], values=[]))])
