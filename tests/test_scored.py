"""The score phase's steps and both result records in one generated function (rules/scored.py),
the steps in locals and, in a phase specialised per contract, the facts the contract makes
literals folded into the steps; and constant tables indexed by a literal folded (expr/emit.py).
What a hand reports is what the three calls it replaces (facts_of, steps_all, score_of) give;
a failing step is named as before, and the hand keeps its facts."""

import ast
import random

import pytest

from baloot_spec.engine.hand import Hand, score_facts
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.errors import RuleRuntimeError
from baloot_spec.expr.compiler import Scope, to_python
from baloot_spec.rules import load_variant

from baloot_spec.rules.passes.rule_lines import rule_at
from baloot_spec.rules.scored import in_locals


def _hands(rules, count, label):
    for number in range(count):
        rng = random.Random(f"scored:{label}:{number}")
        hand = play_random_hand(rules, rng, rng.choice(rules.table.seats), {"NS": 3, "EW": 40})
        if hand.score is not None:
            yield hand


def _three_calls(rules, hand):
    """The facts and score records as the engine made them before (fuse.py's functions)."""
    phase = hand._phases["score"]
    values = (phase.facts_all or rules.facts_all)(hand.state)
    return rules.facts_of(values), rules.score_of(rules.steps_all(values))


@pytest.mark.parametrize("preset", ["default", "nl-rulebook", "saudi-federation", "online-apps"])
def test_a_hand_scores_as_the_three_calls_did(preset):
    rules = load_variant(preset=preset)
    seen = 0
    for hand in _hands(rules, 40, preset):
        phase = hand._phases["score"]   # (the engine took the one function, facts_scored; no scored made beside it)
        assert phase.facts_scored is not None and phase.scored is None
        facts, score = _three_calls(rules, hand)
        assert list(hand.facts.items()) == list(facts.items())
        assert list(hand.score.items()) == list(score.items())
        assert type(hand.facts) is type(facts) and type(hand.score) is type(score)
        seen += 1
    assert seen > 20


def test_a_sun_phase_reads_no_mode_and_looks_up_no_hand_value():
    rules = load_variant()
    generic = rules.scored.__code__.co_names
    assert "mode" in generic and "k_hand_value" in generic and "k_kaboot_value" in generic
    phase = rules.specialized("score", ("sun", None))
    assert phase.scored is None   # (a specialised phase makes facts_scored, which the engine calls instead)
    sun = phase.facts_scored.__code__
    assert "mode" not in sun.co_names   # the fact is the literal 'sun': not read off the state
    assert "k_hand_value" not in sun.co_names and "k_kaboot_value" not in sun.co_names   # 26 and 44
    assert "hokum" not in sun.co_consts   # the conversion's and digit winner's Hokum branches are gone
    steps = {name for name, _, _ in rules.scoring}
    assert {f"_s_{name}" for name in steps} <= set(sun.co_varnames)


def _overlay(tmp_path, body: str):
    overlay = tmp_path / "steps.yaml"
    overlay.write_text("overlay: steps\ntitle: Scoring steps for a test\nsource: \"choice: test\"\n" + body,
                       encoding="utf-8")
    return load_variant("default", {}, [str(overlay)])


def test_a_failing_step_is_named(tmp_path):
    rules = _overlay(tmp_path, "replace:\n  - id: score.kaboot-base\n    name: kaboot_base\n"
                               "    expr: \"const.kaboot_value[mode] * tricks['XX']\"\n    source: \"choice: test\"\n")
    failed = []
    for number in range(40):   # (until a hand is not thrown in)
        try:
            play_random_hand(rules, random.Random(f"scored:failing:{number}"), "N", {"NS": 0, "EW": 0})
        except RuleRuntimeError as error:
            failed.append(error)
            break
    assert failed and failed[0].rule_id == "score.kaboot-base"
    assert isinstance(failed[0].__cause__, KeyError)


def _replayed_last_card(rules, label):
    """A hand the default rules score, and the same hand under `rules` up to its last card."""
    good = load_variant()
    rng = random.Random(f"scored:{label}")
    hand = play_random_hand(good, rng, "N", {"NS": 0, "EW": 0})
    while hand.score is None:
        hand = play_random_hand(good, rng, "N", {"NS": 0, "EW": 0})
    broken = Hand(rules, hand.state.dealer, hand.deal_spec, {"NS": 0, "EW": 0})
    for event in hand.events[:-1]:
        broken.apply(event)
    return hand, broken


def test_a_failing_step_leaves_the_facts_on_the_hand(tmp_path):
    rules = _overlay(tmp_path, "replace:\n  - id: score.written\n    name: written\n"
                               "    expr: \"tricks['XX']\"\n    source: \"choice: test\"\n")
    hand, broken = _replayed_last_card(rules, "facts-kept")
    with pytest.raises(RuleRuntimeError) as caught:
        broken.apply(hand.events[-1])
    assert caught.value.rule_id == "score.written"
    assert broken.facts == hand.facts and broken.score is None


def test_a_step_reading_the_namespace_through_a_function_keeps_the_three_calls(tmp_path):
    # A derived value read by a step is a call with the namespace in generic code: no one
    # function there (the engine makes the three calls); specialised, its body is folded in.
    rules = _overlay(tmp_path, "add:\n  functions:\n    - id: fn.twice-level\n      name: twice_level\n"
                               "      expr: \"level * 2\"\n      source: \"choice: test\"\n"
                               "  scoring:\n    - id: score.twice\n      name: twice\n      expr: twice_level\n"
                               "      source: \"choice: test\"\n")
    assert rules.scored is None
    seen = 0
    for hand in _hands(rules, 20, "namespace"):
        assert hand.score["twice"] == 2 * hand.score["level"]
        assert hand.score == score_facts(rules, dict(hand.facts))
        seen += 1
    assert seen > 5


# ---- const.x[literal] -----------------------------------------------------------------------------
SCOPE = Scope(state=frozenset({"mode"}), consts=frozenset({"value", "points", "teams"}),
              const_values={"value": {"hokum": 16, "sun": 26}, "points": {"sun": {"sira": 4}}, "teams": ["NS", "EW"]})


@pytest.mark.parametrize("text, fixed, python", [
    ("const.value[mode]", {"mode": "sun"}, "26"),
    ("const.value[mode]", None, "k_value[S.mode]"),
    ("const.value['sun'] - 1", None, "26 - 1"),
    ("const.teams[1]", None, "'EW'"),
    ("const.value['nope']", None, "k_value['nope']"),         # missing: left to fail where it runs
    ("const.teams[5]", None, "k_teams[5]"),
    ("const.points[mode]", {"mode": "sun"}, "k_points['sun']"),   # not a plain value
])
def test_a_constant_table_indexed_by_a_literal_is_its_entry(text, fixed, python):
    assert to_python(text, SCOPE, fixed=fixed) == python


# ---- in_locals -----------------------------------------------------------------------------------
@pytest.mark.parametrize("value, python", [
    ("S.a + S.b['NS']", "_s_a + _s_b['NS']"),
    ("[x.c for x in S.a if x.c > k_n]", "[x.c for x in _s_a if x.c > k_n]"),   # (an item's field stays one)
    ("S.a + f_g(S)", None),        # the namespace given to a function
    ("S.a + S.later", None),       # a name not set yet where the step runs
])
def test_a_step_reads_facts_and_earlier_steps_as_locals(value, python):
    node = ast.parse(value, mode="eval").body
    found = in_locals(node, {"a", "b"})
    assert (None if found is None else ast.unparse(found)) == python
    assert ast.unparse(node) == value   # (its input left alone)


# ---- fused_scored on fixtures ---------------------------------------------------------------------
def _scored_of(steps, known):
    from baloot_spec.errors import BalootError
    from baloot_spec.expr.builtins import Rec, Values
    from baloot_spec.rules.module import ModuleBuilder
    from baloot_spec.rules.scored import fused_scored
    builder = ModuleBuilder()
    fn_name = fused_scored(builder, ["a", "b"], [(f"s.{n}", n, ast.parse(v, mode="eval").body) for n, v in steps], known)
    if fn_name is None:
        return None
    space = {"_R": Rec, "_BalootError": BalootError, "_RuleRuntimeError": RuleRuntimeError, "_Exception": Exception, "_rule_at": rule_at}
    exec(compile(builder.source(), "<test>", "exec"), space)
    return lambda **facts: space[fn_name](Values(**facts))


def test_the_records_hold_the_facts_then_the_steps_a_known_fact_as_its_literal():
    scored = _scored_of([("x", "S.a + 1"), ("y", "S.x * 2 + S.a")], {"b": 2})
    facts, score = scored(a=5, b="not read")
    assert list(facts.items()) == [("a", 5), ("b", 2)]
    assert list(score.items()) == [("a", 5), ("b", 2), ("x", 6), ("y", 17)]
    assert type(facts) is type(score) is not dict


def test_a_failing_step_of_the_function_is_named_by_its_own_id():
    scored = _scored_of([("x", "S.a + 1"), ("y", "S.x + 'one'"), ("z", "S.y")], {})
    with pytest.raises(RuleRuntimeError) as caught:
        scored(a=1, b=2)
    assert caught.value.rule_id == "s.y" and isinstance(caught.value.__cause__, TypeError)


def test_a_known_fact_still_read_off_the_namespace_makes_no_function():
    # (the emitter folds a known fact; one left as S.<name> would read a local never set)
    assert _scored_of([("x", "S.b + 1")], {"b": 2}) is None
