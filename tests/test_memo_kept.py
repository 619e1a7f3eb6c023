"""The memo of derived values (`S._memo`) is replaced after a change of the state only where it
holds something: `if S._memo: S._memo = {}` in the engine and in the fused effects
(tools/BENCHMARKS.md, step 102). Most changes (every card of a hand) come where nothing read a
derived value since the last one, so no dict is made and freed; a memo that holds a value is
still replaced, never read stale; a memo is one state's alone (a copied hand has its own)."""

import ast
import random
import re
from types import SimpleNamespace

import pytest

from baloot_spec.errors import BalootError, RuleRuntimeError
from baloot_spec.engine.hand import Hand
from baloot_spec.rules import load_variant
from baloot_spec.rules.fuse import fused_effects
from baloot_spec.rules.module import ModuleBuilder
from baloot_spec.rules.passes.rule_lines import rule_at

DECK = ["AC", "KS", "7H", "QS", "TH", "KC", "JS", "JH", "TD", "AS", "KH", "8D", "KD", "TC", "QD", "8C",
        "7S", "JC", "TS", "7D", "QH", "AH", "8S", "9C", "9H", "JD", "QC", "9D", "8H", "7C", "9S", "AD"]


@pytest.fixture(scope="module")
def rules():
    return load_variant()


def _e(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _compiled(effects):
    builder = ModuleBuilder()
    fn = fused_effects(builder, [(i, _e(w), _e(v), names) for i, w, v, names in effects])
    source = builder.source()
    space = {"_RuleRuntimeError": RuleRuntimeError, "_BalootError": BalootError, "_Exception": Exception,
             "_rule_at": rule_at, "f_double": lambda S: S._memo.setdefault("double", S.n * 2)}
    exec(compile(source, "<test>", "exec"), space)
    return space[fn], source


_READERS = [
    ("e.first", "f_double(S) > 0", "(S.n + 1,)", ("n",)),       # reads (and fills) the memo, then changes n
    ("e.second", "True", "(f_double(S),)", ("d",)),             # must see the new n
    ("e.third", "S.n > 100", "(0,)", ("n",)),
]


def test_every_reset_the_effects_make_is_guarded():
    _, source = _compiled(_READERS)
    lines = source.splitlines()
    resets = [k for k, line in enumerate(lines) if line.strip() == "S._memo = {}"]
    assert resets and all(lines[k - 1].strip() == "if S._memo:" for k in resets)


def test_the_effects_keep_an_empty_memo():
    fn, _ = _compiled([("e.one", "True", "(S.n + 1,)", ("n",)), ("e.two", "True", "(S.n * 2,)", ("m",))])
    memo = {}
    S = SimpleNamespace(n=1, m=0, _memo=memo)
    fn(S, SimpleNamespace())
    assert S._memo is memo and memo == {} and (S.n, S.m) == (2, 4)


@pytest.mark.parametrize("n", [1, 5])
def test_a_memo_filled_before_a_change_is_never_read_stale(n):
    fn, _ = _compiled(_READERS)
    memo = {}
    S = SimpleNamespace(n=n, d=None, _memo=memo)
    fn(S, SimpleNamespace())
    assert S.d == 2 * (n + 1)          # (a kept memo would give 2 * n)
    assert S._memo is not memo         # (filled by e.second's read, replaced by the reset at the end)


def test_a_memo_holding_a_value_is_replaced_by_a_failing_run_too():
    fn, _ = _compiled([("e.first", "True", "(S.n + 1,)", ("n",)), ("e.two", "True", "(1 // S.zero,)", ("q",))])
    S = SimpleNamespace(n=1, zero=0, q=None, _memo={"stale": 1})
    with pytest.raises(RuleRuntimeError):
        fn(S, SimpleNamespace())
    assert S._memo == {}


def _play(hand, rng):
    legal = hand.legal()
    hand.apply(dict(legal[rng.randrange(len(legal))], seat=hand.turn()))


def test_a_whole_hand_makes_no_memo_where_none_was_filled(rules):
    """Default rules, random legal events: the memo is replaced only when it held something."""
    rng = random.Random(7)
    hand = Hand(rules, "N", {"deck": DECK})
    kept = 0
    while not hand.is_over():
        before = hand.state._memo
        filled = bool(before)
        _play(hand, rng)
        if hand.state._memo is before:
            assert not filled   # (a memo that held something is never kept)
            kept += 1
    assert kept > 30   # (the 32 cards but a few: a play reads no memoised value in the default rules)


def test_a_memo_holding_a_value_is_replaced_by_each_event(rules):
    rng = random.Random(11)
    hand = Hand(rules, "N", {"deck": DECK})
    while not hand.is_over():
        hand.state._memo["planted"] = object()   # (as a rule function's value would be)
        hand.legal()
        _play(hand, rng)
        assert "planted" not in hand.state._memo


def test_a_copied_hand_has_its_own_memo(rules):
    hand = Hand(rules, "N", {"deck": DECK})
    _play(hand, random.Random(3))
    copy = hand.copy()
    assert copy.state._memo is not hand.state._memo
    copy.state._memo["x"] = 1
    assert "x" not in hand.state._memo


def test_the_engine_resets_are_guarded():
    """Every `S._memo = {}` of the engine's event loops comes under `if S._memo:`."""
    import inspect
    from baloot_spec.engine import announcing, hand, random_cards
    for mod in (hand, random_cards, announcing):
        lines = inspect.getsource(mod).splitlines()
        resets = [k for k, line in enumerate(lines) if re.fullmatch(r"\s*S\._memo = \{\}", line)]
        assert resets, mod.__name__
        assert all(lines[k - 1].strip().startswith("if S._memo:") for k in resets), mod.__name__
