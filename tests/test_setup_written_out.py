"""A hand's setup runs two checks' common cases in its own frames (tools/BENCHMARKS.md, step 123):
the match scores given as a plain dict in the teams' order of plain ints 0 or more are made the
state's record at once (no `_points_of` call, no record made and then updated), and a deck of
the deck's own texts without a cut is read in `Deal.__init__` (no `_from_deck` call). Anything
else takes the general path: the same values, the same record order, the same errors."""

import pytest

from baloot_spec.engine import hand as hand_module
from baloot_spec.engine.deal import Deal, DealError
from baloot_spec.engine.hand import Hand
from baloot_spec.expr.builtins import Rec
from baloot_spec.rules import load_variant

RULES = load_variant()
DECK = ["AC", "KS", "7H", "QS", "TH", "KC", "JS", "JH", "TD", "AS", "KH", "8D", "KD", "TC", "QD", "8C",
        "7S", "JC", "TS", "7D", "QH", "AH", "8S", "9C", "9H", "JD", "QC", "9D", "8H", "7C", "9S", "AD"]
TEAMS = list(RULES.table.teams)


class Cards(list):
    """A deck that is no plain list: read by the general path."""


class Points(int):
    """A whole number that is no plain int: accepted by the general path, kept as given."""


def _no_call(*args, **kwargs):
    raise AssertionError("the general path was taken")


@pytest.fixture
def spied(monkeypatch):
    for dealer in RULES.table.seats:   # (a dealer's first deck makes its plan's split, in _from_deck)
        Deal(RULES, dealer, {"deck": DECK})
    monkeypatch.setattr(hand_module, "_points_of", _no_call)
    monkeypatch.setattr(Deal, "_from_deck", _no_call)


def test_plain_scores_in_the_teams_order_are_read_without_points_of(spied):
    given = dict(zip(TEAMS, (101, 0)))
    scores = Hand(RULES, "N", {"deck": DECK}, given).state.match_scores
    assert type(scores) is Rec and scores == given and list(scores) == TEAMS and scores is not given
    given[TEAMS[0]] = 5   # (the record is the hand's own)
    assert scores[TEAMS[0]] == 101


def test_a_deck_of_its_own_texts_is_read_without_from_deck(spied):
    for dealer in RULES.table.seats:
        Hand(RULES, dealer, {"deck": DECK})


@pytest.mark.parametrize("given", [dict(zip(reversed(TEAMS), (7, 0))), dict(zip(TEAMS, (Points(3), 0)))])
def test_other_good_scores_are_kept_in_the_teams_order_as_before(given):
    scores = Hand(RULES, "N", {"deck": DECK}, given).state.match_scores
    assert type(scores) is Rec and list(scores) == TEAMS and scores == given
    assert all(type(scores[team]) is type(given[team]) for team in TEAMS)


@pytest.mark.parametrize("values", [(True, 0), (0, False), (-1, 0), (0, -3), (1.0, 0), ("1", 0), (None, 0)])
def test_bad_scores_in_the_teams_order_are_refused_as_before(values):
    with pytest.raises(DealError) as refused:
        Hand(RULES, "N", {"deck": DECK}, dict(zip(TEAMS, values)))
    assert refused.value.path == "match_scores" and "whole number of points" in str(refused.value)


def test_no_scores_give_the_teams_zero():
    scores = Hand(RULES, "N", {"deck": DECK}).state.match_scores
    assert type(scores) is Rec and list(scores) == TEAMS and set(scores.values()) == {0}


@pytest.mark.parametrize("dealer", RULES.table.seats)
def test_the_deal_read_at_once_is_the_deal_read_by_from_deck(dealer):
    fast, general = Deal(RULES, dealer, {"deck": DECK}), Deal(RULES, dealer, {"deck": Cards(DECK)})
    for name in ("kind", "initial", "public", "stock", "first", "completion", "exposed", "cut"):
        assert getattr(fast, name) == getattr(general, name), name
    assert list(fast.initial) == list(general.initial)
    assert type(fast.stock) is list and all(type(cards) is list for cards in fast.initial.values())


def _refusal(deck):
    with pytest.raises(DealError) as refused:
        Deal(RULES, "N", {"deck": deck})
    return refused.value.path, str(refused.value)


@pytest.mark.parametrize("deck", [DECK[:-1] + [DECK[0]], DECK[:-1] + ["XX"], DECK[:-1] + [["AD"]],
                                  DECK[:-1] + [None], DECK[:-1], DECK + ["AD"], DECK[:-1] + [7]])
def test_a_wrong_deck_is_refused_as_by_from_deck(deck):
    assert _refusal(deck) == _refusal(Cards(deck))


def test_texts_the_deck_parses_but_does_not_spell_so_are_read_alike():
    loose = [text.lower() for text in DECK[:4]] + DECK[4:]
    assert Deal(RULES, "E", {"deck": loose}).initial == Deal(RULES, "E", {"deck": DECK}).initial


class Text(str):
    """A card's text that is no plain str: found in the deck all the same."""


def test_entries_of_other_kinds_are_read_as_before():
    card = RULES.deck.parse("AC")
    for first in (card, Text("AC")):   # (a Card, a str subclass: the same deal)
        assert Deal(RULES, "S", {"deck": [first] + DECK[1:]}).initial == Deal(RULES, "S", {"deck": DECK}).initial


def test_a_plan_reads_a_deck_of_two_cards_or_more_at_once():
    from baloot_spec.engine.deal import _plan_of
    plan = _plan_of(RULES, "N")
    assert plan.read_at_once == plan.total == len(DECK)
