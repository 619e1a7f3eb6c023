"""Hand.legal() hands out events shared between calls: read-only, yet usable as plain dicts."""

import copy
import json
import pickle

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.state import LegalEvent
from baloot_spec.rules import load_variant

RULES = load_variant()
DECK = [f"{r}{s}" for s in "SHDC" for r in "AKQJT987"]


def test_a_legal_event_cannot_be_changed_in_place_and_says_how_to_act_on_it():
    hand = Hand(RULES, "N", {"deck": DECK})
    first = hand.legal()
    event = first[0]
    assert isinstance(event, LegalEvent) and event["type"] == "bid"
    for change in (lambda e: e.__setitem__("seat", "W"), lambda e: e.update(seat="W"), lambda e: e.pop("type"),
                   lambda e: e.setdefault("seat", "W"), lambda e: e.clear(), lambda e: e.__delitem__("type")):
        with pytest.raises(TypeError, match=r"read-only; copy it: dict\(action, seat=\.\.\.\)"):
            change(event)
    assert hand.legal() == first and "seat" not in hand.legal()[0]   # nothing leaked into the cache
    hand.apply(dict(event, seat=hand.turn()))                          # the way to act on one
    assert len(hand.events) == 1 and hand.events[0]["seat"] == "W"


def test_a_legal_event_is_a_plain_dict_to_json_pickle_and_copy():
    event = Hand(RULES, "N", {"deck": DECK}).legal()[0]
    assert json.loads(json.dumps(event)) == event
    for twin in (pickle.loads(pickle.dumps(event)), copy.deepcopy(event), copy.copy(event), event.copy()):
        assert twin == event and type(twin) is dict
        twin["seat"] = "W"   # a copy is the caller's own
