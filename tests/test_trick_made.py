"""Step 98 (tools/BENCHMARKS.md): a finished trick is made by the engine without running
`Trick.__init__`: its four fields are set in Hand.apply and in the random player's cards
(engine/random_cards.py). Nothing a user sees changes: each such trick is what Trick(...) makes."""

import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.state import Trick
from baloot_spec.rules import load_variant


@pytest.fixture(scope="module")
def rules():
    return load_variant()


def _refuse_init(monkeypatch):
    def refused(self, *args, **kwargs):
        raise AssertionError("Trick.__init__ ran")
    monkeypatch.setattr(Trick, "__init__", refused)


def _same_as_made(trick):
    """A finished trick equals the one Trick(...) makes from its leader, plays and winner."""
    made = Trick.__new__(Trick)
    Trick.__init__(made, trick.leader, trick.plays, trick.winner)
    assert type(trick) is Trick and trick.leader == trick.plays[0].seat
    assert [trick.leader, trick.plays, trick.winner, trick.cards] == [made.leader, made.plays, made.winner, made.cards]
    assert type(trick.cards) is list and trick.cards is not made.cards and repr(trick) == repr(made)


def _recorded(rules, count=12):
    hands = []
    for number in range(count):
        rng = random.Random(f"98:{number}")
        hand = play_random_hand(rules, rng, rng.choice(rules.table.seats))
        hands.append((hand.deal.dealer, hand.deal_spec, [dict(e) for e in hand.events], hand))
    return hands


def test_the_random_players_tricks_are_made_without_init_and_as_trick_makes_them(rules, monkeypatch):
    kept = [Trick.__init__]
    _refuse_init(monkeypatch)
    played = [hand for *_, hand in _recorded(rules)]
    monkeypatch.setattr(Trick, "__init__", kept[0])
    tricks = [trick for hand in played for trick in hand.state.tricks]
    assert len(tricks) >= 8
    for trick in tricks:
        _same_as_made(trick)


def test_applied_cards_close_tricks_without_init_and_as_trick_makes_them(rules, monkeypatch):
    recorded = _recorded(rules)
    kept = Trick.__init__
    _refuse_init(monkeypatch)
    replayed = []
    for dealer, deal, events, _ in recorded:
        hand = Hand(rules, dealer, deal)
        for event in events:
            hand.legal()
            hand.apply(event)
        replayed.append(hand)
    monkeypatch.setattr(Trick, "__init__", kept)
    for hand, (*_, played) in zip(replayed, recorded):
        assert hand.result() == played.result() and hand.events == played.events
        assert [repr(t) for t in hand.state.tricks] == [repr(t) for t in played.state.tricks]
        for trick in hand.state.tricks:
            _same_as_made(trick)
