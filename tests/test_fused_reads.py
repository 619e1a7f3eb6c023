"""Reads a fused loop makes cheaper because a failure in it replays the original loops
(rules/passes/fused_reads.py, run by fused_loops.py): a list read at every position unpacked
once, module names read into locals before the loop; where not, and that the values and the
failures are the original code's."""

from __future__ import annotations

import ast
import textwrap

import pytest

from baloot_spec.rules.passes.fused_loops import fuse_loops


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


def _subscripts(node) -> list:
    return [n for n in ast.walk(node) if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant)
            and type(n.slice.value) is int]


def test_a_list_read_at_every_position_is_unpacked_once_in_the_fused_loop():
    fused = _fused(SUMS)
    loop = _fused_loop(fused)
    unpacks = [s for s in ast.walk(loop) if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Tuple)]
    assert [ast.unparse(s.value) for s in unpacks] == ["x.cards", "x.cards"]   # (one a branch)
    assert all(len(s.targets[0].elts) == 3 for s in unpacks)
    assert not _subscripts(loop)   # every position read from its local
    # the original loops, run again if the fused one raised, still read by position
    assert len(_subscripts(fused)) == 6


@pytest.mark.parametrize("cards", [list("abc"), list("abcd"), list("ab"), [], ("a", "b", "c"), list("abz")])
def test_the_values_and_failures_are_the_originals_for_lists_of_any_length(cards):
    # (three positions read: a longer list makes the unpacking fail and the original loops give
    # the value; a shorter one, the original IndexError; a missing point, the original KeyError)
    original = ast.parse(textwrap.dedent(SUMS)).body[0]
    xs = [Item("N", list("efg")), Item("E", cards), Item("N", cards), Item("E", list("hab"))]
    expected = _run(original, xs, points=POINTS)
    assert _run(_fused(SUMS), xs, points=POINTS) == expected
    assert expected[0] == ("raised" if len(cards) < 3 or "z" in cards else "value")


@pytest.mark.parametrize("reads", [
    "x.cards[0] + x.cards[2]",                 # not every position up to the last
    "x.cards[1] + x.cards[2]",                 # (nor from 0)
    "x.cards[0] + x.cards[0]",                 # one position
    "x.cards[0] + x.cards[k]",                 # a position that is no literal
    "x.cards[0] + x.cards[-1]",
    "x.cards[0] + x.cards[True]",             # (a bool is no position here)
    "x.cards[0] + x[1]['cards'][1]",           # two lists
    "sum([c for c in x.cards]) + x.cards[0] + x.cards[1]",   # a nested scope in the statement
])
def test_other_reads_are_left(reads):
    source = f"""
    def f(xs, k):
        a = 0
        for x in xs:
            a += {reads}
        b = 0
        for y in xs:
            b += 1
        return (a, b)
    """
    loop = _fused_loop(_fused(source))
    assert not [s for s in ast.walk(loop) if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Tuple)]


def test_a_list_read_in_two_statements_is_unpacked_before_each():
    source = """
    def f(xs):
        a = 0
        b = 0
        for x in xs:
            a += x[0] * x[1]
            b += x[1] - x[0]
        c = 0
        for y in xs:
            c += 1
        return (a, b, c)
    """
    fused = _fused(source)
    body = _fused_loop(fused).body
    assert [type(s.targets[0]).__name__ if isinstance(s, ast.Assign) else type(s).__name__ for s in body] == \
        ["Tuple", "AugAssign", "Tuple", "AugAssign", "AugAssign"]
    xs = [(2, 3), (5, 7)]
    assert _run(fused, xs) == ("value", (41, 3, 2))


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
def test_the_default_rules_score_phase_unpacks_a_tricks_cards_and_holds_its_tables(values):
    # (the fused trick loop: a trick's four cards unpacked, the card points and team tables locals)
    from baloot_spec.rules import module
    from baloot_spec.rules.compile import _VariantCompiler
    from baloot_spec.rules.loader import resolve_variant
    compiler = _VariantCompiler(resolve_variant("default"))
    for stage in (compiler.functions, compiler.phases, compiler.rules, compiler.effects, compiler.scoring,
                  compiler.fuse):
        stage()
    captured, original = [], module.ModuleBuilder.source
    module.ModuleBuilder.source = lambda self: captured.append(original(self)) or captured[-1]
    try:
        compiler.specialized_code("score", values)
    finally:
        module.ModuleBuilder.source = original
    lines = [line.strip() for line in captured[-1].splitlines()]
    unpacked = [line for line in lines if line.startswith("_it") and line.endswith(".cards")]
    assert len(unpacked) >= 2, unpacked   # (one for each team's branch, in facts_all and facts_scored)
    assert any(line.startswith("_g") and line.endswith("= k__card_card_points") for line in lines)
