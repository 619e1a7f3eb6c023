"""`baloot simulate` writes each document's text made straight from the hands (log/lines.py);
it must be byte for byte the JSON of the documents log/writer.py builds for the same hands."""

import json

import pytest

from baloot_spec.rules import load_variant
from baloot_spec.simulate import hand_lines, match_lines, simulate_hands, simulate_matches


def _json(documents) -> list:
    return [json.dumps(document, separators=(",", ":")) for document in documents]


@pytest.mark.parametrize("preset, sets", [("default", None), ("riyadh", None), ("nl-rulebook", None),
                                          ("online-apps", {"late_projects": "until_third_card"})])
def test_the_lines_of_hands_are_the_documents_json(preset, sets):
    rules = load_variant(preset, sets)
    lines = list(hand_lines(rules, 40, seed=13))
    assert lines == _json(simulate_hands(rules, 40, seed=13))
    # (the hands said something: projects, a thrown-in hand or a copied event are in the text)
    assert any('"claimed":{"thrown_in":false' in line for line in lines)


def test_the_lines_of_matches_are_the_documents_json():
    rules = load_variant("saudi-federation")
    lines = list(match_lines(rules, 2, seed=3, max_hands=8))
    assert lines == _json(simulate_matches(rules, 2, seed=3, max_hands=8))
    assert all('"claimed":{"scores":' in line for line in lines)


def test_the_encoder_made_once_writes_what_json_dumps_writes():
    from baloot_spec.expr.builtins import Rec
    from baloot_spec.log.lines import _encode
    values = ["plain", "é\u2603\"\\\n", 0, -7, 2.5, 1e300, True, None, [], {}, (1, "a"),
              {"a": [1, {"b": None}], "c": (True, False), "ü": 0.1}, Rec({"seat": "N", "points": [1, 2]})]
    for value in values:
        assert _encode(value) == json.dumps(value, separators=(",", ":"))
    with pytest.raises(TypeError):
        _encode({"a": object()})


def test_a_deal_written_from_its_cards_texts_is_what_json_dumps_writes():
    from baloot_spec.log.lines import LineWriter
    rules = load_variant("default")
    writer = LineWriter(rules)
    deck = [card.text for card in rules.deck.cards]
    for deal in ({"deck": deck}, {"deck": deck[:5] + ["XX", "é"]}, {"deck": [["7H"]]}, {"deck": deck, "x": 1}, {},
                 {"deck": "7H"}, {"hands": {"N": deck[:8]}}):
        assert writer._deal_text(deal) == json.dumps(deal, separators=(",", ":"))


def test_a_shared_event_keeps_its_text_and_the_hands_read_as_before():
    """LineWriter keeps a shared event's text on the event (LegalEvent `_json`), read as an
    attribute with "" for an event without one: the events' texts are then made as before."""
    import random

    from baloot_spec.engine.random_play import play_random_hand
    from baloot_spec.engine.state import LegalEvent
    from baloot_spec.log.lines import LineWriter
    from baloot_spec.log.writer import hand_record
    rules = load_variant("default")
    writer = LineWriter(rules)
    for number in range(6):
        hand = play_random_hand(rules, random.Random(number), "N", {"NS": 0, "EW": 40})
        record = json.loads(writer.hand_text(hand))
        assert record == json.loads(json.dumps(hand_record(hand)))
        for event in hand.events:
            if type(event) is LegalEvent:
                assert event._json == json.dumps(event, separators=(",", ":"))
