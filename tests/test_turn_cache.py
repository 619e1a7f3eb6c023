"""The engine keeps the seat to act once it knows it (after a card inside a trick, the next
seat; after a trick, its winner, who leads the next), instead of asking the phase again. At
every position of random hands, what it kept must be what the phase's turn gives."""

import random

import pytest

from baloot_spec.engine.candidates import UNKNOWN
from baloot_spec.engine.hand import Hand
from baloot_spec.rules import load_variant


@pytest.mark.parametrize("preset", ["default", "nl-rulebook", "saudi-federation"])
def test_the_kept_seat_is_the_phases_turn_at_every_position(preset):
    rules = load_variant(preset)
    checked = 0
    for number in range(40):
        rng = random.Random(f"turn:{preset}:{number}")
        hand = Hand(rules, rng.choice(rules.table.seats), {"deck": [c.text for c in rng.sample(rules.deck.cards, 32)]})
        while not hand.is_over():
            if hand._seat is not UNKNOWN:
                assert hand._seat == hand._turn()
                checked += 1
            legal = hand.legal()
            hand.apply(dict(rng.choice(legal), seat=hand.turn()))
        assert hand.turn() is None
    assert checked > 40 * 30   # (nearly every card of every hand)
