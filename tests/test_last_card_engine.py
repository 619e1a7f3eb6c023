"""Step 125: the engine at a hand's last card (engine/hand.py, engine/phases.py). The trick phase
closed by its last card goes to its literal `next` without `_leave`'s frame; a score phase
specialised whole ends the hand without `_end`'s frame; a phase specialised on entry is found,
with the hand's map of phases, by one lookup (`entered_with`). The same state after each, and the
general way kept wherever a phase has an exit effect or a `next` that is no literal."""

import random
from dataclasses import replace

import pytest

from baloot_spec.engine import phases as phases_module
from baloot_spec.engine.candidates import NOWHERE
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.phases import entered_with, phases_with
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


# ---- the specialised phase and its map, one lookup ---------------------------------------------

class _Counting(dict):
    """A dict that counts its `get`s: the rules' kept specialisations, watched."""
    gets = 0

    def get(self, key, default=None):
        type(self).gets += 1
        return super().get(key, default)


def test_a_phase_specialised_again_is_found_with_its_map_in_one_lookup(monkeypatch):
    base = load_variant()
    rules = replace(base, _specialized=_Counting(base._specialized))   # (a copy: the loaded rules are shared)
    played = _played(base, "default", 6)[0]
    first = Hand(rules, "N", played.deal_spec)
    for event in played.events:
        first.apply(event)
    _Counting.gets = 0
    asked = []
    monkeypatch.setattr(rules.__class__, "specialized", lambda self, *key: asked.append(key))
    monkeypatch.setattr(phases_module, "phases_with", lambda *a: asked.append(a))
    second = Hand(rules, "N", played.deal_spec)
    for event in played.events:
        second.apply(event)
    monkeypatch.undo()
    assert _Counting.gets == 0 and asked == []   # (neither the specialisation nor the map looked up apart)
    assert second._phases is first._phases and second.result() == played.result()
    kept = {key: made for key, made in rules._phase_maps.items() if len(key) == 2}
    assert kept, "entered_with keeps its entries beside phases_with's"
    for (key, map_id), (phases, special, made) in kept.items():
        name = key[0]
        assert id(phases) == map_id and special is rules._specialized[key]
        assert made is phases_with(rules, phases, name, special)   # (the same shared map)
        assert made[name] is special and all(made[n] is p for n, p in phases.items() if n != name)


def test_entered_with_past_its_bound_keeps_nothing_and_gives_the_same(monkeypatch):
    base = load_variant()
    rules = replace(base)
    played = _played(base, "default", 6)[0]
    monkeypatch.setattr(phases_module, "_KEPT_MAPS", 0)
    hand = Hand(rules, "N", played.deal_spec)
    for event in played.events:
        hand.apply(event)
    assert rules._phase_maps == {} and hand.result() == played.result()
    key = next(k for k in base._specialized)
    phases, special, made = entered_with(rules, rules.phases, key)
    assert phases is rules.phases and special is rules._specialized[key]
    assert made == {**rules.phases, key[0]: special} and made is not rules.phases and rules._phase_maps == {}
