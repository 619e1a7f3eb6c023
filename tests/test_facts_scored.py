"""A specialised score phase's facts_scored(S) (rules/scored.py): the facts computed from the
state straight into the locals the steps read, no scoring namespace made, set or read back.
The hand's records are what facts_all + scored give; a failing fact or step is named by its
own id; a failing step leaves the facts on the hand, a failing fact leaves none."""

import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.errors import RuleRuntimeError
from baloot_spec.rules import load_variant


def _scored_hands(rules, count, label):
    for number in range(count):
        rng = random.Random(f"facts-scored:{label}:{number}")
        hand = play_random_hand(rules, rng, rng.choice(rules.table.seats), {"NS": 3, "EW": 40})
        if hand.score is not None:
            yield hand


@pytest.mark.parametrize("preset", ["default", "saudi-federation", "online-apps"])
def test_the_engine_scores_from_the_state_in_one_function(preset):
    rules = load_variant(preset=preset)
    seen = 0
    for hand in _scored_hands(rules, 30, preset):
        phase = hand._phases["score"]
        assert phase.facts_scored is not None   # (specialised: the one function was taken)
        values = phase.facts_all(hand.state)   # facts on a namespace, then the steps: fuse.py's three calls
        facts, score = rules.facts_of(values), rules.score_of(rules.steps_all(values))
        assert list(hand.facts.items()) == list(facts.items())
        assert list(hand.score.items()) == list(score.items())
        assert type(hand.facts) is type(facts) and type(hand.score) is type(score)
        seen += 1
    assert seen > 15


def test_no_namespace_is_made_and_every_fact_is_a_local():
    rules = load_variant()
    for values in (("sun", None), ("hokum", "H")):
        code = rules.specialized("score", values).facts_scored.__code__
        assert "_Namespace" not in code.co_names   # no namespace made, set or read
        facts = {name for name, _, _ in rules.facts}
        assert {f"_s_{fact}" for fact in facts if fact != "mode"} <= set(code.co_varnames)
    assert rules.phases["score"].facts_scored is None   # (the generic phase keeps the calls)


def _overlay(tmp_path, body: str):
    overlay = tmp_path / "facts.yaml"
    overlay.write_text("overlay: facts\ntitle: Scoring facts for a test\nsource: \"choice: test\"\n" + body,
                       encoding="utf-8")
    return load_variant("default", {}, [str(overlay)])


def _replayed_last_card(rules, label):
    """A hand the default rules score, replayed under `rules` up to its last card."""
    good = load_variant()
    rng = random.Random(f"facts-scored:{label}")
    hand = play_random_hand(good, rng, "N", {"NS": 0, "EW": 0})
    while hand.score is None:
        hand = play_random_hand(good, rng, "N", {"NS": 0, "EW": 0})
    broken = Hand(rules, hand.state.dealer, hand.deal_spec, {"NS": 0, "EW": 0})
    for event in hand.events[:-1]:
        broken.apply(event)
    return hand, broken


def test_a_failing_fact_is_named_and_leaves_no_facts(tmp_path):
    rules = _overlay(tmp_path, "replace:\n  - id: fact.match-scores\n    name: match_scores\n"
                               "    expr: \"match_scores['XX']\"\n    source: \"choice: test\"\n")
    hand, broken = _replayed_last_card(rules, "fact")
    with pytest.raises(RuleRuntimeError) as caught:
        broken.apply(hand.events[-1])
    assert broken._phases["score"].facts_scored is not None
    assert caught.value.rule_id == "fact.match-scores"
    assert isinstance(caught.value.__cause__, KeyError)
    assert broken.facts is None and broken.score is None


def test_a_failing_step_is_named_and_keeps_the_facts(tmp_path):
    rules = _overlay(tmp_path, "replace:\n  - id: score.level\n    name: level\n"
                               "    expr: \"tricks['XX']\"\n    source: \"choice: test\"\n")
    hand, broken = _replayed_last_card(rules, "step")
    with pytest.raises(RuleRuntimeError) as caught:
        broken.apply(hand.events[-1])
    assert broken._phases["score"].facts_scored is not None
    assert caught.value.rule_id == "score.level"
    assert isinstance(caught.value.__cause__, KeyError)
    assert broken.facts == hand.facts and broken.score is None


def test_the_steps_see_the_facts_types_only_in_facts_scored():
    # a step's round_to of a fact's int is written out where the facts' types are known (the
    # facts computed in the function); scored(V) of a namespace, and steps_all, keep the call
    rules = load_variant()
    for values in (("sun", None), ("hokum", "H")):
        phase = rules.specialized("score", values)
        assert "b_round_to" not in phase.facts_scored.__code__.co_names
    assert "b_round_to" in rules.scored.__code__.co_names
    assert "b_round_to" in rules.steps_all.__code__.co_names


def test_a_step_the_types_refuse_is_checked_as_before(tmp_path):
    # `.seat` of an int: refused once the fact is typed (a map of ints); untyped it compiles, and
    # fails where it runs, named by its step, as in steps_all
    rules = _overlay(tmp_path, "replace:\n  - id: score.level\n    name: level\n"
                               "    expr: \"card_points['NS'].seat\"\n    source: \"choice: test\"\n")
    hand, broken = _replayed_last_card(rules, "typed")
    with pytest.raises(RuleRuntimeError) as caught:
        broken.apply(hand.events[-1])
    assert broken._phases["score"].facts_scored is not None
    assert caught.value.rule_id == "score.level" and isinstance(caught.value.__cause__, AttributeError)
    assert broken.facts == hand.facts


def test_a_scored_hand_makes_no_candidate_tables_for_the_score_phase():
    # the score phase is left as soon as it is entered: its tables (`_tables.now`) are worked
    # out only if the scoring fails and the hand stays in it
    rules = load_variant()
    for hand in _scored_hands(rules, 10, "tables"):
        phase = hand._phases["score"]
        assert id(phase) not in hand._tables._by_phase


def test_a_failing_scoring_leaves_the_hand_in_the_score_phase_with_its_tables(tmp_path):
    rules = _overlay(tmp_path, "replace:\n  - id: score.level\n    name: level\n"
                               "    expr: \"tricks['XX']\"\n    source: \"choice: test\"\n")
    hand, broken = _replayed_last_card(rules, "tables")
    with pytest.raises(RuleRuntimeError):
        broken.apply(hand.events[-1])
    assert broken.state.phase == "score" and broken._now[0] is broken._phases["score"]


def test_a_specialised_phase_made_once_is_looked_up_not_asked_for(monkeypatch):
    rules = load_variant()
    list(_scored_hands(rules, 30, "lookup"))   # (every contract's phases made)
    asked = []
    original = type(rules).specialized
    monkeypatch.setattr(type(rules), "specialized", lambda self, *key: asked.append(key) or original(self, *key))
    hands = list(_scored_hands(rules, 10, "lookup"))   # (the same hands again)
    assert hands and not asked
