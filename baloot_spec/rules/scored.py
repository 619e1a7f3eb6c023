"""The scoring steps and both result records in one generated function, the steps in locals.

The engine's score phase used to make three calls on the facts' namespace (fuse.py): the facts
as a record (`facts_of`), every step set on the namespace (`steps_all`), then the facts and the
steps copied into the score record (`score_of`). Each step was stored as an attribute and read
back as one by every later step and by the record. `scored(S)` reads each fact off the namespace
once into a local, builds the facts record from the locals, runs the steps in order as locals
(`i = k` before each, as in every fused function, so that a failure is still reported under its
own step's id), and builds the score record from the locals: -> (facts record, score record).

A step's value reads a fact or an earlier step as `S.<name>` (expr/emit.py: they are the step
scope's state); each such read becomes the name's local. Where a value reads the namespace in
any other way (a rule function or a derived value called with it, or a name a later step sets,
which an inlined function body can read), no function is made (None): the engine then makes the
three calls as before. The namespace is never written: steps_all stays what `score_facts` runs.

Facts whose value the code being made knows (a specialised score phase's facts with the contract
folded in: `mode` is a literal in a Sun's) are literals in the steps (rules/compile.py emits
them with those values fixed); they are not read off the namespace, the record holds the literal.

A specialised score phase also gets `facts_scored(S)` of the state itself (the same function with
`fact_parts`): each fact computed straight into its local, as facts_all would set it on the
namespace, then the records and the steps as above; no namespace is made, set or read back. Its
failures are named by the fact's or the step's id (one index over both). Its steps are checked
with the facts' types (`typed_step`): a fact's local holds what the emitted fact computes, so
what its checked tree's type says (a `score` case's facts come from JSON: they go through
steps_all, never through this function); the emitter then writes out what the types allow
(`round_to` of an int: expr/builtin_forms.py).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ..errors import RulesError
from ..expr.astutil import clone, walk
from ..expr.resolve import check as check_expression
from .module import ModuleBuilder
from .pyast import assign, attr, call, const, lazy_locals, name
from .source import source_of, text_of

NAMESPACE = "S"
PREFIX = "_s_"   # the locals of facts and steps (no other generated name starts so: see record_stores.py)
FACTS, SCORE = "_sF", "_sQ"   # the two records being filled


def local(step: str) -> str:
    return PREFIX + step


def fused_scored(builder: ModuleBuilder, facts: list, steps: list, known: dict, fact_parts: list | None = None,
                 leading: tuple = ()) -> str | None:
    """scored(S) -> (facts record, score record), or None where a step reads the namespace other
    than by a fact's or an earlier step's name. `facts`: the fact names in order; `steps`:
    (id, name, emitted value) in order; `known`: fact name -> the literal it is in this code.
    With `fact_parts` ((id, name, emitted value) of the facts over the state, in order):
    facts_scored(S) of the state, each fact computed into its local; with `leading` too ((name,
    literal) pairs the engine puts first in a hand's result, engine/state.py RESULT_LEADING), it
    returns the result instead of the score record: a plain dict, those pairs then the score's
    entries (None where a fact or a step has one of their names)."""
    facts = list(dict.fromkeys(facts))
    names = {fact for fact in facts if fact not in known}   # (a literal fact left as S.<name>: no function)
    if fact_parts is None:
        ids, prefix = [], "scored"
        body = [assign(local(fact), attr(NAMESPACE, fact)) for fact in facts if fact not in known]
    else:
        ids, prefix = [part[0] for part in fact_parts], "facts_scored"
        body = lazy_locals(*(part[2] for part in fact_parts))
        for k, (_id, fact, value) in enumerate(fact_parts):
            if not (fact in known and isinstance(value, ast.Constant)):   # (a literal: the records hold it)
                body += [assign("i", const(k)), assign(local(fact), clone(value))]
    record = [(fact, const(known[fact]) if fact in known else name(local(fact))) for fact in facts]
    body.append(assign(FACTS, _record(record)))
    for k, (_id, step, value) in enumerate(steps):
        value = in_locals(value, names)
        if value is None:
            return None
        body += [assign("i", const(len(ids) + k)), *lazy_locals(value), assign(local(step), value)]   # (a derived value: afresh)
        names.add(step)
    order = list(dict.fromkeys(facts + [step for _, step, _ in steps]))
    values = {fact: value for fact, value in record}
    values.update((step, name(local(step))) for _, step, _ in steps)
    if fact_parts is not None and leading:
        if any(lead in values for lead, _ in leading):
            return None
        body += _shown([(lead, const(value)) for lead, value in leading] + [(n, clone(values[n])) for n in order], builder)
    else:
        body.append(assign(SCORE, _record([(n, clone(values[n])) for n in order])))
    result = ast.Tuple(elts=[name(FACTS), name(SCORE)], ctx=ast.Load())
    return builder.guarded(prefix, NAMESPACE, ids + [s[0] for s in steps], body, result)


def typed_step(step: dict, scope, types: dict | None, function_types: dict) -> tuple:
    """(scope, checked tree or None) of a step whose context has `types` (name -> type; the step's
    own is added for the steps after it). None: the scope as it is, checked as usual (cached)."""
    if types is None:
        return scope, None
    typed = replace(scope, state_types=dict(types))
    try:   # (afresh: the cache of checked trees does not key types)
        tree = check_expression(text_of(step["expr"]), typed, source_of(step["expr"]), step["id"], function_types)
    except RulesError:   # (refused with the types: checked as before, untyped)
        types.pop(step["name"], None)
        return scope, None
    types[step["name"]] = tree.type
    return typed, tree


def literal_facts(fact_parts: list, steps: set) -> dict:
    """fact name -> the plain literal its emitted value is (what the emitter folds as fixed
    state); not a name a step takes again (a later step's reads of it are the step's)."""
    return {fact: value.value for _id, fact, value in fact_parts
            if isinstance(value, ast.Constant) and fact not in steps
            and (value.value is None or isinstance(value.value, (str, int, bool)))}


def in_locals(value: ast.expr, names: set) -> ast.expr | None:
    """A copy of `value` with each `S.<name>` of `names` read as its local; None if the namespace
    is still read (passed to a function, or a name not set yet)."""
    value = _Locals(names).visit(ast.Expression(body=clone(value))).body
    if any(isinstance(node, ast.Name) and node.id == NAMESPACE for node in walk(value)):
        return None
    return value


class _Locals(ast.NodeTransformer):
    def __init__(self, names: set):
        self.names = names

    def visit_Attribute(self, node):
        if (isinstance(node.value, ast.Name) and node.value.id == NAMESPACE and isinstance(node.ctx, ast.Load)
                and node.attr in self.names):
            return name(local(node.attr))
        return self.generic_visit(node)


_LITERAL = (str, int, bool, type(None))   # (immutable: a template may hold them for every hand)


def _shown(items: list, builder: ModuleBuilder) -> list:
    """`_sQ = _sT1.copy()`, then `_sQ['p'] = p` for each entry that is not a literal (item stores
    into a plain dict, which CPython specialises): the template `_sT1`, set when the module loads,
    holds every key in order, each literal entry with its value, the others None; the engine keeps
    the dict as the hand's result and makes the score record from it only when it is read
    (engine/scores.py). The same keys in the same order with the same values: a store into a key
    the dict holds keeps its place. Every value is a literal or a local already set: nothing
    fails. A copy of a plain dict copies its table at once (no key inserted, no table grown), and
    the literal entries (the engine's leading two, a literal fact) are not stored: 39 entries of
    which 3 literal, ~11,600 machine instructions against ~13,400 for a 15-entry display and 24
    stores (CPython 3.11, callgrind; tools/BENCHMARKS.md, step 121)."""
    template = f"_sT{len(builder.statements) + 1}"
    literal = {k: v.value for k, v in items if isinstance(v, ast.Constant) and type(v.value) in _LITERAL}
    builder.statements.append(assign(template, ast.Dict(keys=[const(k) for k, _ in items],
                                                        values=[const(literal.get(k)) for k, _ in items])))
    target = ast.Name(id=SCORE, ctx=ast.Load())
    copied = ast.Call(func=ast.Attribute(value=name(template), attr="copy", ctx=ast.Load()), args=[], keywords=[])
    return [assign(SCORE, copied)] + [
        ast.Assign(targets=[ast.Subscript(value=target, slice=const(k), ctx=ast.Store())], value=v)
        for k, v in items if k not in literal]


def _record(items: list) -> ast.Call:
    """`_R({'a': a, ...})`: filled item by item once written (passes/record_stores.py)."""
    return call("_R", ast.Dict(keys=[const(k) for k, _ in items], values=[v for _, v in items]))
