"""apply() judges a plain card said with nothing, or a call found by its values, itself
(Hand._judge's fast path written out: no `_judge` frame on most events of a hand) and leaves
everything else to `_judge`. The
mechanism test fails without it; the others hold on both: what is applied, logged and refused is
what `_judge` then `apply(_judged=...)` gives, for every event of random hands of every preset
and for unusual events at a trick's position."""

import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.state import LegalEvent
from baloot_spec.errors import IllegalAction
from baloot_spec.rules import load_variant
from test_judge_fast_path import _in_play   # (a hand at its first card: the same set-up as _judge's tests)

PRESETS = ("default", "nl-rulebook", "saudi-federation", "riyadh", "online-apps")
RULES = load_variant()
DECK = [f"{r}{s}" for s in "SHDC" for r in "AKQJT987"]


def _counting(monkeypatch):
    calls = []
    judge = Hand._judge

    def counted(self, event, force=False):
        calls.append(event)
        return judge(self, event, force)
    monkeypatch.setattr(Hand, "_judge", counted)
    return calls


def _view(hand):
    """What a user can reach of a hand: its state's fields, the log (with each event's type), the
    turn and the legal set."""
    S = hand.state
    fields = {name: getattr(S, name) for name in S._fields if name != "_memo"}
    return (repr(fields), [(type(e), dict(e)) for e in hand.events], hand.turn(),
            hand.legal() if not hand.is_over() else None)


def test_a_plain_card_after_legal_is_applied_without_the_judge_frame(monkeypatch):
    hand = _in_play()
    calls = _counting(monkeypatch)
    for _ in range(8):
        seat = hand.turn()
        event = {"type": "play", "card": hand.legal()[0]["card"], "seat": seat}
        hand.apply(event)
    assert calls == []
    assert len(hand.state.tricks) == 2


@pytest.mark.parametrize("preset", PRESETS)
def test_calls_and_plain_cards_after_legal_are_applied_without_the_judge_frame(preset, monkeypatch):
    rules = load_variant(preset)
    played = play_random_hand(rules, random.Random(f"calls:{preset}"), "N")
    hand = Hand(rules, "N", played.deal_spec)
    calls = _counting(monkeypatch)
    plain = 0
    for event in played.events:
        event = dict(event)
        hand.legal()
        hand.apply(event)
        plain += event["type"] != "play" or len(event) == 3
    assert hand.is_over()
    assert len(calls) == len(played.events) - plain   # (only the cards said with announcements)


def test_everything_else_goes_through_the_judge(monkeypatch):
    hand = _in_play()
    calls = _counting(monkeypatch)
    seat = hand.turn()
    card = hand.legal()[0]["card"]
    # a read-only event (LegalEvent), asked before legal(), forced: each judged by _judge
    hand.apply(LegalEvent(type="play", card=card, seat=seat))
    seat = hand.turn()
    card = next(iter(hand.state.hands[seat])).text
    hand.apply({"type": "play", "card": card, "seat": seat}, force=True)
    assert len(calls) == 2
    hand.apply(dict(hand.legal()[0], seat=hand.turn()))
    assert len(calls) == 2   # (legal() asked first: the fast path)


@pytest.mark.parametrize("preset", PRESETS)
def test_every_event_is_applied_as_judge_then_apply_does(preset):
    rules = load_variant(preset)
    for number in range(6):
        dealer = "ESWN"[number % 4]
        played = play_random_hand(rules, random.Random(f"fast:{number}"), dealer)
        fast, slow = Hand(rules, dealer, played.deal_spec), Hand(rules, dealer, played.deal_spec)
        for event in played.events:
            event = dict(event)   # (as a log read from JSON gives it)
            fast.legal()
            slow.legal()
            fast.apply(dict(event))
            slow.apply(dict(event), _judged=slow._judge(dict(event)))
            assert _view(fast) == _view(slow)
        assert fast.is_over() and fast.result() == slow.result()


@pytest.mark.parametrize("change, rule", [
    (lambda e: {k: v for k, v in e.items() if k != "seat"}, "turn.out-of-turn"),
    (lambda e: {**e, "seat": "N" if e["seat"] != "N" else "E"}, "turn.out-of-turn"),
    (lambda e: {"seat": e["seat"], "card": e["card"], "note": 1}, "phase.wrong-action"),
    (lambda e: {"seat": e["seat"], "card": e["card"], "type": "bid"}, "phase.wrong-action"),
    (lambda e: {**e, "card": "ZZ"}, "phase.wrong-action"),
    (lambda e: {**e, "card": ["AS"]}, "phase.wrong-action"),
    (lambda e: {**e, "card": None}, "phase.wrong-action"),
    (lambda e: {**e, "card": e["hand_out"]}, "play.not-in-hand"),
    (lambda e: {**e, "card": e["illegal"]}, None),
])
@pytest.mark.parametrize("ask_legal", [True, False])
def test_an_unusual_card_is_refused_as_the_judge_refuses_it_and_nothing_is_applied(change, rule, ask_legal):
    hand = _in_play()
    hand.apply(dict(hand.legal()[0], seat=hand.turn()))   # (a led trick: following suit narrows the cards)
    seat = hand.turn()
    held = [c.text for c in hand.state.hands[seat]]
    kept = [c.text for c in hand.legal(True)]
    illegal = [c for c in held if c not in kept]
    if rule is None and not illegal:
        pytest.skip("every card held is legal here")
    event = {"type": "play", "card": kept[0], "seat": seat}
    wrong = change({**event, "hand_out": next(c for c in DECK if c not in held),
                    "illegal": illegal[0] if illegal else None})
    wrong.pop("hand_out", None)
    wrong.pop("illegal", None)
    fresh = hand.copy()
    if not ask_legal:
        hand._kept = None
    with pytest.raises(IllegalAction) as judged:
        fresh._judge(dict(wrong))
    before = _view(hand)
    with pytest.raises(IllegalAction) as applied:
        hand.apply(dict(wrong))
    assert (applied.value.rule_id, applied.value.message) == (judged.value.rule_id, judged.value.message)
    if rule is not None:
        assert applied.value.rule_id == rule
    assert _view(hand) == before


def test_legal_asked_twice_at_a_position_is_the_same_list():
    hand = _in_play()
    while not hand.is_over():
        first = hand.legal()
        assert hand.legal() == first and hand.legal(True) is hand.legal(True)
        hand.apply(dict(first[-1], seat=hand.turn()))
    assert hand.legal() == [] and hand.legal(True) == []
