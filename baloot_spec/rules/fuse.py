"""Fusing: the rules of a phase run together in one generated function each (narrow, check,
effects, facts, steps), built as `ast` from the emitted expressions, with the passes of
passes/ applied to them. A failing expression inside a fused function is reported under its own
rule's id (ModuleBuilder.guarded), or, for the narrow, makes the engine re-run the rules one
by one to name it."""

from __future__ import annotations

import ast

from ..expr.astutil import clone, walk
from ..expr.emit import LAZY_LOCAL
from .module import ModuleBuilder
from .passes.candidates import Folded, fold, per_candidate
from .passes.cards import on_cards
from .passes.dispatch import dispatch_field, dispatched, folded_when
from .passes.guards import any_guard, refusal_guard
from .passes.hoist import hoisted
from .passes.kept import fresh_kept
from .pyast import (append, assign, attr, both, call, const, either, function, if_, is_const, lazy_locals, name, not_,
                    store)


def fused_check(builder: ModuleBuilder, checks: list) -> str:
    """All check rules of a phase in order: the index of the first that refuses, or -1.
    `checks`: (rule id, when, test, if_possible) with emitted `when` and `test`."""
    body = []
    for k, (_rule_id, when, test, _) in enumerate(checks):
        body += [assign("i", const(k)), if_(both([when, not_(test)]), [ast.Return(value=const(k))])]
    return builder.guarded("check", "S, A", [c[0] for c in checks], lazy_locals(*body) + body, const(-1),
                           any_guard([c[1] for c in checks]))


def fused_effects(builder: ModuleBuilder, effects: list, domains: dict | None = None, kept: frozenset = frozenset()) -> str:
    """All effects of a phase at one moment, in order; each sees the state the earlier ones left
    (their new values, and a fresh memo of derived values). `effects`: (id, when, values, names).
    With `domains` (a calls phase's action fields and their values), written out per value of the
    field that rules out the most effects (passes/dispatch.py).

    The memo is made afresh after an effect only where something after it reads a derived value
    (a later effect's `when` or values); after the last such reader, once at the end (and in
    the handler, should a later effect fail) where one of those effects always runs, so that
    the one reset costs no more than theirs did. An effect that sets one of `kept` (the fields
    the kept derived values read: passes/kept.py) replaces S._kept right after it."""
    def run(whens: list) -> list:
        live = [k for k, when in enumerate(whens) if not is_const(when, False)]
        last_read = max((k for k in live if reads_derived(whens[k], effects[k][2])), default=-1)
        tail = any(is_const(whens[k], True) for k in live if k >= last_read)   # (one always runs)
        body = []
        for k, ((_effect_id, _when, values, names), when) in enumerate(zip(effects, whens)):
            if is_const(when, False):
                continue
            targets = ast.Tuple(elts=[attr("S", n, ast.Store()) for n in names], ctx=ast.Store())
            then = [ast.Assign(targets=[targets], value=values)]
            if kept.intersection(names):
                then.append(fresh_kept())
            if not (tail and k >= last_read):
                then.append(_fresh_memo())
            body += [assign("i", const(k)), *lazy_locals(when, values), *(then if is_const(when, True) else [if_(when, then)])]
        if tail:
            body.append(_fresh_memo())
            deferred[0] = True
        return body

    deferred = [False]
    whens = [e[1] for e in effects]
    effects = [(effect_id, when, Folded().visit(clone(values)), names) for effect_id, when, values, names in effects]
    body = run([fold(clone(when), boolean=True) for when in whens])   # (`if x == 1 and False:` dropped)
    field = dispatch_field(whens, domains) if domains and effects else None
    if field is not None:
        body = dispatched(field, domains[field], lambda value: run([folded_when(w, field, value) for w in whens]), body)
    return builder.guarded("effects", "S, A", [e[0] for e in effects], body, ast.Constant(None), any_guard(whens),
                           on_error=[_fresh_memo()] if deferred[0] else ())


def _fresh_memo() -> ast.If:
    """`if S._memo: S._memo = {}`: the derived values read afresh after a change of the state. A
    memo still empty is kept (it is the state's alone: engine/state.py), so that most changes,
    where nothing read a derived value since the last one, make and free no dict."""
    memo = attr("S", "_memo")
    return if_(memo, [ast.Assign(targets=[attr("S", "_memo", ast.Store())], value=ast.Dict(keys=[], values=[]))])


def reads_derived(*nodes) -> bool:
    """Whether evaluating `nodes` may read a derived value (the memo): a rule function's call or
    its lazy local, the memo itself, or the state passed whole to something (a lazy map, a
    table, a builtin). A state field read (`S.x`) does not."""
    for node in nodes:
        fields = {id(sub.value) for sub in walk(node) if isinstance(sub, ast.Attribute)}
        for sub in walk(node):
            if isinstance(sub, ast.Name) and (sub.id.startswith(("f_", LAZY_LOCAL)) or (sub.id == "S" and id(sub) not in fields)):
                return True
            if isinstance(sub, ast.Attribute) and sub.attr == "_memo":
                return True
    return False


def fused_facts(builder: ModuleBuilder, sources: list) -> str:
    """facts_all(S): every fact, in order, set on a new scoring namespace. `sources`: (id, name, value)."""
    body = [assign("V", call("_Namespace")), *lazy_locals(*(f[2] for f in sources))]
    for k, (_id, fact, value) in enumerate(sources):
        body += [assign("i", const(k)), assign(attr("V", fact, ast.Store()), value)]
    return builder.guarded("facts_all", "S", [f[0] for f in sources], body, name("V"))


def fused_steps(builder: ModuleBuilder, sources: list) -> str:
    """steps_all(S): every scoring step, in order, set on S. `sources`: (id, name, value)."""
    body = []
    for k, (_id, step, value) in enumerate(sources):
        body += [assign("i", const(k)), *lazy_locals(value), assign(attr("S", step, ast.Store()), value)]
    return builder.guarded("steps_all", "S", [f[0] for f in sources], body, name("S"))


def guard_fn(builder: ModuleBuilder, items: list) -> str | None:
    """The name of a generated guard(A) for these checks or effects (see CompiledPhase), or None."""
    guard = any_guard([item[1] for item in items]) if items else ast.Constant(False)
    return builder.add("A", guard, prefix="guard") if guard is not None else None


def refusal_fn(builder: ModuleBuilder, checks: list) -> str | None:
    """The name of a generated refuses(A) for these checks (passes/guards.py refusal_guard), or None."""
    guard = refusal_guard(checks)
    return builder.add("A", guard, prefix="refuses") if guard is not None else None


def phase_fn(builder: ModuleBuilder, what: str, phase: dict, value: ast.expr) -> str:
    """A phase's own expression (turn, end, next, leader, winner, taker) as f(S); a failure is
    a RuleRuntimeError named '<what> of <phase id>', raised by the function itself so that
    the engine calls it without a wrapper."""
    return builder.guarded(what, "S", [f"{what} of {phase['id']}"], [*lazy_locals(value), assign("R", value)], name("R"))


def narrow_by_length(builder: ModuleBuilder, narrows: tuple, field: str) -> str:
    """narrow(S, C) for any length of the engine's list `field`: the one of `narrows` (named,
    one per length, rules/compile.py) made for its length; None past them (as a failing narrow:
    the engine then runs the rules one by one). Instead of a whole narrow testing the length."""
    fn_name = builder.next_name("narrow")
    pick = ast.Subscript(value=ast.Tuple(elts=[name(n) for n in narrows], ctx=ast.Load()),
                         slice=call("b_len", attr("S", field)), ctx=ast.Load())
    builder.functions.append(function(fn_name, "S, C", [
        ast.Try(body=[assign("N", pick)],
                handlers=[ast.ExceptHandler(type=name("_Exception"), name=None, body=[ast.Return(value=ast.Constant(None))])],
                orelse=[], finalbody=[]),
        ast.Return(value=ast.Call(func=name("N"), args=[name("S"), name("C")], keywords=[]))]))
    return fn_name


def record_of(names: list) -> ast.expr:
    """`_R({'a': V.a, ...})` of each name once, in order (names are checked identifiers)."""
    names = list(dict.fromkeys(names))
    return call("_R", ast.Dict(keys=[const(n) for n in names], values=[attr("V", n) for n in names]))


def kept_loop(test: ast.expr) -> list:
    """Statements that leave in K the candidates of C for which `test` holds, in order: a loop,
    not a list comprehension, which in CPython 3.11 makes a function object and a frame at every
    position (237 against 133 ns for five cards; `append` is specialised)."""
    return [assign("K", ast.List(elts=[], ctx=ast.Load())),
            ast.For(target=store("A"), iter=name("C"), body=[if_(test, [append("K", name("A"))])], orelse=[])]


def fused_narrow(builder: ModuleBuilder, filters: list, candidates: list | None = None, over_cards: bool = False) -> str:
    """All filter rules of a phase in order: keep the candidates `only` holds for; with
    if_possible, skip a rule that would keep nothing. Consecutive plain rules make one pass:
    a candidate must pass each of them whose `when` holds. If any expression fails, the
    function returns None and the engine re-runs the rules one by one to name the failing one.
    `filters`: (rule id, when, test, if_possible) with emitted `when` and `test`.

    With `candidates` (a calls phase: the engine passes all of them, in that order), the first
    pass is written out per candidate with its fields folded in (passes/candidates.py).

    With `over_cards` (a tricks phase whose filters read nothing of a play but its card,
    passes/cards.py), the candidates are the cards themselves: the engine passes the hand as it
    is, without making a play of each card first."""
    if over_cards:
        filters = [(rule_id, when, on_cards(test), if_possible) for rule_id, when, test, if_possible in filters]
    body, group = [], []
    whole = [candidates is not None]   # C is still the whole candidate list

    def flush():
        live = [(k, when, test) for k, when, test in group if not is_const(when, False)]
        group.clear()
        if not live:
            return
        tests = []
        for k, when, test in live:
            if is_const(when, True):
                tests.append(test)
            else:
                body.append(assign(f"w{k}", when))
                tests.append(either([not_(name(f"w{k}")), test]))
        lifted, test = hoisted(both(tests))
        lines = lifted + kept_loop(test) + [assign("C", name("K"))]
        if whole[0]:
            lines = lifted + per_candidate(test, candidates)
        whole[0] = False
        if any(is_const(when, True) for _, when, _ in live):
            body.extend(lines)
        else:   # no pass at all when no rule of the group applies
            body.append(if_(either([name(f"w{k}") for k, _, _ in live]), lines))

    for k, (_rule_id, when, test, if_possible) in enumerate(filters):
        if not if_possible:
            group.append((k, when, test))
            continue
        flush()
        if is_const(when, False) or is_const(test, False):   # never applies, or never keeps a card (then skipped)
            continue
        lifted, test = hoisted(test)
        whole[0] = False
        lines = lifted + kept_loop(test) + [if_(name("K"), [assign("C", name("K"))])]
        body.extend(lines) if is_const(when, True) else body.append(if_(when, lines))
    flush()
    fn_name = builder.next_name("narrow")
    builder.functions.append(function(fn_name, "S, C", [
        ast.Try(body=lazy_locals(*body) + body or [ast.Pass()],
                handlers=[ast.ExceptHandler(type=name("_BalootError"), name=None, body=[ast.Raise()]),
                          ast.ExceptHandler(type=name("_Exception"), name=None,
                                            body=[ast.Return(value=ast.Constant(None))])],   # the engine names the failing rule
                orelse=[], finalbody=[]),
        ast.Return(value=name("C"))]))
    return fn_name

