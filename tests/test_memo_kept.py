"""The memo of derived values (`S._memo`) is replaced after a change of the state only where it
holds something: `if S._memo: S._memo = {}` in the engine and in the fused effects
(tools/BENCHMARKS.md, step 102). Most changes (every card of a hand) come where nothing read a
derived value since the last one, so no dict is made and freed; a memo that holds a value is
still replaced, never read stale; a memo is one state's alone (a copied hand has its own)."""

import random
import re

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.rules import load_variant

DECK = ["AC", "KS", "7H", "QS", "TH", "KC", "JS", "JH", "TD", "AS", "KH", "8D", "KD", "TC", "QD", "8C",
        "7S", "JC", "TS", "7D", "QH", "AH", "8S", "9C", "9H", "JD", "QC", "9D", "8H", "7C", "9S", "AD"]


@pytest.fixture(scope="module")
def rules():
    return load_variant()


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
