"""A fused loop's tests of one key local against distinct literals chained `if`/`elif`
(rules/passes/fused_loops.py `_chained`): where they are chained, where not, and that the values
are the original's."""

from __future__ import annotations

import ast
import textwrap

import pytest

from baloot_spec.rules.passes.fused_loops import fuse_loops
from specialised_sources import specialised_source


def _fused(source: str) -> ast.FunctionDef:
    return fuse_loops(ast.parse(textwrap.dedent(source)).body[0])


def _fused_loop(function) -> ast.For:
    attempt = next(s for s in function.body if isinstance(s, ast.Try))
    (loop,) = [s for s in attempt.body if isinstance(s, ast.For)]
    return loop


def _run(function: ast.FunctionDef, *args, **globals_):
    namespace = {"_Exception": Exception, **globals_}
    exec(compile(ast.fix_missing_locations(ast.Module(body=[function], type_ignores=[])), "<test>", "exec"), namespace)
    return namespace[function.name](*args)


def _per_key(literals: list) -> str:
    lines = ["def f(xs):"]
    for n, literal in enumerate(literals):
        lines += [f"    a{n} = 0", f"    for x{n} in xs:", f"        if not team[x{n}] == {literal}:",
                  "            continue", f"        a{n} += 1"]
    lines.append(f"    return ({', '.join(f'a{n}' for n in range(len(literals)))},)")
    return "\n".join(lines)


def _chain_lengths(loop: ast.For) -> list:
    lengths = []
    for s in loop.body:
        if isinstance(s, ast.If):
            n = 1
            while s.orelse:
                (s,) = s.orelse
                n += 1
            lengths.append(n)
    return lengths


def test_distinct_str_literals_on_one_key_become_one_if_elif_chain():
    loop = _fused_loop(_fused(_per_key(["'N'", "'E'", "'W'"])))
    assert isinstance(loop.body[0], ast.Assign)   # the key local
    assert _chain_lengths(loop) == [3]
    team = {"p": "N", "q": "E", "r": "W", "s": "S"}
    fused = _fused(_per_key(["'N'", "'E'", "'W'"]))
    assert _run(fused, list("pqrspq"), team=team) == (2, 2, 1)


def test_distinct_int_literals_are_chained():
    assert _chain_lengths(_fused_loop(_fused(_per_key(["1", "2"])))) == [2]


def test_a_chained_test_is_skipped_once_an_earlier_one_matched():
    counted = []

    class Key(str):   # (counts its comparisons; equal as its str is)
        def __eq__(self, other):
            counted.append(other)
            return str.__eq__(self, other)
        __hash__ = str.__hash__

    fused = _fused(_per_key(["'N'", "'E'"]))
    assert _run(fused, ["p"], team={"p": Key("N")}) == (1, 0)
    assert counted == ["N"]


@pytest.mark.parametrize("literals", [
    ["1", "True"],       # 1 == True: a value may equal both
    ["0", "False"],
    ["1", "1.0"],        # a float literal
    ["None", "'E'"],     # None: not a str or int literal
])
def test_literals_a_value_may_equal_twice_or_of_other_types_are_not_chained(literals):
    fused = _fused(_per_key(literals))
    assert _chain_lengths(_fused_loop(fused)) == [1, 1]
    if literals[0] in ("1", "0"):   # the original's counts: both tests see the item
        value = int(literals[0])
        assert _run(fused, ["p"], team={"p": value}) == (1, 1)


def test_not_equal_tests_and_tests_on_other_names_are_not_chained():
    source = """
    def f(xs):
        a = 0
        for x in xs:
            if not team[x] != 'N':
                continue
            a += 1
        b = 0
        for y in xs:
            if not team[y] != 'E':
                continue
            b += 1
        return a, b
    """
    assert _chain_lengths(_fused_loop(_fused(source))) == [1, 1]
    source = """
    def f(xs):
        a = 0
        for x in xs:
            if not x == 'N':
                continue
            a += 1
        b = 0
        for y in xs:
            if not y == 'E':
                continue
            b += 1
        return a, b
    """
    # (a test on the loop variable itself: no key local, not chained)
    assert _chain_lengths(_fused_loop(_fused(source))) == [1, 1]


def test_a_statement_between_two_keyed_tests_ends_the_chain():
    source = """
    def f(xs):
        a = 0
        for x in xs:
            if not team[x] == 'N':
                continue
            a += 1
        b = 0
        for y in xs:
            b += 1
        c = 0
        for z in xs:
            if not team[z] == 'E':
                continue
            c += 1
        return a, b, c
    """
    fused = _fused(source)
    assert _chain_lengths(_fused_loop(fused)) == [1, 1]
    assert _run(fused, list("pqp"), team={"p": "N", "q": "E"}) == (2, 3, 1)


@pytest.mark.parametrize("values", [("sun", None), ("hokum", "H")])
def test_the_default_rules_score_phase_chains_its_per_team_tests(values):
    # (the trick loop's and the credited projects' per-team tests: `if _key == ...` then `elif`)
    chained = [line.strip() for line in specialised_source("score", values).splitlines() if line.strip().startswith("elif _key")]
    assert len(chained) >= 2, chained
