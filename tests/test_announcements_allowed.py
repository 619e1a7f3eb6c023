"""Hand.announcements_allowed, the random player's question, asks the compiled check of the
shared action a card said with announcements has (no new action per question). Held to two
references at every play position of random hands of several presets, for every card the seat
holds and every combination of announcements: the judgement of the whole event (`check`, for a
legal card: it refuses exactly when an announcement is refused) and an action built afresh from
the event (what the question did before: `_action_of`, then the check rules)."""

import itertools
import random

import pytest

from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.errors import IllegalAction
from baloot_spec.rules import load_variant

PRESETS = ["default", "nl-rulebook", "riyadh", "online-apps"]


def _built_afresh(hand, event) -> bool:
    """The former question: a new Action from the event, then the phase's check rules."""
    phase = hand._phases[hand.phase]
    try:
        action = hand._action_of(phase, event)
    except IllegalAction:
        return False
    return hand._check_announcements(phase, action, explain=False) is None


def _events(hand, seat, card):
    """The card said with every combination of Ekka, Baloot and the projects (none, those held,
    a name held twice over, a name not held)."""
    held = [p["name"] for p in (getattr(hand.state, "projects", None) or {}).get(seat, [])]
    declares = [[], held, held + held[:1], ["no-such-project"]] if held else [[], ["sira"]]
    for ekka, baloot, declare in itertools.product((False, True), (False, True), declares):
        yield {"type": "play", "seat": seat, "card": card, "ekka": ekka, "baloot": baloot, "declare": declare}


@pytest.mark.parametrize("preset", PRESETS)
def test_the_question_agrees_with_the_judgement_and_a_fresh_action(preset):
    rules = load_variant(preset=preset)
    answers = {True: 0, False: 0}
    for number in range(12):
        played = play_random_hand(rules, random.Random(f"allowed:{preset}:{number}"), "NWSE"[number % 4])
        replay = type(played)(rules, played.deal.dealer, played.deal_spec, dict(played.state.match_scores))
        for logged in played.events:
            seat = replay.turn()
            if logged["type"] == "play":
                legal = {e["card"] for e in replay.legal()}
                for card in map(str, replay.state.hands[seat]):
                    for event in _events(replay, seat, card):
                        allowed = replay.announcements_allowed(event)
                        assert allowed == _built_afresh(replay, event), (preset, number, event)
                        if card in legal:
                            assert allowed == (replay.check(event) is None), (preset, number, event)
                        answers[allowed] += 1
            replay.apply(dict(logged))
    assert answers[True] > 100 and answers[False] > 100   # (both answers are given, often)


def test_wrong_seat_wrong_type_and_an_unheld_card_are_not_allowed():
    rules = load_variant()
    hand = play_random_hand(rules, random.Random(1), "N", max_events=400)
    replay = type(hand)(rules, hand.deal.dealer, hand.deal_spec)
    for logged in hand.events:
        if logged["type"] == "play":
            break
        replay.apply(dict(logged))
    seat = replay.turn()
    other = next(s for s in rules.table.seats if s != seat)
    held = str(replay.state.hands[seat][0])
    not_held = str(replay.state.hands[other][0])
    assert replay.announcements_allowed({"type": "play", "seat": seat, "card": held})
    assert not replay.announcements_allowed({"type": "play", "seat": other, "card": held})
    assert not replay.announcements_allowed({"type": "play", "seat": seat, "card": not_held})
    assert not replay.announcements_allowed({"type": "play", "seat": seat, "card": held, "ekka": "yes"})
    assert not replay.announcements_allowed({"type": "play", "seat": seat, "card": [held]})
    assert not replay.announcements_allowed({"type": "play", "seat": seat, "card": "1Z"})


def _one_by_one(hand, seat, card, wished) -> dict:
    """allowed_announcements as its docstring defines it: announcements_allowed asked once per
    announcement, in the phase's order, each one allowed added to the event."""
    event = {"type": "play", "seat": seat, "card": card}
    kept = {}
    for name in hand._phases[hand.phase].annotations:
        if name in wished and hand.announcements_allowed(dict(event, **kept, **{name: wished[name]})):
            kept[name] = wished[name]
    return kept


@pytest.mark.parametrize("preset", PRESETS)
def test_one_question_a_play_is_the_questions_one_by_one(preset):
    rules = load_variant(preset=preset)
    said = 0
    for number in range(10):
        played = play_random_hand(rules, random.Random(f"greedy:{preset}:{number}"), "NWSE"[number % 4])
        replay = type(played)(rules, played.deal.dealer, played.deal_spec, dict(played.state.match_scores))
        for logged in played.events:
            if logged["type"] == "play":
                seat = replay.turn()
                held = [p["name"] for p in (getattr(replay.state, "projects", None) or {}).get(seat, [])]
                for card in map(str, replay.state.hands[seat]):
                    for wished in ({"ekka": True, "declare": held, "baloot": True}, {"baloot": True, "ekka": True},
                                   {"declare": held + ["no-such-project"]}, {"ekka": False}, {}):
                        got = replay.allowed_announcements(card, wished)
                        assert got == _one_by_one(replay, seat, card, wished), (preset, number, card, wished)
                        assert list(got) == [n for n in ("ekka", "declare", "baloot") if n in got]   # the phase's order
                        said += bool(got)
            replay.apply(dict(logged))
    assert said > 50


def test_one_question_refuses_what_is_no_play_of_the_seat():
    rules = load_variant()
    hand = play_random_hand(rules, random.Random(2), "N")
    replay = type(hand)(rules, hand.deal.dealer, hand.deal_spec)
    assert replay.allowed_announcements("7H", {"ekka": True}) == {}   # the bidding: no card is played
    for logged in hand.events:
        if logged["type"] == "play":
            break
        replay.apply(dict(logged))
    seat = replay.turn()
    other = next(s for s in rules.table.seats if s != seat)
    not_held = str(replay.state.hands[other][0])
    assert replay.allowed_announcements(not_held, {"ekka": True, "baloot": True}) == {}
    held = str(replay.state.hands[seat][0])
    assert replay.allowed_announcements(held, {"ekka": "yes"}) == {}
    assert replay.allowed_announcements(held, {"declare": "sira"}) == {}
    assert replay.allowed_announcements(held, {"declare": [1]}) == {}
    assert replay.allowed_announcements(["7H"], {"ekka": True}) == {}
    assert hand.allowed_announcements(held, {"ekka": True}) == {}   # the hand is over
