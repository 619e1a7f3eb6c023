"""A calls phase's action effects written out per value of one action field
(baloot_spec/rules/passes/dispatch.py, rules/fuse.py `fused_effects`): which field, the folded
`when`s, and the same state changes and the same failing rule as the effects run one by one,
for every value offered and for one that is not."""

import ast
import itertools
from types import SimpleNamespace

import pytest

from baloot_spec.errors import BalootError, RuleRuntimeError
from baloot_spec.rules.fuse import fused_effects
from baloot_spec.rules.module import ModuleBuilder
from baloot_spec.rules.passes.dispatch import dispatch_field, domains_of, folded_when
from baloot_spec.rules.passes.rule_lines import rule_at


def _e(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def test_domains_of_keeps_the_fields_whose_values_are_all_text():
    actions = {"bid": {"call": ["pass", "hokum"], "closed": [False, True]}, "other": {"call": ["sun"], "n": [1, 2]}}
    assert domains_of(actions) == {"call": ("pass", "hokum", "sun")}


def test_the_field_that_rules_out_the_most_effects_is_chosen():
    whens = [_e("A.call == 'a' and S.x"), _e("A.call in ['a', 'b']"), _e("A.kind == 'k'"), _e("S.y")]
    assert dispatch_field(whens, {"kind": ("k", "l"), "call": ("a", "b", "c")}) == "call"
    assert dispatch_field([_e("S.y")], {"call": ("a", "b")}) is None


@pytest.mark.parametrize("when, value, folded", [
    ("A.call == 'a' and S.x", "a", "S.x"),
    ("A.call == 'a' and S.x", "b", "False"),
    ("S.x and A.call == 'b'", "a", "False"),          # (reading a state field cannot fail: dropped)
    ("A.call in ['a', 'b']", "b", "True"),
    ("S.n >= 2 and A.call != 'a'", "a", "S.n >= 2 and False"),   # (an order comparison may fail: kept)
    ("A.closed or A.call == 'c'", "c", "A.closed or True"),   # (only state reads are dropped)
])
def test_folded_when(when, value, folded):
    assert ast.unparse(folded_when(_e(when), "call", value)) == folded


_EFFECTS = [
    ("e.first", "A.call == 'a'", "(S.n + 1,)", ("n",)),
    ("e.second", "A.call in ['a', 'b'] and S.flag", "(S.n * 10, not S.flag)", ("n", "flag")),
    ("e.third", "S.n > 5 and A.call != 'c'", "(1 // S.zero,)", ("n",)),   # fails where it runs with zero 0
    ("e.fourth", "S.n >= 0", "(A.call,)", ("last",)),
]


def _compiled(domains):
    builder = ModuleBuilder()
    effects = [(i, _e(w), _e(v), names) for i, w, v, names in _EFFECTS]
    fn = fused_effects(builder, effects, domains)
    space = {"_RuleRuntimeError": RuleRuntimeError, "_BalootError": BalootError, "_Exception": Exception, "_rule_at": rule_at}
    exec(compile(builder.source(), "<test>", "exec"), space)
    return space[fn], builder.source()


def test_dispatched_effects_do_what_the_effects_do_one_by_one():
    plain, _ = _compiled(None)
    dispatched, source = _compiled({"call": ("a", "b", "c")})
    assert "_dispatch = A.call" in source and "_dispatch = A.call" not in _compiled(None)[1]
    for call, n, flag, zero in itertools.product(["a", "b", "c", "d", None], [-1, 0, 3, 7], [False, True], [0, 1]):
        outcomes = []
        for fn in (plain, dispatched):
            S = SimpleNamespace(n=n, flag=flag, zero=zero, last=None, _memo={"x": 1})
            try:
                fn(S, SimpleNamespace(call=call, closed=False))
                outcomes.append(vars(S))
            except RuleRuntimeError as exc:
                outcomes.append(("raised", str(exc)))
        assert outcomes[0] == outcomes[1], (call, n, flag, zero)


def test_an_action_without_the_field_runs_the_effects_one_by_one():
    # (no effect reads A.call for this state: the effects one by one do not fail, nor may the dispatch)
    effects = [("e.first", "S.flag and A.call == 'a'", "(1,)", ("n",)), ("e.second", "S.n >= 0", "(S.n + 1,)", ("n",))]
    outcomes = []
    for domains in (None, {"call": ("a", "b")}):
        builder = ModuleBuilder()
        fn = fused_effects(builder, [(i, _e(w), _e(v), names) for i, w, v, names in effects], domains)
        space = {"_RuleRuntimeError": RuleRuntimeError, "_BalootError": BalootError, "_Exception": Exception, "_rule_at": rule_at}
        exec(compile(builder.source(), "<test>", "exec"), space)
        S = SimpleNamespace(n=3, flag=False, _memo={})
        space[fn](S, SimpleNamespace(closed=False))
        outcomes.append((vars(S), "_dispatch" in builder.source()))
    state = {"n": 4, "flag": False, "_memo": {}}
    assert outcomes == [(state, False), (state, True)]
