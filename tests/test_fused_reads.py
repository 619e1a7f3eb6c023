"""Reads a fused loop makes cheaper because a failure in it replays the original loops
(rules/passes/fused_reads.py, run by fused_loops.py): module names read into locals before the
loop; where not; that the values and the failures are the original code's; and that a list read
at every position is not unpacked (a map keyed by positions would unpack into its keys)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from baloot_spec.rules.passes.fused_loops import fuse_loops
from specialised_sources import specialised_source


def _fused(source: str) -> ast.FunctionDef:
    return fuse_loops(ast.parse(textwrap.dedent(source)).body[0])


def _attempt(function) -> ast.Try:
    return next(s for s in function.body if isinstance(s, ast.Try))


def _fused_loop(function) -> ast.For:
    (loop,) = [s for s in _attempt(function).body if isinstance(s, ast.For)]
    return loop


def _run(function: ast.FunctionDef, *args, **globals_):
    namespace = {"_Exception": Exception, **globals_}
    exec(compile(ast.fix_missing_locations(ast.Module(body=[function], type_ignores=[])), "<test>", "exec"), namespace)
    try:
        return "value", namespace[function.name](*args)
    except Exception as exc:
        return "raised", type(exc), exc.args


class Item:
    def __init__(self, team, cards):
        self.team, self.cards = team, cards


SUMS = """
def f(xs):
    a = 0
    for x in xs:
        if not x.team == 'N':
            continue
        a += points[x.cards[0]] + points[x.cards[1]] + points[x.cards[2]]
    b = 0
    for y in xs:
        if not y.team == 'E':
            continue
        b += points[y.cards[0]] + points[y.cards[1]] + points[y.cards[2]]
    return (a, b)
"""
POINTS = {c: n for n, c in enumerate("abcdefgh", 1)}


@pytest.mark.parametrize("cards", [list("abc"), list("abcd"), list("ab"), [], ("a", "b", "c"), list("abz")])
def test_the_values_and_failures_are_the_originals_for_lists_of_any_length(cards):
    # (three positions read: a longer list makes the unpacking fail and the original loops give
    # the value; a shorter one, the original IndexError; a missing point, the original KeyError)
    original = ast.parse(textwrap.dedent(SUMS)).body[0]
    xs = [Item("N", list("efg")), Item("E", cards), Item("N", cards), Item("E", list("hab"))]
    expected = _run(original, xs, points=POINTS)
    assert _run(_fused(SUMS), xs, points=POINTS) == expected
    assert expected[0] == ("raised" if len(cards) < 3 or "z" in cards else "value")


HELD = """
def f(xs, weight):
    a = 0
    for x in xs:
        if not k_team[x] == 'N':
            continue
        a += k_points[x] * weight + b_len(x) + len(x)
    b = 0
    for y in xs:
        if not k_team[y] == 'E':
            continue
        b += k_points[y]
    return (a, b)
"""
MODULE = {"b_len": len}


def _held(function) -> dict:
    return {s.value.id: s.targets[0].id for s in _attempt(function).body
            if isinstance(s, ast.Assign) and isinstance(s.value, ast.Name)}


def test_module_names_read_in_the_fused_loop_are_read_once_before_it():
    fused = _fused(HELD)
    held = _held(fused)
    assert set(held) == {"k_team", "k_points", "b_len"}   # (not `weight`, an argument; not `x`; not `len`)
    assert all(local.startswith("_g") for local in held.values())
    read = {n.id for n in ast.walk(_fused_loop(fused)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    assert not read & set(held) and set(held.values()) <= read and {"weight", "len"} <= read
    team = {"ab": "N", "cd": "E", "e": "N"}
    points = {"ab": 1, "cd": 2, "e": 3}
    xs = ["ab", "cd", "e"]
    expected = _run(ast.parse(HELD).body[0], xs, 10, k_team=team, k_points=points, **MODULE)
    assert expected == ("value", (46, 2))
    assert _run(fused, xs, 10, k_team=team, k_points=points, **MODULE) == expected


def test_a_module_name_that_is_not_there_fails_where_the_original_fails():
    original = ast.parse(HELD).body[0]
    team = {"ab": "N", "cd": "E"}
    # `k_points` missing: no item reads it (the filters take none), so the original gives a value
    assert _run(original, ["zz"], 1, k_team={"zz": "S"}, **MODULE) == ("value", (0, 0))
    assert _run(_fused(HELD), ["zz"], 1, k_team={"zz": "S"}, **MODULE) == ("value", (0, 0))
    # an item reads it: the original's NameError
    assert _run(original, ["ab", "cd"], 1, k_team=team, **MODULE)[:2] == ("raised", NameError)
    assert _run(_fused(HELD), ["ab", "cd"], 1, k_team=team, **MODULE) == _run(original, ["ab", "cd"], 1, k_team=team, **MODULE)


def test_a_name_the_loop_binds_is_not_held_and_a_local_of_such_a_name_keeps_its_value():
    # (k_w bound in the first loop's body: read from its own binding)
    source = HELD.replace("        a += k_points[x] * weight", "        k_w = weight + 1\n        a += k_points[x] * k_w")
    fused = _fused(source)
    assert set(_held(fused)) == {"k_team", "k_points", "b_len"}
    assert "k_w" in {n.id for n in ast.walk(_fused_loop(fused)) if isinstance(n, ast.Name)}
    xs = ["ab", "cd", "e"]
    team, points = {"ab": "N", "cd": "E", "e": "N"}, {"ab": 1, "cd": 2, "e": 3}
    expected = _run(ast.parse(source).body[0], xs, 10, k_team=team, k_points=points, **MODULE)
    assert _run(fused, xs, 10, k_team=team, k_points=points, **MODULE) == expected
    # a local bound before the loop, under a module name's prefix: copied, the same value
    source = HELD.replace("    a = 0\n", "    k_points = {'ab': 5, 'cd': 6, 'e': 7}\n    a = 0\n", 1)
    fused = _fused(source)
    assert "k_points" in _held(fused)
    expected = _run(ast.parse(source).body[0], xs, 10, k_team=team, **MODULE)
    assert expected == ("value", (126, 6))
    assert _run(fused, xs, 10, k_team=team, **MODULE) == expected


def test_a_loop_holding_a_nested_scope_holds_no_name():
    source = HELD.replace("b_len(x) + len(x)", "b_len([c for c in x])")
    assert _held(_fused(source)) == {}


@pytest.mark.parametrize("values", [("sun", None), ("hokum", "H")])
def test_the_default_rules_score_phase_holds_its_tables(values):
    # (the fused trick loop: the card points and team tables locals)
    lines = [line.strip() for line in specialised_source("score", values).splitlines()]
    assert any(line.startswith("_g") and line.endswith("= k__card_card_points") for line in lines)


def test_a_map_keyed_by_positions_is_read_as_the_original_reads_it():
    # (a map whose keys are 0..n-1, read at every position: unpacking it would give its keys, not
    # its values, and raise nothing, so no failure would hand over to the original loops)
    source = """
    def f(xs):
        a = 0
        for x in xs:
            a += x.m[0] + x.m[1]
        b = 0
        for y in xs:
            b += 1
        return (a, b)
    """

    class Holder:
        m = {0: 5, 1: 7}
    original = ast.parse(textwrap.dedent(source)).body[0]
    assert _run(original, [Holder()]) == ("value", (12, 1))
    assert _run(_fused(source), [Holder()]) == ("value", (12, 1))
