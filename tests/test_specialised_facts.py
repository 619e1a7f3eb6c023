"""A score phase with `fixed` state gets its facts compiled once per contract with that state
folded in (a Sun hand's card points have no trump test, its Baloot no search for the King and
Queen of trumps). Whatever the contract, the folded facts must be the generic facts, value for
value, on every hand; and an aggregate folded to "no items" must be folded only where the
unfolded code could not have failed."""

import random

import pytest

from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.state import ENGINE_LISTS
from baloot_spec.expr.compiler import Scope, to_python
from baloot_spec.rules import load_variant

PRESETS = ["default", "nl-rulebook", "saudi-federation", "online-apps"]


@pytest.mark.parametrize("preset", PRESETS)
def test_the_folded_facts_are_the_generic_facts_on_every_hand(preset):
    rules = load_variant(preset)
    contracts = set()
    for number in range(150):
        rng = random.Random(f"facts:{preset}:{number}")
        hand = play_random_hand(rules, rng, rng.choice(rules.table.seats), {"NS": 0, "EW": 0})
        if hand.facts is None:   # thrown in: no scoring
            continue
        S = hand.state
        phase = hand._phases["score"]
        assert phase.facts_all is not None and phase.facts_all is not rules.facts_all
        contracts.add((S.mode, S.trump))
        S._memo = {}
        folded = rules.facts_of(phase.facts_all(S))
        S._memo = {}
        generic = rules.facts_of(rules.facts_all(S))
        assert folded == generic
        assert hand.facts == generic
    assert {mode for mode, _ in contracts} == {"sun", "hokum"}   # both kinds of contract were met


def _names(code) -> set:
    """Every global or attribute name a function's code reads, its comprehensions' included."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def test_a_sun_hands_facts_have_no_trump_test():
    rules = load_variant("default")
    sun = _names(rules.specialized("score", ("sun", None)).facts_all.__code__)
    hokum = _names(rules.specialized("score", ("hokum", "S")).facts_all.__code__)
    generic = _names(rules.facts_all.__code__)
    assert "trump" in generic and "k_trump_points" in generic
    assert "trump" not in sun and "k_trump_points" not in sun   # (`mode` stays: a fact set on the namespace)
    assert "trump" not in hokum   # the trump suit is a literal there, and a card's points are read from
    assert "k__card_card_points" in hokum and "k_trump_points" not in hokum   # its table (passes/card_tables.py)


def _scope():
    return Scope(state=frozenset({"mode", "all_seats", "raises"}), attributes=frozenset({"rank"}),
                 builtins={"len": (1, 1)}, engine_lists=ENGINE_LISTS)


@pytest.mark.parametrize("text, folded", [
    ("count(true for s in all_seats if mode == 'hokum')", "0"),
    ("any(true for s in all_seats if mode == 'hokum')", "False"),
    ("all(false for s in all_seats if mode == 'hokum')", "True"),
    ("first(s for s in all_seats if mode == 'hokum')", "None"),
    ("max(1 for s in all_seats if mode == 'hokum')", "None"),
    ("sum(1 for s in all_seats if mode == 'hokum')", "0"),
])
def test_an_aggregate_over_no_items_is_its_empty_value(text, folded):
    assert to_python(text, _scope(), fixed={"mode": "sun"}) == folded
    assert to_python(text, _scope(), fixed={"mode": "hokum"}) != folded   # the items are there


def test_an_aggregate_over_a_declared_state_list_is_not_folded():
    # `raises` is a rule's state variable: it could be anything (not a list) and iterating it
    # could fail, so the aggregate stays as it is written
    text = to_python("count(true for s in raises if mode == 'hokum')", _scope(), fixed={"mode": "sun"})
    assert "S.raises" in text
