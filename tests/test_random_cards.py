"""Hand.play_random_cards (the random player's cards of a trick phase in one frame) against the
step it stands for: an index drawn among legal(True) as random.Random.choice draws it, then
play_announcing(index, declared). The same events (and shared events), the same position, the
same draws of the seeded stream, at every position of random hands of four presets."""

import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import _Declared, _wishes, pick, play_random_hand, random_deck
from baloot_spec.rules import load_variant

PRESETS = [("default", None), ("riyadh", None), ("saudi-federation", None),
           ("online-apps", {"late_projects": "until_third_card"})]


def _declared(hand):
    """What each seat would declare in the current phase (as play_random_hand makes it), or None."""
    annotations = hand.rules.phases[hand.phase].annotations
    lists = _wishes(annotations)[2] if annotations else ()
    return _Declared(hand.state, lists) if lists else None


def _stepped(hand, rng, budget: int) -> None:
    """`budget` steps of the random player's loop as it was: legal(True), pick, play_announcing."""
    for _ in range(budget):
        if hand.is_over() or not hand.rules.phases[hand.phase].annotations:
            return
        index = pick(rng.getrandbits, len(hand.legal(True)))
        hand.play_announcing(index, _declared(hand))


def _forked(hand, rng):
    """(fast, slow, fast_rng, slow_rng): two copies of `hand`, each with a generator of its own
    at `rng`'s state (a loop and the steps it stands for, from one position and one stream)."""
    fast_rng, slow_rng = random.Random(), random.Random()
    fast_rng.setstate(rng.getstate())
    slow_rng.setstate(rng.getstate())
    return hand.copy(), hand.copy(), fast_rng, slow_rng


def _same(one, other) -> None:
    assert one.events == other.events
    assert [type(e) for e in one.events] == [type(e) for e in other.events]   # (shared where shared)
    assert one.phase == other.phase and one.turn() == other.turn()
    assert one.is_over() or one.legal() == other.legal()
    S, T = one.state, other.state
    assert S.hands == T.hands and S.played == T.played and S.trick == T.trick and S.leader == T.leader
    assert [repr(t) for t in S.tricks] == [repr(t) for t in T.tricks]
    assert one.result() == other.result()


@pytest.mark.parametrize("preset, sets", PRESETS)
def test_play_random_cards_is_the_random_players_steps(preset, sets):
    rules = load_variant(preset, sets)
    rng = random.Random(f"cards {preset}")
    runs = checked = 0
    for _ in range(12):
        hand = Hand(rules, "S", {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
        while not hand.is_over():
            if rules.phases[hand.phase].annotations:
                for budget in (1, 3, 40):
                    fast, slow, fast_rng, slow_rng = _forked(hand, rng)
                    done = fast.play_random_cards(fast_rng.getrandbits, _declared(fast), budget)
                    assert 1 <= done <= budget
                    _stepped(slow, slow_rng, done)
                    _same(fast, slow)
                    assert fast_rng.getstate() == slow_rng.getstate()   # (the same draws)
                    runs += done > 4
                    checked += 1
            legal = hand.legal()
            hand.apply(dict(legal[pick(rng.getrandbits, len(legal))], seat=hand.turn()))
    assert checked > 300 and runs > 50   # (many cards in one call: the loop ran, not one step a call)


def test_play_random_cards_stops_at_its_budget_and_at_the_hands_end():
    rules = load_variant("default")
    hand = play_random_hand(rules, random.Random(4), "W")
    assert hand.is_over()
    rng = random.Random(4)
    hand = Hand(rules, "W", {"deck": random_deck(rules, rng)})
    while not rules.phases[hand.phase].annotations:
        hand.play_legal(pick(rng.getrandbits, len(hand.legal(True))))
    before = len(hand.events)
    assert hand.play_random_cards(rng.getrandbits, _declared(hand), 2) <= 2
    assert len(hand.events) - before <= 2
    while not hand.is_over():
        hand.play_random_cards(rng.getrandbits, _declared(hand), 400)
    assert hand.events == play_random_hand(rules, random.Random(4), "W").events


def test_play_random_hand_keeps_its_event_budget():
    rules = load_variant("default")
    with pytest.raises(RuntimeError, match="did not end within 20 events"):
        play_random_hand(rules, random.Random(1), "N", max_events=20)
    whole = play_random_hand(rules, random.Random(1), "N")
    assert play_random_hand(rules, random.Random(1), "N", max_events=len(whole.events) + 1).events == whole.events
    with pytest.raises(RuntimeError):   # (as before: the budget ran out before the loop saw the end)
        play_random_hand(rules, random.Random(1), "N", max_events=len(whole.events))


@pytest.mark.parametrize("preset, sets", PRESETS[:2])
def test_the_yes_no_announcements_asked_are_those_the_refusal_guard_leaves(preset, sets):
    """_asked_alone: per card, the shared actions said with one yes/no announcement alone that
    are not refused whatever the position (what play_announcing asks the check of), made once per
    compiled phase; in a Sun contract of the default rules none is asked (every Ekka and Baloot
    alone is refused), in a Hokum some are."""
    from baloot_spec.engine.random_cards import _asked_alone
    rules = load_variant(preset, sets)
    rng = random.Random("asked")
    seen, hokum = set(), False
    for _ in range(400):   # (random bidding ends in a Hokum about one hand in ten)
        if len(seen) >= 4 and hokum:
            break
        hand = Hand(rules, "N", {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
        while not hand.is_over():
            phase, table, _, _, refused = hand._now
            if table is not None and table.play_type and id(phase) not in seen:
                seen.add(id(phase))
                asked = _asked_alone(table, refused)
                assert asked is _asked_alone(table, refused)
                assert asked.keys() == table.yes_alone.keys()
                for card, row in table.yes_alone.items():
                    assert asked[card] == tuple(said for said in row if said not in refused)
                if getattr(hand.state, "mode", None) == "sun":
                    assert not any(asked.values())
                else:
                    hokum = hokum or any(asked.values())
            legal = hand.legal()
            hand.apply(dict(legal[pick(rng.getrandbits, len(legal))], seat=hand.turn()))
    assert len(seen) >= 4 and hokum


def test_a_declared_list_that_is_not_text_goes_the_way_of_play_legal():
    """A seat whose declared list holds a name that is not text (play_announcing hands it to
    play_legal, which says nothing for it): play_random_cards does the same, card for card."""
    rules = load_variant("default")
    rng = random.Random("not text")
    checked = 0
    for _ in range(4):
        hand = Hand(rules, "E", {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
        while not hand.is_over():
            if rules.phases[hand.phase].annotations:
                declared = {seat: {"declare": [1]} for seat in rules.table.seats}
                fast, slow, fast_rng, slow_rng = _forked(hand, rng)
                assert fast.play_random_cards(fast_rng.getrandbits, declared, 5) == 1
                slow.play_announcing(pick(slow_rng.getrandbits, len(slow.legal(True))), declared)
                _same(fast, slow)
                checked += 1
            legal = hand.legal()
            hand.apply(dict(legal[pick(rng.getrandbits, len(legal))], seat=hand.turn()))
    assert checked > 100
