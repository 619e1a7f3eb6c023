"""A scored hand's result made once (engine/scores.py, rules/scored.py): facts_scored of a
specialised score phase builds the result itself (the engine's leading entries, then the score's),
the score record is made from it only when read, and result() is a copy with the next dealer
set. What a user sees is what the score record and the old display gave: same keys, same order,
same values, a new dict each call."""

import ast
import dis
import random

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.state import RESULT_LEADING
from baloot_spec.expr.builtins import Rec
from baloot_spec.rules import load_variant
from baloot_spec.rules.module import ModuleBuilder
from baloot_spec.rules.scored import SCORE, _shown

DECK = ["AC", "KS", "7H", "QS", "TH", "KC", "JS", "JH", "TD", "AS", "KH", "8D", "KD", "TC", "QD", "8C",
        "7S", "JC", "TS", "7D", "QH", "AH", "8S", "9C", "9H", "JD", "QC", "9D", "8H", "7C", "9S", "AD"]


def _played(rules, count, label):
    for number in range(count):
        rng = random.Random(f"hand-result:{label}:{number}")
        yield play_random_hand(rules, rng, rng.choice(rules.table.seats), {"NS": 3, "EW": 40})


def _old_result(rules, hand, score):
    """result() as it was: the display over the score record."""
    next_dealer = rules.functions["next_dealer"](hand.state)
    if score is None:
        return {"thrown_in": True, "next_dealer": next_dealer}
    return {"thrown_in": False, "next_dealer": next_dealer, **score}


@pytest.mark.parametrize("preset", ["default", "riyadh", "saudi-federation", "nl-rulebook", "online-apps"])
def test_the_result_and_the_score_are_what_they_were(preset):
    rules = load_variant(preset=preset)
    scored = 0
    for hand in _played(rules, 40, preset):
        if hand._shown is not None:
            scored += 1
            assert hand._score is None   # (not made until read)
            assert type(hand._shown) is dict and list(hand._shown)[:2] == [name for name, _ in RESULT_LEADING]
        result = hand.result()
        score = hand.score   # (made now, from the result facts_scored built)
        phase = hand._phases["score"]
        if score is not None:
            three = rules.score_of(rules.steps_all(phase.facts_all(hand.state)))   # fuse.py's calls, as before
            assert type(score) is Rec and list(score.items()) == list(three.items())
            assert all(score[k] is v for k, v in result.items() if k in score)   # (the same values, shared)
        assert type(result) is dict and list(result.items()) == list(_old_result(rules, hand, score).items())
        assert hand.score is score   # (made once)
        again = hand.result()
        assert again == result and again is not result
        result["written"] = "changed"
        assert hand.result() == again   # (a caller's change of one result is not in the next)
    assert scored > 25


def test_a_copied_hand_keeps_its_score_and_result():
    rules = load_variant()
    for hand in _played(rules, 10, "copy"):
        copy = hand.copy()
        assert copy.result() == hand.result() and copy.score == hand.score
        if hand.score is not None:
            assert list(copy.score) == list(hand.score) and type(copy.score) is Rec


def test_an_unfinished_or_thrown_in_hand():
    rules = load_variant()
    hand = Hand(rules, "N", {"deck": DECK}, {"NS": 0, "EW": 0})
    assert hand.result() is None and hand.score is None
    hand.score = Rec(a=1)   # (the generic path sets the record itself)
    assert hand.score == {"a": 1} and hand._shown is None


def test_a_step_named_as_a_leading_entry_keeps_the_record_and_the_display(tmp_path):
    overlay = tmp_path / "lead.yaml"
    name = RESULT_LEADING[1][0]
    overlay.write_text("overlay: lead\ntitle: A step named as a result entry\nsource: \"choice: test\"\n"
                       f"add:\n  scoring:\n    - id: score.test-{name.replace('_', '-')}\n      name: {name}\n"
                       "      expr: \"level\"\n      source: \"choice: test\"\n", encoding="utf-8")
    rules = load_variant("default", {}, [str(overlay)])
    seen = 0
    for hand in _played(rules, 12, "lead"):
        phase = hand._phases["score"]
        if hand.score is None:
            continue
        seen += 1
        assert phase.facts_scored is None and phase.scored is not None   # (no result built: the record, then the display)
        result = hand.result()
        assert list(result.items()) == list(_old_result(rules, hand, hand.score).items())
        assert result[name] == hand.score["level"]   # (the step's value, in the leading place)
    assert seen


@pytest.mark.parametrize("count, literals", [(1, ()), (2, (0,)), (16, (0, 1, 7)), (39, (0, 1, 2)), (3, (0, 1, 2))])
def test_the_result_is_a_templates_copy_then_stores_of_what_is_not_a_literal(count, literals):
    """rules/scored.py _shown: a copy of a template the module sets (every key in order, the
    literal entries' values), then an item store for each other entry; the same keys, order and
    values as stores alone, a new dict at every call, the template never written."""
    kinds = [False, 0, "mode", None, 7]
    items = [(f"k{n}", ast.Constant(kinds[n % len(kinds)]) if n in literals else ast.Name(id=f"v{n}", ctx=ast.Load()))
             for n in range(count)]
    builder = ModuleBuilder()
    body = _shown(items, builder)
    function = ast.FunctionDef(name="f", args=ast.arguments(
        posonlyargs=[], args=[ast.arg(arg=f"v{n}") for n in range(count)], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=body + [ast.Return(value=ast.Name(id=SCORE, ctx=ast.Load()))], decorator_list=[])
    (template,) = builder.statements
    space = {}
    module = ast.Module(body=[template, function], type_ignores=[])
    exec(compile(ast.fix_missing_locations(module), "<t>", "exec"), space)
    values = [object() for _ in range(count)]
    out = space["f"](*values)
    assert type(out) is dict and list(out) == [k for k, _ in items]
    for n in range(count):
        if n in literals:
            expected = kinds[n % len(kinds)]
            assert out[f"k{n}"] == expected and type(out[f"k{n}"]) is type(expected)
        else:
            assert out[f"k{n}"] is values[n]
    again = space["f"](*values)
    assert again == out and again is not out
    kept = space[template.targets[0].id]
    assert list(kept) == list(out) and all(kept[f"k{n}"] is None for n in range(count) if n not in literals)
    ops = [i.opname for i in dis.get_instructions(space["f"])]
    assert ops.count("STORE_SUBSCR") == count - len(literals)
    assert "BUILD_MAP" not in ops and "BUILD_CONST_KEY_MAP" not in ops and "MAP_ADD" not in ops


def test_a_suns_facts_scored_builds_its_result_from_a_template():
    rules = load_variant()
    hand = next(h for h in _played(rules, 40, "display") if h._shown is not None)
    code = hand._phases["score"].facts_scored.__code__
    instructions = list(dis.get_instructions(code))
    ops = [i.opname for i in instructions]
    names = [i.argval for i in instructions if i.opname == "LOAD_GLOBAL"]
    assert any(n.startswith("_sT") for n in names) and "MAP_ADD" not in ops
    stored = [instructions[k - 1].argval for k, i in enumerate(instructions)
              if i.opname == "STORE_SUBSCR" and instructions[k - 2].argval == SCORE]
    # (the two leading entries and the Sun's literal `mode` are the template's: not stored)
    assert {"thrown_in", "next_dealer", "mode"}.isdisjoint(stored) and len(stored) <= len(hand._shown) - 3
