"""log/lines.py's parts (step 119): the claimed results written from the engine's values without
the score record, the dicts of a line encoded in one call and cut apart, the deal in one join.
Each must be byte for byte what json.dumps writes for what log/writer.py builds."""

import json
import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.expr.builtins import Rec
from baloot_spec.log.lines import LineWriter, _fill, _put
from baloot_spec.log.writer import CLAIMED_FROM_SCORE, claimed_of, hand_record, log_document
from baloot_spec.rules import load_variant

PRESETS = ["default", "riyadh", "saudi-federation", "nl-rulebook", "online-apps"]


def _json(value) -> str:
    return json.dumps(value, separators=(",", ":"))


def _claimed_text(writer, hand) -> str:
    parts, slots, dicts = [], [], []
    writer._claimed_parts(hand, parts, slots, dicts)
    _fill(parts, slots, dicts)
    return "".join(parts)


def _hands(rules, count, seed=11):
    rng = random.Random(seed)
    seats, teams = list(rules.table.seats), list(rules.table.teams)
    for _ in range(count):
        yield play_random_hand(rules, rng, rng.choice(seats), {team: rng.choice([0, 40, 101]) for team in teams})


@pytest.mark.parametrize("preset", PRESETS)
def test_the_claimed_text_is_the_json_of_claimed_of(preset):
    rules = load_variant(preset)
    writer = LineWriter(rules)
    for hand in _hands(rules, 25):
        assert hand._score is None
        text = _claimed_text(writer, hand)
        assert hand._score is None   # (no score record made)
        assert text == _json(claimed_of(hand))


@pytest.mark.parametrize("preset", PRESETS)
def test_a_hand_with_its_score_as_a_record_writes_the_same(preset):
    """A score given as a record (the score setter: no result dict kept) is read as the record."""
    rules = load_variant(preset)
    writer = LineWriter(rules)
    for hand in _hands(rules, 6, seed=3):
        before = _claimed_text(writer, hand)
        hand.score = Rec(hand.score)
        assert hand._shown is None and hand.score_entries() is hand.score
        assert _claimed_text(writer, hand) == before == _json(claimed_of(hand))
        assert writer.hand_text(hand) == _json(hand_record(hand))


def test_a_thrown_in_hand_writes_thrown_in_only():
    rules = load_variant("default")
    writer = LineWriter(rules)
    deck = [card.text for card in rules.deck.cards]
    hand = Hand(rules, "N", {"deck": deck})
    while not hand.is_over():   # (everyone passes, twice)
        legal = hand.legal()
        passes = [event for event in legal if "pass" in json.dumps(event)] or legal[:1]
        hand.apply(dict(passes[0], seat=hand.turn()))
    assert hand.score_entries() is None and hand.result()["thrown_in"]
    assert _claimed_text(writer, hand) == _json(claimed_of(hand)) == '{"thrown_in":true}'
    assert writer.hand_text(hand) == _json(hand_record(hand))


def test_score_entries_reads_the_result_without_making_the_record():
    rules = load_variant("default")
    hand = next(_hands(rules, 1))
    entries = hand.score_entries()
    assert type(entries) is dict and hand._score is None
    score = hand.score   # (made now, as before)
    assert all(entries[name] is score[name] for name in score)
    assert not set(CLAIMED_FROM_SCORE) & {"thrown_in", "next_dealer"}   # (the result's leading entries)


@pytest.mark.parametrize("dicts", [
    [{"NS": 1, "EW": 2}, {}, {"a": [1, {"b": None}]}, Rec({"x": "y"})],
    [{"a": "},{"}, {"b": 1}],              # a dict's own text holds the cut
    [{"a": [{}, {"b": 1}]}, {"c": {}}],    # nested dicts meet at a cut
    [{}], [{}, {}], [{"k": "é\u2603\"\\\n"}],
])
def test_dicts_encoded_together_are_cut_back_into_their_texts(dicts):
    parts, slots = ["<"], []
    placed = []
    for value in dicts:
        _put(value, parts, slots, placed)
        parts.append("|")
    _fill(parts, slots, placed)
    assert "".join(parts) == "<" + "".join(_json(value) + "|" for value in dicts)


def test_put_writes_what_is_not_a_dict_as_it_stands():
    parts, slots, dicts = [], [], []
    for value in (5, "N", None, [1, 2], (True, 1.5)):
        _put(value, parts, slots, dicts)
    assert not dicts and parts == [_json(v) for v in (5, "N", None, [1, 2], (True, 1.5))]


def test_a_deck_is_joined_only_from_cards_written_as_they_stand():
    rules = load_variant("default")
    writer = LineWriter(rules)
    deck = [card.text for card in rules.deck.cards]
    for deal in ({"deck": deck}, {"deck": deck[:3]}, {"deck": []}, {"deck": deck[:2] + ['7"H']},
                 {"deck": deck[:2] + [{"x": 1}]}, {"deck": [deck[0], 7]}, {"deck": ("7H",)}):
        assert writer._deal_text(deal) == _json(deal)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_one_hand_document_is_the_documents_json(preset):
    rules = load_variant(preset)
    writer = LineWriter(rules, "app")
    described = rules.variant.describe()
    for hand in _hands(rules, 10, seed=7):
        start = {team: 40 for team in rules.table.teams}
        document = log_document(rules, [hand_record(hand)], "E", start, app="app", described=described)
        assert writer.hand_document_text(hand, "E", start) == _json(document)
        assert writer.hand_document_text(hand, "E") == _json(log_document(rules, [hand_record(hand)], "E", app="app"))
