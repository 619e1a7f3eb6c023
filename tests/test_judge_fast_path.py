"""The judge's fast path (Hand._judge) reads an event's fields by subscript and leaves anything
unusual to the slow path: a missing field, an unknown or unhashable card, a card not held, a
call with a wrong value. Each such event must be refused exactly as the slow path refuses it,
without an exception of the fast path's own chained to the refusal. (An unhashable card text
crashed the slow path itself with a TypeError until this test found it.)"""

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.errors import IllegalAction
from baloot_spec.rules import load_variant

RULES = load_variant()
DECK = [f"{r}{s}" for s in "SHDC" for r in "AKQJT987"]


def _in_play():
    hand = Hand(RULES, "N", {"deck": DECK})
    hand.apply({"type": "bid", "call": "sun", "seat": "W"})
    while hand.phase != "play":
        hand.apply(dict(hand.legal()[0], seat=hand.turn()))
    return hand


def _in_bidding():
    return Hand(RULES, "N", {"deck": DECK})


def _refusal(judge, event):
    with pytest.raises(IllegalAction) as caught:
        judge(event)
    return caught.value


@pytest.mark.parametrize("make, change, rule", [
    (_in_play, lambda e: {k: v for k, v in e.items() if k != "seat"}, "turn.out-of-turn"),
    (_in_play, lambda e: {"seat": e["seat"], "card": e["card"], "note": 1}, "phase.wrong-action"),
    (_in_play, lambda e: {**e, "card": "ZZ"}, "phase.wrong-action"),
    (_in_play, lambda e: {**e, "card": ["AS"]}, "phase.wrong-action"),
    (_in_play, lambda e: {**e, "card": next(c for c in DECK if c not in e["hand"])}, "play.not-in-hand"),
    (_in_bidding, lambda e: {**e, "call": "nonsense"}, "phase.wrong-action"),
    (_in_bidding, lambda e: {**e, "call": ["sun"]}, "phase.wrong-action"),
])
def test_an_unusual_event_is_refused_as_the_slow_path_refuses_it(make, change, rule):
    hand = make()
    seat = hand.turn()
    event = dict(hand.legal()[0], seat=seat)
    event["hand"] = [c.text for c in hand.state.hands[seat]]
    wrong = change(event)
    wrong.pop("hand", None)
    fast = _refusal(hand._judge, wrong)
    slow = _refusal(lambda e: hand.copy()._judge_slowly(e, False), wrong)
    assert (fast.rule_id, fast.message) == (slow.rule_id, slow.message)
    assert fast.rule_id == rule.replace("{action}", "play")
    assert not isinstance(fast.__context__, (KeyError, TypeError)) and fast.__cause__ is None
