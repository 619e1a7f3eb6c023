"""A specialised score phase's facts_scored(S) (rules/scored.py): the facts computed from the
state straight into the locals the steps read, no scoring namespace made, set or read back.
The hand's records are what facts_all + scored give; a failing fact or step is named by its
own id; a failing step leaves the facts on the hand, a failing fact leaves none."""

import pytest

from baloot_spec.errors import RuleRuntimeError
from baloot_spec.rules import load_variant

from test_scored import _hands, _replayed_last_card   # (random hands the rules score; one replayed under others)


# (that a hand's records are what facts_all + steps_all give, preset by preset:
# tests/test_scored.py, test_a_hand_scores_as_the_three_calls_did)


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


@pytest.mark.parametrize("rule_id, name, expr, keeps_facts", [
    ("fact.match-scores", "match_scores", "match_scores['XX']", False),   # a fact: no facts left
    ("score.level", "level", "tricks['XX']", True),                       # a step: the facts kept
])
def test_a_failing_fact_or_step_is_named_and_the_facts_kept_only_past_the_facts(tmp_path, rule_id, name, expr, keeps_facts):
    rules = _overlay(tmp_path, f"replace:\n  - id: {rule_id}\n    name: {name}\n"
                               f"    expr: \"{expr}\"\n    source: \"choice: test\"\n")
    hand, broken = _replayed_last_card(rules, "facts-step" if keeps_facts else "facts-fact")
    with pytest.raises(RuleRuntimeError) as caught:
        broken.apply(hand.events[-1])
    assert broken._phases["score"].facts_scored is not None
    assert caught.value.rule_id == rule_id
    assert isinstance(caught.value.__cause__, KeyError)
    assert broken.score is None
    assert broken.facts == (hand.facts if keeps_facts else None)


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
    for hand in _hands(rules, 10, "facts-tables"):
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
    list(_hands(rules, 30, "facts-lookup"))   # (every contract's phases made)
    asked = []
    original = type(rules).specialized
    monkeypatch.setattr(type(rules), "specialized", lambda self, *key: asked.append(key) or original(self, *key))
    hands = list(_hands(rules, 10, "facts-lookup"))   # (the same hands again)
    assert hands and not asked
