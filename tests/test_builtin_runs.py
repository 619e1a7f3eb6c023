"""runs(cards, order, n): the builtin behind sequence projects, against a plain reference."""

import random

from hypothesis import given, settings, strategies as st

from baloot_spec.cards import Card
from baloot_spec.expr.builtins import _runs

RANKS = "A K Q J T 9 8 7".split()
CARDS = [Card(r, s) for s in "SHDC" for r in RANKS] + [Card("A", "X"), Card("Z", "S")]


def reference(cards, order, min_len):
    """Suit by suit (alphabetical), the cards with a rank in `order` sorted by it, cut where
    two neighbours are not next to each other in `order`; the pieces of min_len or more."""
    out = []
    for suit in sorted({c.suit for c in cards if c.rank in order}):
        ordered = sorted((c for c in cards if c.suit == suit and c.rank in order), key=lambda c: order.index(c.rank))
        piece = []
        for card in ordered:
            if piece and order.index(card.rank) != order.index(piece[-1].rank) + 1:
                out.append(piece)
                piece = []
            piece.append(card)
        out.append(piece)
    return [p for p in out if p and len(p) >= min_len]


def test_a_hand_with_two_runs_and_a_gap():
    hand = [Card(r, s) for r, s in ["KS", "AS", "QS", "9S", "JH", "TH", "9H", "7D"]]   # AKQ and 9 of S; J T 9 of H
    assert _runs(hand, RANKS, 3) == [[Card("J", "H"), Card("T", "H"), Card("9", "H")],
                                     [Card("A", "S"), Card("K", "S"), Card("Q", "S")]]
    assert _runs(hand, RANKS, 4) == []


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from([RANKS, ["A", "K", "Q"], ["7", "8", "9"], RANKS + ["X"]]),
       st.integers(-1, 5))
def test_runs_match_the_reference(seed, order, min_len):
    rng = random.Random(seed)
    cards = rng.sample(CARDS, rng.randint(0, 12))
    repeated = bool(cards) and rng.random() < 0.2
    if repeated:
        cards.append(cards[0])   # the same card twice must not break it (the reference does not model it)
    result = _runs(cards, order, min_len)
    if repeated:
        assert sum(map(len, result)) <= len(cards)
    else:
        assert result == reference(cards, order, min_len)
