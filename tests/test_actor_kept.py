"""apply() does not set `S.actor` on its fast path (step 118): legal() set it to the seat to act
when it kept the legal set, and the event accepted there is that seat's. These tests hold the
invariant that makes it exact (while a legal set is kept, `S.actor` is the seat to act, whatever
a user asks in between) and the mechanism (one write of `S.actor` a card, legal()'s, not two;
fails with step 116's apply)."""

import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.rules import load_variant

PRESETS = ("default", "nl-rulebook", "saudi-federation", "riyadh", "online-apps")


def _questions(hand, event):
    """Every question a user may ask between legal() and apply() (each may set S.actor)."""
    hand.turn()
    hand.check(dict(event))
    hand.announcements_allowed(dict(event))
    hand.narrowing(dict(event))
    if "card" in event:
        hand.allowed_announcements(event["card"], {})
    hand.copy()
    hand.legal()
    hand.legal(True)


@pytest.mark.parametrize("preset", PRESETS)
def test_while_a_legal_set_is_kept_the_actor_is_the_seat_to_act(preset):
    rules = load_variant(preset)
    for number in range(4):
        dealer = "NESW"[number]
        played = play_random_hand(rules, random.Random(f"actor:{preset}:{number}"), dealer)
        hand = Hand(rules, dealer, played.deal_spec)
        for event in played.events:
            event = dict(event)
            hand.legal()
            assert hand.state.actor == hand.turn() == event["seat"]
            _questions(hand, event)
            assert hand._kept is not None and hand.state.actor == hand.turn()
            twin = hand.copy()
            hand.apply(event)
            twin.apply(dict(event), _judged=twin._judge(dict(event)))   # (the judged path sets it)
            assert hand.state.actor == twin.state.actor   # (the event's seat, or None past a phase's end)
            if hand._kept is not None:
                assert hand.state.actor == hand.turn()
        assert hand.is_over()


@pytest.mark.parametrize("preset", PRESETS)
def test_random_play_keeps_the_invariant(preset):
    """The random player's paths (play_random_cards, play_announcing, play_legal) keep a legal set
    only with the actor set to the seat to act."""
    rules = load_variant(preset)
    for seed in range(4):
        rng = random.Random(f"random:{preset}:{seed}")
        hand = play_random_hand(rules, rng, "ESWN"[seed])
        assert hand.is_over()
        played = Hand(rules, "ESWN"[seed], hand.deal_spec)
        while not played.is_over():
            if played.phase == "play" and rng.random() < 0.5:
                played.play_random_cards(rng.getrandbits, None, rng.randrange(1, 4))
            else:
                played.play_legal(rng.randrange(len(played.legal())))
            if played._kept is not None:
                assert played.state.actor == played.turn()
            played.legal()
            assert played.is_over() or played.state.actor == played.turn()


def test_a_plain_card_writes_the_actor_once(monkeypatch):
    """legal() writes S.actor (the seat changes at each card); apply's fast path does not again."""
    rules = load_variant()
    played = play_random_hand(rules, random.Random("writes"), "N")
    hand = Hand(rules, "N", played.deal_spec)
    cls = type(hand.state)
    member = cls.__dict__["actor"]
    writes = []

    def written(S, value):
        writes.append(value)
        member.__set__(S, value)
    monkeypatch.setattr(cls, "actor", property(member.__get__, written))
    cards = 0
    for event in played.events:
        if event["type"] == "play" and len(event) == 3 and len(hand.state.trick) < 3:
            hand.legal()
            writes.clear()
            hand.apply(dict(event))
            assert writes == []
            cards += 1
        else:
            hand.legal()
            hand.apply(dict(event))
    assert cards > 10
