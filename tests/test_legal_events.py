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


def test_an_action_reads_the_fields_of_its_phases_other_actions_as_none():
    # The trump phase (pickup_before_trump=sun) offers `trump` with a suit and `pickup` with no
    # field: a rule about `suit` reads a pickup's as none. Every action of the phase carries the
    # field, so the engine needs no __getattr__ fallback (which slows every attribute read).
    from baloot_spec.engine.candidates import tables_of
    rules = load_variant("default", {"pickup_before_trump": "sun"})
    table = tables_of(rules)["trump"]
    by_type = {action.type: action for action in table.calls}
    assert by_type["pickup"].suit is None and by_type["trump"].suit in rules.deck.suits
    assert all("suit" in action._fields and action.type for action in table.calls)   # (slots: no vars())
    assert by_type["pickup"]._event == {"type": "pickup"}    # the event lists its own fields only
    with pytest.raises(AttributeError):
        by_type["pickup"].no_such_field
    hand = Hand(rules, "N", {"deck": DECK})
    # all pass in round one; W takes Hokum in round two and then names the suit (or picks up)
    for seat, call in [("W", "pass"), ("S", "pass"), ("E", "pass"), ("N", "pass"),
                       ("W", "hokum"), ("S", "pass"), ("E", "pass"), ("N", "pass")]:
        hand.apply({"seat": seat, "type": "bid", "call": call})
    assert hand.phase == "trump" and {"type": "pickup"} in hand.legal()
    hand.apply({"seat": "W", "type": "pickup"})               # judged and applied through the rules
    assert hand.state.mode == "sun"


@pytest.mark.parametrize("change", [{"type": ["bid"]}, {"call": ["pass"]}, {"call": {"x": 1}}, {"call": 0},
                                    {"call": True}, {"call": 1.5}, {"type": None}])
def test_an_event_of_the_wrong_shape_is_refused_not_a_crash(change):
    # (the legal-action lookup hashes the event's values: an unhashable one is refused as the
    # wrong action, like any other misshapen event, and never escapes as a TypeError)
    from baloot_spec.errors import IllegalAction
    hand = Hand(RULES, "N", {"deck": DECK})
    event = dict(hand.legal()[0], seat=hand.turn(), **change)
    refusal = hand.check(event)
    assert refusal is not None and refusal.rule_id == "phase.wrong-action", refusal
    with pytest.raises(IllegalAction):
        hand.apply(event)
    assert hand.events == []
