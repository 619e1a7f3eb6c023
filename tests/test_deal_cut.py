"""The cut record of a deal (rules/game.yaml deal.cut): bad records are located DealErrors."""

import pytest

from baloot_spec.engine.deal import DealError
from baloot_spec.engine.hand import Hand
from baloot_spec.rules import load_variant

DECK = ["AC", "KS", "7H", "QS", "TH", "KC", "JS", "JH", "TD", "AS", "KH", "8D", "KD", "TC", "QD", "8C",
        "7S", "JC", "TS", "7D", "QH", "AH", "8S", "9C", "9H", "JD", "QC", "9D", "8H", "7C", "9S", "AD"]
HANDS = {"N": ["AS", "KS", "QS", "JS", "TS"], "W": ["AH", "KH", "QH", "JH", "TH"],
         "S": ["AD", "KD", "QD", "JD", "TD"], "E": ["AC", "KC", "QC", "JC", "TC"]}


@pytest.fixture(scope="module")
def nl():
    return load_variant("default", {"cutting": "nl"})


@pytest.mark.parametrize("cut, path, rule", [
    ("top", "deal.cut", None),
    ({"by": "E"}, "deal.cut.option", None),
    ({"by": "E", "option": "cut", "when": 1}, "deal.cut.when", None),
    ({"by": "X", "option": "cut"}, "deal.cut.by", None),
    ({"by": "E", "option": "deal_twice"}, "deal.cut.option", None),
    ({"by": "W", "option": "cut"}, "deal.cut.by", "deal.cut.cutter"),
    ({"by": "E", "option": "bottom_to_partner"}, "deal.cut.to", None),
    ({"by": "E", "option": "bottom_to_partner", "to": "N"}, "deal.cut.to", "deal.cut.receiver"),
    ({"by": "E", "option": "top_keep", "to": "W"}, "deal.cut.to", None),
    ({"by": "E", "option": "top_keep", "cards": ["AC", "KS"]}, "deal.cut.cards", None),
    ({"by": "E", "option": "top_keep", "cards": ["AC", "KS", "1X"]}, "deal.cut.cards[2]", None),
    ({"by": "E", "option": "top_keep", "cards": ["AC", "KS", "AC"]}, "deal.cut.cards", None),
    ({"by": "E", "option": "top_keep", "cards": ["AC", "KS", "QS"]}, "deal.cut.cards", None),
    ({"by": "E", "option": "go", "cards": ["AC"]}, "deal.cut.cards", None),
])
def test_bad_cut_records_are_located(nl, cut, path, rule):
    with pytest.raises(DealError) as info:
        Hand(nl, "N", {"deck": DECK, "cut": cut})
    assert info.value.path == path and info.value.rule == rule
    if rule:
        assert info.value.source


def test_nl_options_are_refused_under_de():
    with pytest.raises(DealError) as info:
        Hand(load_variant("default"), "N", {"deck": DECK, "cut": {"by": "E", "option": "top_public"}})
    assert info.value.rule == "deal.cut.option" and info.value.path == "deal.cut.option"
    assert "Vorbereitung" in info.value.source


def test_hands_form_checks_recorded_cards(nl):
    Hand(nl, "N", {"hands": HANDS, "public": "9S", "cut": {"by": "E", "option": "top_keep", "cards": ["AC", "KC", "QC"]}})
    Hand(nl, "N", {"hands": HANDS, "public": "9S", "cut": {"by": "E", "option": "top_public", "cards": ["9S"]}})
    with pytest.raises(DealError, match="not among E's first 5"):
        Hand(nl, "N", {"hands": HANDS, "public": "9S", "cut": {"by": "E", "option": "bottom_keep", "cards": ["AC", "KC", "AS"]}})
    with pytest.raises(DealError, match="public card"):
        Hand(nl, "N", {"hands": HANDS, "public": "9S", "cut": {"by": "E", "option": "top_public", "cards": ["AS"]}})


def test_deck_form_moves(nl):
    hand = Hand(nl, "N", {"deck": DECK, "cut": {"by": "E", "option": "bottom_to_partner", "to": "W", "cards": ["AD", "9S", "7C"]}})
    assert [c.text for c in hand.state.initial["W"]] == ["7C", "9S", "AD", "AS", "KH"]
    assert hand.state.public.text == "JC"
