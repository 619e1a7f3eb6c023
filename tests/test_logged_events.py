"""What `Hand.events` keeps: every applied event as it was, whatever the caller does with its own
dict afterwards. An event equal to a legal one is kept as that candidate's shared read-only event
(made once per candidate and seat); any other (an alias, an extra field, an announcement) as a
copy."""

import json
import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.state import LegalEvent
from baloot_spec.log.writer import hand_record
from baloot_spec.rules import load_variant

RULES = load_variant()
DECK = [f"{r}{s}" for s in "SHDC" for r in "AKQJT987"]


def _to_play(hand):
    """Bid through to the first play: W buys a Sun, nobody doubles."""
    hand.apply({"type": "bid", "call": "sun", "seat": "W"})
    while hand.phase != "play":
        hand.apply(dict(hand.legal()[0], seat=hand.turn()))   # pass / no double
    return hand


def test_the_log_does_not_follow_the_callers_event_when_it_changes():
    hand = _to_play(Hand(RULES, "N", {"deck": DECK}))
    before = len(hand.events)
    event = dict(hand.legal()[0], seat=hand.turn())
    kept = dict(event)
    hand.apply(event)
    event["card"], event["seat"] = "7C", "N"     # the caller reuses its dict
    assert hand.events[before] == kept
    event = {"type": "bid", "call": "pass", "seat": "W"}
    other = Hand(RULES, "N", {"deck": DECK})
    other.apply(event)
    event["call"] = "sun"
    assert other.events == [{"type": "bid", "call": "pass", "seat": "W"}]


def test_a_legal_event_is_logged_as_the_shared_read_only_one_for_its_seat():
    hand = _to_play(Hand(RULES, "N", {"deck": DECK}))
    seat = hand.turn()
    legal = hand.legal()[0]
    hand.apply(dict(legal, seat=seat))
    logged = hand.events[-1]
    assert type(logged) is LegalEvent and logged == dict(legal, seat=seat)
    assert list(logged) == ["type", "card", "seat"]   # the order `dict(legal, seat=...)` makes
    with pytest.raises(TypeError, match="read-only"):
        logged["card"] = "7C"
    calls = [e for e in hand.events if e["type"] != "play"]
    assert calls and all(type(e) is LegalEvent for e in calls)


@pytest.mark.parametrize("extra", [{"note": "kept"}, {"closed": False}])
def test_a_call_with_more_than_the_legal_event_says_is_copied_whole(extra):
    # an unknown field is ignored by the rules and a default spelled out changes nothing, but
    # the log keeps what was said
    hand = Hand(RULES, "N", {"deck": DECK})
    event = {"type": "bid", "call": "pass", "seat": "W", **extra}
    hand.apply(event)
    assert hand.events == [event] and type(hand.events[0]) is dict


def test_a_card_written_another_way_or_said_with_an_announcement_is_copied():
    hand = _to_play(Hand(RULES, "N", {"deck": DECK}))
    seat = hand.turn()
    card = next(e["card"] for e in hand.legal() if e["card"].startswith("T"))
    event = {"type": "play", "seat": seat, "card": "10" + card[1]}   # the rank alias for T
    hand.apply(event)
    assert hand.events[-1] == event and type(hand.events[-1]) is dict
    seat = hand.turn()
    event = dict(hand.legal()[0], seat=seat, ekka=False)   # an announcement left at its default
    hand.apply(event)
    assert hand.events[-1] == event and type(hand.events[-1]) is dict


def test_a_hands_own_log_replays_to_the_same_result_and_writes_as_plain_json():
    rng = random.Random(5)
    for _ in range(20):
        played = play_random_hand(RULES, rng, "N")
        again = Hand(RULES, "N", played.deal_spec)
        for event in played.events:   # LegalEvents among them: judged like plain dicts
            again.apply(event)
        assert again.result() == played.result() and again.events == played.events
        written = json.loads(json.dumps(hand_record(played)))
        assert written["events"] == played.events
        assert all(type(e) is dict for e in hand_record(played)["events"])
