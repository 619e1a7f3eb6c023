"""Loops over the same iterable fused (rules/passes/fused_loops.py): what is fused, what is not,
and that a fused function gives what the original gives, the same exception included."""

from __future__ import annotations

import ast
import random
import textwrap

import pytest

from baloot_spec.rules.passes.fused_loops import fuse_loops


def _fused(source: str) -> ast.FunctionDef:
    return fuse_loops(ast.parse(textwrap.dedent(source)).body[0])


def _loops(node) -> list:
    return [n for n in ast.walk(node) if isinstance(n, ast.For)]


def _run(function: ast.FunctionDef, *args, **globals_):
    namespace = {"_Exception": Exception, **globals_}
    module = ast.Module(body=[function], type_ignores=[])
    exec(compile(ast.fix_missing_locations(module), "<test>", "exec"), namespace)
    try:
        return "value", namespace[function.name](*args)
    except Exception as exc:
        return "raised", type(exc), exc.args, namespace.get("where")


PER_KEY = """
def f(xs):
    a = 0
    for x in xs:
        if not team[x[0]] == 'N':
            continue
        a += points[x[1]]
    first = a + 1
    b = 0
    for y in xs:
        if not team[y[0]] == 'E':
            continue
        b += points[y[1]]
    c = []
    for z in xs:
        if not team[z[0]] == 'N':
            continue
        c.append(z[1])
    return (first, b, c)
"""


def test_loops_over_one_iterable_become_one_loop_reading_the_key_once():
    fused = _fused(PER_KEY)
    attempt = next(s for s in fused.body if isinstance(s, ast.Try))
    (loop,) = [s for s in attempt.body if isinstance(s, ast.For)]
    assert isinstance(loop.body[0], ast.Assign)   # the key, read once an item
    assert ast.unparse(loop.body[0].value) == "team[x[0]]"
    (chain,) = loop.body[1:]   # the two 'N' bodies merged; the 'E' test its `elif`
    tests = [ast.unparse(chain.test), ast.unparse(chain.orelse[0].test)]
    assert all(t.startswith("_key") for t in tests)
    assert not any(isinstance(n, ast.Continue) for n in ast.walk(loop))
    # each original loop stays, run only when the fused loop raised, at its own place
    assert len(_loops(fused)) == 4
    team, points = {"p": "N", "q": "E"}, {1: 10, 2: 20, 3: 3}
    xs = [("p", 1), ("q", 2), ("p", 3), ("q", 3)]
    assert _run(fused, xs, team=team, points=points) == ("value", (14, 23, [1, 3]))


def test_a_failure_is_the_original_one_at_the_original_place():
    # the E loop would fail first on the first item, but the unfused code meets the N loop's
    # failure (third item) first, and records where it was
    source = """
    def f(xs):
        global where
        where = 'a'
        a = 0
        for x in xs:
            if not team[x[0]] == 'N':
                continue
            a += points[x[1]]
        where = 'b'
        b = 0
        for y in xs:
            if not team[y[0]] == 'E':
                continue
            b += points[y[1]]
        return a, b
    """
    fused = _fused(source)
    assert any(isinstance(s, ast.Try) for s in fused.body)
    team, points = {"p": "N", "q": "E"}, {1: 1, 2: 2}
    xs = [("q", 9), ("p", 1), ("p", 8)]
    original = _run(ast.parse(textwrap.dedent(source)).body[0], xs, team=team, points=points)
    assert original == ("raised", KeyError, (8,), "a")
    assert _run(fused, xs, team=team, points=points) == original
    xs = [("q", 9), ("p", 1)]   # only the second loop fails: after `where = 'b'`
    assert _run(fused, xs, team=team, points=points) == ("raised", KeyError, (9,), "b")


@pytest.mark.parametrize("source", [
    # the statement between writes what the second loop reads
    """
    def f(xs, k):
        a = 0
        for x in xs:
            a += x
        k = k + 1
        b = 0
        for y in xs:
            b += y * k
        return a, b
    """,
    # the statement between reads the second loop's accumulator
    """
    def f(xs):
        b = 5
        a = 0
        for x in xs:
            a += x
        c = b
        b = 0
        for y in xs:
            b += y
        return a, b, c
    """,
    # a loop that can leave early, or changes more than its own names
    """
    def f(xs, out):
        a = 0
        for x in xs:
            if x > 2:
                break
            a += x
        b = 0
        for y in xs:
            b += y
        return a, b
    """,
    """
    def f(xs, out):
        a = 0
        for x in xs:
            out.seen = x
        b = 0
        for y in xs:
            b += y
        return a, b
    """,
    """
    def f(xs):
        a = 0
        for x in xs:
            a += (h := x)
        b = 0
        for y in xs:
            b += y
        return a, b
    """,
    # other iterables
    """
    def f(xs, ys):
        a = 0
        for x in xs:
            a += x
        b = 0
        for y in ys:
            b += y
        return a, b
    """,
])
def test_what_is_not_fused(source):
    fused = _fused(source)
    assert not any(isinstance(n, ast.Try) for n in ast.walk(fused))
    assert ast.unparse(fused) == ast.unparse(ast.parse(textwrap.dedent(source)).body[0])


def _random_function(rng: random.Random) -> str:
    lines, results = ["def f(xs):", "    global where"], []
    for n in range(rng.randint(2, 5)):
        acc, var = f"a{n}", f"x{n}"
        key = rng.choice(["team[%s[0]]" % var, "%s[0]" % var])
        wanted = rng.choice(["'N'", "'E'", "'p'"])
        kind = rng.choice(["sum", "count", "list"])
        lines.append(f"    where = {n}")
        lines.append(f"    {acc} = {'[]' if kind == 'list' else 0}")
        lines.append(f"    for {var} in xs:")
        lines.append(f"        if not {key} == {wanted}:")
        lines.append("            continue")
        if kind == "sum":
            lines.append(f"        {acc} += points[{var}[1]]")
        elif kind == "count":
            lines.append(f"        {acc} += 1")
        else:
            lines.append(f"        {acc}.append(points[{var}[1]] // {var}[2])")
        results.append(acc)
    lines.append(f"    return ({', '.join(results)},)")
    return "\n".join(lines)


def test_random_loops_fused_give_the_same_values_and_the_same_failures():
    rng = random.Random(28)
    team, points = {"p": "N", "q": "E", "r": "N"}, {1: 1, 2: 2, 3: 30}
    fused_any = 0
    for _ in range(300):
        source = _random_function(rng)
        xs = [(rng.choice("pqrs"), rng.choice([1, 2, 3, 4]), rng.choice([1, 2, 0])) for _ in range(rng.randint(0, 6))]
        original = _run(ast.parse(source).body[0], xs, team=team, points=points)
        fused = _fused(source)
        fused_any += any(isinstance(n, ast.Try) for n in ast.walk(fused))
        assert _run(fused, xs, team=team, points=points) == original, source
    assert fused_any > 250


def test_a_loop_whose_accumulator_is_set_further_up_is_not_fused():
    # (run again after a failure, it would start from what the fused loop had added)
    source = """
    def f(xs):
        a = 0
        c = 1
        for x in xs:
            a += x
        b = 0
        for y in xs:
            b += y
        return a, b, c
    """
    assert not any(isinstance(n, ast.Try) for n in ast.walk(_fused(source)))


def test_loops_of_two_iterables_interleaved_fuse_per_iterable():
    source = """
    def f(xs, ys):
        a = 0
        for x in xs:
            a += x
        b = 0
        for y in ys:
            if not y > 1:
                continue
            b += y
        c = 0
        for z in xs:
            if not z > 1:
                continue
            c += z
        d = 0
        for w in ys:
            d += w
        return a, b, c, d
    """
    fused = _fused(source)
    assert sum(isinstance(s, ast.Try) for s in fused.body) == 2   # (a `continue` inside a loop ends no scan)
    assert _run(fused, [1, 2], [3, 1]) == ("value", (3, 3, 2, 4))


def test_each_statement_of_a_block_is_looked_at_once(monkeypatch):
    """The names a statement reads and writes, and its iterable's dump, are worked out once a
    block (`_Facts`), not again for every later loop and every group (step 126)."""
    from baloot_spec.rules.passes import fused_loops
    seen = []
    real = fused_loops._reads
    monkeypatch.setattr(fused_loops, "_reads", lambda node: seen.append(node) or real(node))
    function = ast.parse(PER_KEY).body[0]
    block = list(function.body)
    fuse_loops(function)
    asked = [sum(node is statement for node in seen) for statement in block]
    assert max(asked) == 1 and sum(asked) >= 3


def test_the_facts_kept_give_the_tree_worked_out_afresh(monkeypatch):
    """Fusing with the facts kept gives, node for node, what fusing with every fact worked out
    afresh gives (the random functions of the test above, and the shapes of this file)."""
    from baloot_spec.rules.passes import fused_loops
    rng = random.Random(126)
    sources = [PER_KEY] + [_random_function(rng) for _ in range(200)]
    kept = [ast.dump(_fused(source)) for source in sources]
    monkeypatch.setattr(fused_loops._Facts, "_get", lambda self, kind, statement, work: work(statement))
    assert [ast.dump(_fused(source)) for source in sources] == kept
