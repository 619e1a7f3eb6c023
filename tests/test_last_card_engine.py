"""Step 125: the engine at a hand's last card (engine/hand.py, engine/phases.py). The trick phase
closed by its last card goes to its literal `next` without `_leave`'s frame; a score phase
specialised whole ends the hand without `_end`'s frame. The same state after each, and the
general way kept wherever a phase has an exit effect or a `next` that is no literal."""

import random
from dataclasses import replace

import pytest

from baloot_spec.engine.candidates import NOWHERE
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.scores import OVER
from baloot_spec.rules import load_variant

PRESETS = ["default", "riyadh", "saudi-federation", "nl-rulebook", "online-apps"]


def _played(rules, preset, count):
    hands = [play_random_hand(rules, random.Random(f"last-engine:{preset}:{n}"), "N") for n in range(count)]
    return [h for h in hands if not h.result()["thrown_in"]]


def _to_last_card(rules, played):
    hand = Hand(rules, "N", played.deal_spec)
    for event in played.events[:-1]:
        hand.legal()
        hand.apply(event)
    hand.legal()
    return hand


def _spied(monkeypatch):
    """The calls of `_enter` (its name), `_leave` (the phase's kind) and `_end`, in order."""
    calls = []
    enter, leave, end = Hand._enter, Hand._leave, Hand._end
    monkeypatch.setattr(Hand, "_enter", lambda self, name: (calls.append(("enter", name)), enter(self, name))[1])
    monkeypatch.setattr(Hand, "_leave", lambda self, phase: (calls.append(("leave", phase.kind)), leave(self, phase))[1])
    monkeypatch.setattr(Hand, "_end", lambda self: (calls.append(("end",)), end(self))[1])
    return calls


def _assert_ended(hand, played):
    S = hand.state
    assert hand.is_over() and S.phase == OVER and hand._now is NOWHERE
    assert S.actor is None and not S._memo   # (scoring fills the memo: emptied)
    assert hand.legal() == [] and hand.result() == played.result() and hand.score == played.score


@pytest.mark.parametrize("preset", PRESETS)
def test_the_last_card_enters_the_score_phase_and_ends_the_hand_in_one_frame_each(preset, monkeypatch):
    rules = load_variant(preset)
    for played in _played(rules, preset, 12):
        hand = _to_last_card(rules, played)
        play = hand._now[0]
        assert play.kind == "tricks" and not play.on_exit and play.goes_to is not None
        calls = _spied(monkeypatch)
        hand.apply(played.events[-1])
        monkeypatch.undo()
        assert calls == [("enter", play.goes_to)]   # (no _leave of the trick phase, no _end)
        assert hand._phases[play.goes_to].kind == "score"
        _assert_ended(hand, played)


@pytest.mark.parametrize("change", ["exit effect", "no literal next"])
def test_a_trick_phase_with_an_exit_effect_or_no_literal_next_is_left_the_general_way(change, monkeypatch):
    rules = load_variant()
    played = _played(rules, "default", 6)[0]
    hand = _to_last_card(rules, played)
    play, exits = hand._now[0], []
    following = play.goes_to
    if change == "exit effect":
        monkeypatch.setattr(play, "on_exit", True)
        monkeypatch.setattr(play, "effects", {**play.effects, "exit": lambda S, _: exits.append(S.phase)})
    else:   # (`next` asked, naming the same phase)
        monkeypatch.setattr(play, "goes_to", None)
        monkeypatch.setattr(play, "next", lambda S: (exits.append(S.phase), following)[1])
    calls = _spied(monkeypatch)
    hand.apply(played.events[-1])
    assert exits == [played_phase(played)] and calls == [("leave", "tricks"), ("enter", following)]
    monkeypatch.undo()
    _assert_ended(hand, played)


def played_phase(played):
    """The name of the trick phase the hand's last card was played in."""
    return next(name for name, phase in played._phases.items() if phase.kind == "tricks")


def test_a_score_phase_that_fails_still_leaves_nothing_ended(monkeypatch):
    """The score branch tested first: a failing facts_scored leaves the hand in the score phase,
    with its tables (as _failed_scoring did before), not ended."""
    base = load_variant()
    played = _played(base, "default", 6)[0]
    rules = replace(base)   # (tables of its own: the failure works out the score phase's, kept)
    hand = _to_last_card(rules, played)
    following = hand._now[0].goes_to
    for phase in [p for p in rules._specialized.values() if p.kind == "score"]:
        monkeypatch.setattr(phase, "facts_scored", _fails)
    with pytest.raises(ZeroDivisionError):
        hand.apply(played.events[-1])
    assert hand.state.phase == following and not hand.is_over()
    assert hand._now[0] is hand._phases[following] and hand._now[0].kind == "score"


def _fails(S):
    return 1 // 0
