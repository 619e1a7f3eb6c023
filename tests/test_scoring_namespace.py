"""The engine's facts and scoring steps live on a namespace with a slot per name, read back by
generated readers; what a hand reports must be what the general path (`score_facts`, a plain
namespace that takes any name, as a `score` case uses) computes from the same facts, with the
same names in the same order."""

import random

import pytest

from baloot_spec.engine.hand import score_facts
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.rules import load_variant


@pytest.mark.parametrize("preset", ["default", "nl-rulebook", "saudi-federation"])
def test_a_hand_scores_as_its_facts_do(preset):
    rules = load_variant(preset=preset)
    facts = [name for name, _, _ in rules.facts]
    steps = [name for name, _, _ in rules.scoring]
    scored = 0
    for number in range(40):
        rng = random.Random(f"scoring-namespace:{preset}:{number}")
        hand = play_random_hand(rules, rng, rng.choice(rules.table.seats), {"NS": 0, "EW": 0})
        if hand.score is None:   # thrown in: no scoring
            continue
        scored += 1
        assert list(hand.facts) == list(dict.fromkeys(facts))
        assert list(hand.score) == list(dict.fromkeys(facts + steps))
        assert hand.score == score_facts(rules, dict(hand.facts))
    assert scored > 20


def test_the_namespace_has_no_dict_to_slow_it():
    rules = load_variant()
    namespace = rules.facts_all.__globals__["_Namespace"]()
    assert not hasattr(namespace, "__dict__")
    with pytest.raises(AttributeError):
        namespace.not_a_fact = 1
