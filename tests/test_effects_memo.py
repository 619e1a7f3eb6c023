"""A phase's fused effects (rules/fuse.py `fused_effects`): the memo of derived values made afresh
once at the end where no later effect reads one and one of those effects always runs (the same
state, memo included, as a reset after each effect that ran); and tests and values that a
deciding literal settles folded where what it skips cannot fail (`S.bid != None or True`)."""

import ast
import itertools
from types import SimpleNamespace

import pytest

from baloot_spec.errors import BalootError, RuleRuntimeError
from baloot_spec.rules import module
from baloot_spec.rules.fuse import fused_effects, reads_derived
from baloot_spec.rules.module import ModuleBuilder
from baloot_spec.rules.passes.rule_lines import rule_at


def _e(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _compiled(effects, domains=None, one_reset_each=False, monkeypatch=None):
    builder = ModuleBuilder()
    fn = fused_effects(builder, [(i, _e(w), _e(v), names) for i, w, v, names in effects], domains)
    source = builder.source()
    space = {"_RuleRuntimeError": RuleRuntimeError, "_BalootError": BalootError, "_Exception": Exception,
             "_rule_at": rule_at, "f_double": lambda S: S._memo.setdefault("double", S.n * 2)}
    exec(compile(source, "<test>", "exec"), space)
    return space[fn], source


def _body_resets(source: str) -> int:
    """`S._memo = {}` outside the handlers."""
    body = source.split("    except _BalootError:")[0]
    return body.count("S._memo = {}")


_TAIL = [
    ("e.first", "True", "(S.n + 1,)", ("n",)),
    ("e.second", "S.n > 2", "(S.n * 10,)", ("n",)),
    ("e.third", "S.flag", "(not S.flag, 1 // S.zero)", ("flag", "last")),   # fails where zero is 0
]


def test_one_reset_at_the_end_where_an_effect_always_runs_and_none_reads_the_memo():
    _, source = _compiled(_TAIL)
    assert _body_resets(source) == 1 and source.count("S._memo = {}") == 3   # (and one in each handler)


def test_a_reset_stays_before_an_effect_that_reads_a_derived_value():
    effects = _TAIL + [("e.fourth", "f_double(S) > 20", "(0,)", ("zero",))]
    _, source = _compiled(effects)
    assert _body_resets(source) == 4   # (each effect before the reader, then the reader's own)


def test_without_an_effect_that_always_runs_each_keeps_its_reset():
    _, source = _compiled(_TAIL[1:])
    assert _body_resets(source) == 2 and source.count("S._memo = {}") == 2


@pytest.mark.parametrize("effects", [_TAIL, _TAIL[1:], _TAIL + [("e.fourth", "f_double(S) > 20", "(0,)", ("zero",))]])
def test_the_state_and_its_memo_are_as_with_a_reset_after_each_effect(effects, monkeypatch):
    fn, _ = _compiled(effects)
    monkeypatch.setattr(module, "_TEXTS", {})
    import baloot_spec.rules.fuse as fuse
    monkeypatch.setattr(fuse, "reads_derived", lambda *nodes: True)   # (every effect a reader: a reset each)
    each, source = _compiled(effects)
    assert _body_resets(source) == len(effects)
    for n, flag, zero in itertools.product([0, 3, 7], [False, True], [0, 1]):
        outcomes = []
        for f in (fn, each):
            S = SimpleNamespace(n=n, flag=flag, zero=zero, last=None, _memo={"stale": 1})
            try:
                f(S, SimpleNamespace(call="a"))
                outcomes.append(("ran", vars(S)))
            except RuleRuntimeError as exc:
                # (a reset where the one-by-one run made none: a fresh memo, computed again alike)
                outcomes.append(("raised", exc.rule_id, {k: v for k, v in vars(S).items() if k != "_memo"}, S._memo in ({}, {"stale": 1})))
        assert outcomes[0] == outcomes[1], (n, flag, zero)


def test_an_effect_failing_after_a_deferred_reset_leaves_a_fresh_memo():
    fn, _ = _compiled(_TAIL)
    S = SimpleNamespace(n=5, flag=True, zero=0, last=None, _memo={"stale": 1})
    with pytest.raises(RuleRuntimeError) as caught:
        fn(S, SimpleNamespace(call="a"))
    assert caught.value.rule_id == "e.third" and S.n == 60 and S._memo == {}


def test_reads_derived():
    assert not reads_derived(_e("S.a == 1 and b_distance(S.x, S.y) > k_table[S.z]"))
    for text in ("f_x(S)", "_h_x", "b_sum(S)", "S._memo", "_LazyMap(k, e, S, ())"):
        assert reads_derived(_e(text)), text


@pytest.mark.parametrize("value, folded", [
    ("(S.bid != None or True,)", "(True,)"),
    ("(3 if S.bid == None and False else 2,)", "(2,)"),
    ("(S.bid == None and False, not S.x or True)", "(False, True)"),
    ("(S.n >= 2 and False,)", "(S.n >= 2 and False,)"),     # (an order comparison may fail: kept)
    ("(A.closed == 1 or True,)", "(A.closed == 1 or True,)"),   # (an action's field may be missing)
    ("(f_x(S) == 1 or True,)", "(f_x(S) == 1 or True,)"),
    ("(S.x or True,)", "(S.x or True,)"),      # (S.x itself if truthy: not True)
    ("(S.x == 1 or 5,)", "(S.x == 1 or 5,)"),  # (True or 5)
])
def test_values_settled_by_a_literal_are_folded(value, folded):
    _, source = _compiled([("e.one", "S.go", value, ("a",))])
    assert f"S.a, = {folded}" in source


@pytest.mark.parametrize("when, dropped", [
    ("S.round == 2 and False", True),
    ("not S.done and False", True),
    ("S.round >= 2 and False", False),
    ("A.call == 'x' and False", False),
])
def test_a_block_a_literal_rules_out_is_dropped_where_its_test_cannot_fail(when, dropped):
    _, source = _compiled([("e.one", "True", "(1,)", ("a",)), ("e.two", when, "(2,)", ("b",))])
    assert ("S.b, = (2,)" not in source) == dropped
