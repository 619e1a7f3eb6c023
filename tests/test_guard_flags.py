"""The candidates a phase's guards clear (no check applies, no action effect applies) as flags
read at the candidate's number (`flags[action._at]`, engine/candidates.py), not a frozenset of
candidates probed by address: the same answers for every action, from a tuple of a few lines
instead of a 2 KB hash table per phase (tools/BENCHMARKS.md, step 105)."""

import random

import pytest

from baloot_spec.engine.candidates import NO_FLAGS, NOWHERE, _cleared, announced_action, tables_of
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import random_action, random_deck
from baloot_spec.engine.state import Action
from baloot_spec.rules import load_variant


def _every_candidate(tables):
    return [action for table in tables.by_name.values() for action in (*table.by_card.values(), *table.calls)]


def test_every_candidate_of_the_variant_has_its_own_number():
    tables = tables_of(load_variant("default"))
    every = _every_candidate(tables)
    assert sorted(action._at for action in every) == list(range(len(every)))
    assert all(tables._candidates[action._at] is action for action in every)


def test_an_action_that_is_no_candidate_reads_the_last_flag_which_is_false():
    rules = load_variant("default")
    tables = tables_of(rules)
    play = rules.phases[tables.play_phase]
    table = tables[tables.play_phase]
    card = next(iter(table.by_card))
    said = announced_action(play, table, card, (True, *table.default_values[1:]))
    built = Action(play.action, card=card)
    assert said._at == built._at == -1
    flags = _cleared(lambda action: False, list(table.by_card.values()), len(tables._candidates))
    assert all(flags[action._at] for action in table.by_card.values()) and not flags[said._at] and not flags[-1]


def test_no_guard_or_a_failing_guard_clears_nothing():
    tables = tables_of(load_variant("default"))
    every, count = _every_candidate(tables), len(tables._candidates)
    assert _cleared(None, every, count) == (False,) * (count + 1)
    assert _cleared(lambda action: 1 / 0, every, count) == (False,) * (count + 1)


@pytest.mark.parametrize("preset", ["default", "riyadh", "saudi-federation", "nl-rulebook", "online-apps"])
def test_the_flags_are_the_guards_answers_for_every_action_in_every_phase_a_hand_enters(preset):
    """In every phase (specialised ones included) of 30 random hands: a candidate of the phase is
    flagged exactly where the guard is false, a candidate of another phase and any other
    action never; outside any phase the hand holds no flags."""
    rules = load_variant(preset)
    tables = tables_of(rules)
    every = _every_candidate(tables)
    rng = random.Random(preset)
    checked = set()
    cleared_seen = 0
    for _ in range(30):
        hand = Hand(rules, "N", {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
        while not hand.is_over():
            phase, table, quiet_checks, quiet_effects, _ = hand._now
            assert type(quiet_checks) is tuple and type(quiet_effects) is tuple
            if id(phase) not in checked:
                checked.add(id(phase))
                own = {id(action) for action in (*table.by_card.values(), *table.calls)}
                for flags, guard in ((quiet_checks, phase.check_guard), (quiet_effects, phase.action_guard)):
                    assert len(flags) == len(every) + 1 and flags[-1] is False
                    for action in every:
                        expected = id(action) in own and guard is not None and not guard(action)
                        assert flags[action._at] is expected, (preset, phase.name, action.type)
                        cleared_seen += expected
            hand.apply(random_action(hand, rng))
        assert hand._now is NOWHERE and hand._now[2] is hand._now[3] is NO_FLAGS
    assert len(checked) >= 4 and cleared_seen > 0
