"""A state's containers that nothing changes in place are the variant's, shared by every hand
(tools/BENCHMARKS.md, step 112): the list and dict initials of the state the rules declare (rule
expressions have no side effects: an effect sets a new value) and `dealt`'s empty lists before the
completion (the engine replaces a seat's list, never changes it). What the engine changes in place
(IN_PLACE, the memo) stays each state's own; values, types, copies and logs are unchanged."""

import random

import pytest

from baloot_spec.engine import state as state_module
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.state import IN_PLACE, State
from baloot_spec.rules import load_variant

PRESETS = ("default", "riyadh", "saudi-federation", "nl-rulebook", "online-apps")
SCORES = {"NS": 0, "EW": 0}


@pytest.fixture(scope="module", params=PRESETS)
def rules(request):
    return load_variant(request.param)


def _containers(rules):
    return [name for name, value in rules.state_init.items() if isinstance(value, (list, dict))]


def test_the_rules_declare_container_initials(rules):
    assert _containers(rules)   # (else the tests below test nothing)


def test_container_initials_are_shared_equal_and_not_the_rules_own(rules):
    one, two = State(rules, "N", SCORES), State(rules, "W", SCORES)
    for name in _containers(rules):
        value = rules.state_init[name]
        mine = getattr(one, name)
        assert mine == value and type(mine) is type(value)
        assert mine is getattr(two, name)   # one object for every hand of the variant
        assert mine is not value   # ... but not the rules' own initial


def test_dealt_before_the_completion_is_one_dict_of_the_variants(rules):
    one, two = State(rules, "N", SCORES), State(rules, "N", SCORES)
    assert list(one.dealt) == list(rules.table.seats) and one.dealt == {s: [] for s in rules.table.seats}
    # (shared, never written: the completion gives each state a new dict, step 115)
    assert one.dealt is two.dealt is state_module.initial_dealt(rules)
    lists = {id(cards) for cards in [*one.dealt.values(), *two.dealt.values()]}
    assert len(lists) == 1 and type(one.dealt["N"]) is list


def test_what_the_engine_changes_in_place_stays_each_states_own(rules):
    one, two = State(rules, "N", SCORES), State(rules, "N", SCORES)
    for name in [*IN_PLACE, "_memo"]:
        if name != "dealt":   # (replaced whole at the completion, never written: the test above)
            assert getattr(one, name) is not getattr(two, name)
    for seat in rules.table.seats:
        assert one.hands[seat] is not two.hands[seat]


def test_only_the_engines_in_place_containers_are_written_in_place():
    assert state_module._written_in_place("_memo")
    assert all(state_module._written_in_place(name) for name in IN_PLACE)
    assert not state_module._written_in_place("anything_a_rule_declares")


def test_a_shared_initial_is_a_shallow_copy_of_its_type():
    for value in ([], [1, [2]], {}, {"a": [1], "b": 2}):
        made = state_module._shared_initial(value)
        assert made == value and type(made) is type(value) and made is not value


def test_playing_hands_never_changes_a_shared_container(rules):
    """Every effect that sets a container field sets a new value: after many random hands (and
    their copies played on) the shared objects still hold what the rules declare."""
    state = State(rules, "N", SCORES)
    shared = {name: getattr(state, name) for name in _containers(rules)}
    empty = state.dealt["N"]
    rng = random.Random(112)
    changed = set()
    for number in range(60):
        hand = play_random_hand(rules, rng, rng.choice(rules.table.seats), SCORES)
        for name, value in shared.items():
            if getattr(hand.state, name) is not value:
                changed.add(name)
    for name, value in shared.items():
        assert value == rules.state_init[name], name
    assert empty == []
    assert changed   # (the hands did set some of them: a new value each time)


def test_a_hands_copy_owns_its_containers(rules):
    hand = Hand(rules, "N", _deck(rules))
    copy = hand.copy()
    for name in _containers(rules):
        assert getattr(copy.state, name) == getattr(hand.state, name)
        assert getattr(copy.state, name) is not getattr(hand.state, name)


def _deck(rules):
    cards = [c.text if hasattr(c, "text") else str(c) for c in rules.deck.cards]
    random.Random(7).shuffle(cards)
    return {"deck": cards}


# ---- each seat's hand is its initial list until a tricks phase (own_hands) ----------------------

def test_a_hand_is_its_seats_initial_list_until_the_completion(rules):
    hand = Hand(rules, "N", _deck(rules))
    for seat in rules.table.seats:
        assert hand.state.hands[seat] is hand.state.initial[seat] is hand.deal.initial[seat]


def test_no_hand_is_an_initial_list_once_cards_are_played(rules):
    rng = random.Random(5)
    for _ in range(20):
        hand = play_random_hand(rules, rng, rng.choice(rules.table.seats), SCORES)
        S = hand.state
        if S.tricks:   # (played: the deal's lists are as dealt)
            assert all(S.hands[s] is not S.initial[s] for s in S.hands)
        assert all(len(cards) == len(hand.deal.initial[seat]) for seat, cards in S.initial.items())
        assert S.initial == hand.deal.initial


def test_own_hands_copies_only_the_initial_lists():
    from types import SimpleNamespace
    from baloot_spec.engine.state import own_hands
    a, b, mine = ["x"], ["y"], ["z"]
    S = SimpleNamespace(initial={"N": a, "S": b}, hands={"N": a, "S": mine, "E": []})
    before = S.hands
    own_hands(S)
    assert S.hands == {"N": ["x"], "S": ["z"], "E": []} and list(S.hands) == ["N", "S", "E"]
    assert S.hands["N"] is not a and S.hands["S"] is mine and S.hands is not before
    assert before["N"] is a   # (the old dict is left as it was)


def test_a_tricks_phase_entered_without_a_completion_owns_its_hands(rules):
    """A deal whose every card is dealt before the bidding has no completion to replace the
    hands: entering the tricks phase copies them, so a card played leaves `initial` whole."""
    hand = Hand(rules, "N", _deck(rules))
    S = hand.state
    kind_of = {name: phase.kind for name, phase in rules.phases.items()}
    tricks = next(name for name, kind in kind_of.items() if kind == "tricks")
    initial = {seat: list(cards) for seat, cards in S.initial.items()}
    hand._resume(tricks, False)
    assert all(S.hands[s] is not S.initial[s] and S.hands[s] == S.initial[s] for s in S.hands)
    hand2 = Hand(rules, "N", _deck(rules))
    S2 = hand2.state
    S2.phase = None
    hand2._enter(tricks)
    assert all(S2.hands[s] is not S2.initial[s] for s in S2.hands)
    seat, legal = hand2.turn(), hand2.legal()
    if legal:   # (the rules may keep no card in a state no bidding made)
        hand2.apply(dict(legal[0], seat=seat))
        assert sum(map(len, S2.hands.values())) == sum(map(len, S2.initial.values())) - 1
    assert all(len(S2.initial[s]) == len(hand2.deal.initial[s]) == len(initial[s]) for s in initial)
    assert initial == {seat: list(cards) for seat, cards in S.initial.items()}


def test_a_played_hand_with_a_completion_never_copies_its_hands(rules, monkeypatch):
    """The completion replaced every hand: the tricks phase reads the hand's flag (`_owned`) and
    copies nothing."""
    from baloot_spec.engine import phases as phases_module
    called = []
    monkeypatch.setattr(phases_module, "own_hands", lambda S: called.append(S))
    rng = random.Random(9)
    played = 0
    for _ in range(10):
        hand = play_random_hand(rules, rng, rng.choice(rules.table.seats), SCORES)
        played += bool(hand.state.tricks)
        assert hand._owned or not hand.state.tricks
    assert played and not called
