"""runs(cards, order, n): the builtin behind sequence projects, against a plain reference."""

import random

from hypothesis import given, settings, strategies as st

from baloot_spec.cards import Card
from baloot_spec.expr import runs
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


def test_distinct_cards_of_the_order_take_the_bits_not_the_general_way(monkeypatch):
    """Once an order's cards are known, a hand of distinct cards whose ranks are all in it is cut
    by its bits (expr/runs.py), with the same answer as the general way; a card given twice, a
    rank not in the order or a suit not seen yet still go the general way."""
    monkeypatch.setattr(runs, "_RUN_TABLES", {})
    monkeypatch.setattr(runs, "_RUN_BITS", {})
    spades = [Card(r, "S") for r in RANKS]
    hand = [Card(r, s) for r, s in ["KS", "AS", "QS", "9S", "JH", "TH", "9H", "8H"]]
    assert _runs(spades, RANKS, 3) == [spades]   # (the general way: the order's first cards)
    general = runs._runs_by_codes
    taken = []

    def counted(cards, key, min_len):
        taken.append(list(cards))
        return general(cards, key, min_len)

    monkeypatch.setattr(runs, "_runs_by_codes", counted)
    assert _runs(hand, RANKS, 3) == reference(hand, RANKS, 3)   # a suit not seen yet (H): the general way
    assert len(taken) == 1
    for min_len in range(-1, 10):
        assert _runs(hand, RANKS, min_len) == reference(hand, RANKS, min_len)
    assert len(taken) == 1   # (both suits known now: the bits)
    assert _runs(hand + [hand[0]], RANKS, 3) == general(hand + [hand[0]], tuple(RANKS), 3)
    assert _runs(hand[:3] + [Card("Z", "S")], RANKS, 3) == [hand[1:2] + hand[:1] + hand[2:3]]
    assert len(taken) == 3


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from([RANKS, ["A", "K", "Q"], RANKS + ["X"], ["7"]]), st.integers(-1, 9))
def test_the_bits_and_the_general_way_agree(seed, order, min_len):
    rng = random.Random(seed)
    cards = rng.sample(CARDS, rng.randint(0, 12))
    if cards and rng.random() < 0.2:
        cards.append(rng.choice(cards))
    _runs(CARDS, order, 1)   # (every card known with this order: the bits are there)
    assert _runs(cards, order, min_len) == runs._runs_by_codes(cards, tuple(order), min_len)
