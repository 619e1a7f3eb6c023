"""A card said with announcements (a project, an Ekka, Baloot) is judged on the fast path: its
action is made once per variant and announcement and shared, like a plain card's candidate. These
tests hold that to what the slow path did: the same refusals, the same state, an action that the
caller's event cannot change afterwards, and a table that a hostile log cannot grow without end."""

import random

import pytest

import baloot_spec.engine.candidates as candidates_module
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.errors import IllegalAction
from baloot_spec.rules import load_variant

RULES = load_variant()


def _recorded_hands(count=60, seed=5):
    out = []
    for number in range(count):
        rng = random.Random(f"{seed}:{number}")
        hand = play_random_hand(RULES, rng, rng.choice(RULES.table.seats))
        out.append((hand.deal.dealer, hand.deal_spec, [dict(e) for e in hand.events]))
    return out


HANDS = _recorded_hands()


def _announced(event):
    return event["type"] == "play" and len(event) > 3


def _up_to_first_announcement(dealer, deal, events):
    hand = Hand(RULES, dealer, deal)
    for event in events:
        if _announced(event):
            return hand, event
        hand.apply(event)
    return None, None


def _last_play(hand):
    return hand.state.trick[-1] if hand.state.trick else hand.state.tricks[-1].plays[-1]


def _positions():
    found = [p for p in (_up_to_first_announcement(*h) for h in HANDS) if p[0] is not None]
    assert len(found) >= 10   # (the recorded hands do declare projects)
    return found


def test_two_hands_share_the_action_of_the_same_announced_card():
    seen = {}
    shared = 0
    for dealer, deal, events in HANDS:
        hand = Hand(RULES, dealer, deal)
        for event in events:
            if _announced(event):
                _, action, exact = hand._judge(event)
                assert not exact   # (the log keeps a copy: the event is not a candidate's own)
                key = (event["card"], repr(sorted((k, v) for k, v in event.items() if k not in ("seat", "type", "card"))))
                if key in seen:
                    assert seen[key] is action
                    shared += 1
                seen[key] = action
                assert action.card.text == event["card"]
                for name, default in RULES.phases["play"].annotations.items():
                    assert getattr(action, name) == event.get(name, default)
            hand.apply(event)
    assert shared > 0


def test_an_announced_card_changes_the_state_as_the_slow_path_did():
    for hand, event in _positions():
        slow = hand.copy()
        slow.apply(event, _judged=slow._judge_slowly(event, False))
        hand.apply(event)
        assert [dict(d) for d in hand.state.declared] == [dict(d) for d in slow.state.declared]
        assert hand.state.baloot_said == slow.state.baloot_said
        assert hand.events[-1] == slow.events[-1] == event
        assert _last_play(hand).declare == _last_play(slow).declare


def test_the_callers_list_cannot_change_the_shared_action_afterwards():
    hand, event = _positions()[0]
    again = hand.copy()
    said = list(event["declare"]) if "declare" in event else None
    mine = {**event, **({"declare": list(event["declare"])} if said is not None else {})}
    hand.apply(mine)
    if said is not None:
        mine["declare"].append("400")   # the caller reuses its list
        assert _last_play(hand).declare == said
    _, action, _ = again._judge(event)
    if said is not None:
        assert action.declare == said


@pytest.mark.parametrize("change, rule", [
    ({"declare": ["400", "400"]}, "play.declare.not-held"),
    ({"ekka": 1}, "phase.wrong-action"),
    ({"declare": "sira"}, "phase.wrong-action"),
    ({"declare": [3]}, "phase.wrong-action"),
    ({"baloot": True}, "play.baloot.invalid"),
])
def test_a_refused_announcement_names_the_same_rule_and_message_as_the_slow_path(change, rule):
    checked = 0
    for hand, event in _positions():
        wrong = {**event, **change}
        fast = hand.check(wrong)
        try:
            hand.copy()._judge_slowly(wrong, False)
            slow = None
        except IllegalAction as refusal:
            slow = refusal
        if slow is None:
            assert fast is None
            continue
        assert fast is not None and (fast.rule_id, fast.message) == (slow.rule_id, slow.message)
        checked += fast.rule_id == rule
    assert checked > 0


def test_distinct_announcements_are_kept_only_up_to_a_bound(monkeypatch):
    monkeypatch.setattr(candidates_module, "_ANNOUNCED_KEPT", 3)
    rules = load_variant("default", {"ekka": False})
    dealer, deal, events = HANDS[0]
    hand = Hand(rules, dealer, deal)
    for event in events:
        if event["type"] == "play":
            break
        hand.apply(event)
    # (the variant's tables are shared in the process: another test may have filled this one,
    # so the check starts from an empty store of its own)
    monkeypatch.setattr(hand._tables["play"], "announced", {})
    event = dict(hand.legal()[0], seat=hand.turn())
    for n in range(10):
        assert hand.check({**event, "declare": [f"name{n}"]}) is not None
    assert len(hand._tables["play"].announced) == 3
