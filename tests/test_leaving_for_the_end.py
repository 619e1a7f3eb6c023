"""Step 113: the end of a hand (OVER) entered without `_enter`'s frame, and a score phase with no
exit effect whose `next` is the end left without `_leave`'s (engine/phases.py): the same state
after, and the general way kept wherever the phase has an exit effect or goes elsewhere."""

import random

import pytest

from baloot_spec.engine.candidates import NOWHERE
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.scores import OVER
from baloot_spec.rules import load_variant

PRESETS = ["default", "riyadh", "saudi-federation", "nl-rulebook", "online-apps"]


def _spied(monkeypatch):
    """Each name `_enter` is given and each phase kind `_leave` is given, in order."""
    entered, left = [], []
    real_enter, real_leave = Hand._enter, Hand._leave
    monkeypatch.setattr(Hand, "_enter", lambda self, name: (entered.append(name), real_enter(self, name))[1])
    monkeypatch.setattr(Hand, "_leave", lambda self, phase: (left.append(phase.kind), real_leave(self, phase))[1])
    return entered, left


def _hands(rules, preset, count):
    return [play_random_hand(rules, random.Random(f"{preset}:{number}"), "N") for number in range(count)]


@pytest.mark.parametrize("preset", PRESETS)
def test_the_end_is_never_entered_through_enter_and_the_state_is_as_it_left_it(preset, monkeypatch):
    rules = load_variant(preset)
    played = _hands(rules, preset, 20)
    thrown = [_thrown_in(rules, p.deal_spec) for p in played[:3]]
    assert all(events for events in thrown) and not any(p.result()["thrown_in"] for p in played)
    entered, left = _spied(monkeypatch)
    for deal, events, result in [(p.deal_spec, p.events, p.result()) for p in played] + _thrown_results(rules, played, thrown):
        hand = Hand(rules, "N", deal)
        for event in events:
            hand.legal()
            hand.apply(event)
        assert OVER not in entered
        assert hand.is_over() and hand.state.phase == OVER and hand._now is NOWHERE
        assert hand.state.actor is None and not hand.state._memo   # (scoring fills the memo: emptied)
        assert hand.legal() == [] and hand.result() == result
        entered.clear()


def _thrown_in(rules, deal):
    """The events of a hand in which every seat passes at every turn (a hand thrown in)."""
    hand, events = Hand(rules, "N", deal), []
    while not hand.is_over():
        passes = [i for i, action in enumerate(hand.legal()) if action.get("call") == "pass"]
        if not passes:
            return []
        events.append(hand.play_legal(passes[0]))
    return events if hand.result()["thrown_in"] else []


def _thrown_results(rules, played, thrown):
    """(deal, events, result) of the thrown-in hands, the result as `result()` gives it before the spies."""
    out = []
    for p, events in zip(played, thrown):
        hand = Hand(rules, "N", p.deal_spec)
        for event in events:
            hand.apply(event)
        out.append((p.deal_spec, events, hand.result()))
    return out


def test_a_score_phase_is_left_for_the_end_in_the_same_frame():
    """The default rules' score phase has no exit effect and `next` is the end: the last card leaves
    the play phase (step 125: without `_leave`, tests/test_last_card_engine.py), enters the score
    phase and nothing after it."""
    rules = load_variant()
    played = next(p for p in _hands(rules, "default", 10) if not p.result()["thrown_in"])
    hand = Hand(rules, "N", played.deal_spec)
    for event in played.events[:-1]:
        hand.apply(event)
    with pytest.MonkeyPatch.context() as monkeypatch:
        entered, left = _spied(monkeypatch)
        hand.apply(played.events[-1])
    assert entered == ["score"] and left == []
    assert hand.result() == played.result()


@pytest.mark.parametrize("change", ["exit effect", "goes elsewhere"])
def test_a_score_phase_with_an_exit_effect_or_another_next_is_left_the_general_way(change, monkeypatch):
    rules = load_variant()
    played = next(p for p in _hands(rules, "default", 10) if not p.result()["thrown_in"])
    scoring = [phase for phase in rules._specialized.values() if phase.kind == "score"]
    assert scoring and all(p.facts_scored is not None and not p.on_exit and p.goes_to == OVER for p in scoring)
    exits = []
    for phase in scoring:
        if change == "exit effect":
            monkeypatch.setattr(phase, "on_exit", True)
            monkeypatch.setattr(phase, "effects", {**phase.effects, "exit": lambda S, _: exits.append(S.phase)})
        else:   # (no literal: `next` is asked, and names the end)
            monkeypatch.setattr(phase, "goes_to", None)
            monkeypatch.setattr(phase, "next", lambda S: (exits.append(S.phase), OVER)[1])
    entered, left = _spied(monkeypatch)
    hand = Hand(rules, "N", played.deal_spec)
    for event in played.events:
        hand.apply(event)
    assert exits == ["score"] and left[-1] == "score" and OVER not in entered
    assert hand.is_over() and hand._now is NOWHERE and hand.state.actor is None and not hand.state._memo
    assert hand.result() == played.result()
