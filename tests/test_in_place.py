"""The engine changes the hands, the trick, the finished tricks and the cards played in place,
unless an effect may keep a reference to one of them (IN_PLACE, engine/state.py): a state
variable an effect sets never changes with them."""

import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.state import IN_PLACE
from baloot_spec.rules import load_variant

PRESETS = ("default", "nl-rulebook", "saudi-federation", "riyadh", "online-apps")


def _holding(tmp_path, value: str):
    """The shipped rules and an effect that keeps `value` in baloot_said after a Sun's first card
    (in a Sun nobody says Baloot, so nothing else reads or sets it)."""
    overlay = tmp_path / "hold.yaml"
    overlay.write_text(
        "overlay: hold\ntitle: an effect keeps an engine container\nsource: \"choice: test\"\n"
        "add:\n  effects:\n    - id: test.hold\n      phase: play\n      at: action\n"
        "      when: \"mode == 'sun' and len(tricks) == 0 and len(trick) == 1\"\n"
        f"      set: {{baloot_said: \"{value}\"}}\n      source: \"choice: test\"\n", encoding="utf-8")
    return load_variant(overlays=[str(overlay)])


@pytest.mark.parametrize("preset", PRESETS)
def test_no_shipped_effect_holds_what_a_card_changes(preset):
    # (the lazy projects map keeps `dealt`, which only the deal's completion, before it, changes)
    assert load_variant(preset).held_by_effects == {"dealt"}


def test_with_the_shipped_rules_a_card_changes_the_containers_themselves():
    rules = load_variant()
    played = play_random_hand(rules, random.Random(3), "N")
    hand = Hand(rules, "N", played.deal_spec)
    events = iter(played.events)
    while hand.phase != "play":
        hand.apply(next(events))
    S = hand.state
    hands, held, trick, tricks, cards_played = S.hands, dict(S.hands), S.trick, S.tricks, S.played
    for _ in range(3):
        hand.apply(next(events))
    assert S.hands is hands and all(S.hands[seat] is held[seat] for seat in held)
    assert S.trick is trick and S.tricks is tricks and S.played is cards_played and len(trick) == 3


@pytest.mark.parametrize("value, container", [("hand", "hands"), ("trick", "trick"), ("tricks", "tricks"),
                                              ("played", "played"), ("[x for x in trick]", "trick"),
                                              ("{seat: hands}", "hands"), ("first(x for x in [hand])", "hands")])
def test_a_container_an_effect_may_hold_changes_as_a_new_one(tmp_path, value, container):
    rules = _holding(tmp_path, value)
    assert container in rules.held_by_effects and set(rules.held_by_effects) <= set(IN_PLACE)
    shipped = load_variant()
    checked = 0
    for number in range(25):
        played = play_random_hand(shipped, random.Random(number), "N")
        if played.result()["thrown_in"]:
            continue
        hand = Hand(rules, "N", played.deal_spec)
        kept = None
        for event in played.events:
            hand.apply(event)
            if kept is None and hand.state.mode == "sun" and hand.state.tricks == [] and len(hand.state.trick) == 1:
                kept = hand.state.baloot_said
                snapshot = repr(kept)
        if kept is not None:
            assert repr(kept) == snapshot, (number, value)
            checked += 1
    assert checked >= 10
