"""Comprehensions written out as loops (baloot_spec/expr/lower.py) must compute exactly what the
comprehensions computed: the same value, the same operations in the same order (an operand Python
would not evaluate is still not evaluated), and the same error at the same point.

Every case runs the original and the lowered function over the same inputs, with `ev(tag, x)`
recording each evaluation it is asked for; a random family of nested expressions does the same
over many inputs."""

import ast
import random

import pytest

from baloot_spec.expr.lower import lower_function


def lower_module(source: str) -> str:
    """The pass on each function of a module written here (the compiler gives it `ast`)."""
    module = ast.parse(source)
    module.body = [lower_function(n) if isinstance(n, ast.FunctionDef) else n for n in module.body]
    return ast.unparse(ast.fix_missing_locations(module)) + "\n"


class State:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def _run(source: str, S):
    """(result or (error type, message), evaluation log) of `f(S)` defined by `source`."""
    log = []

    def ev(tag, value):
        log.append((tag, value))
        return value
    space = {"ev": ev, "b_len": len, "next": next, "sum": sum, "_isum": sum, "max": max, "len": len, "dict": dict}
    exec(compile(source, "<test>", "exec"), space)
    try:
        result = ("value", space["f"](S))
    except Exception as exc:   # the error itself is part of what must be the same
        result = ("error", type(exc).__name__, str(exc))
    return result, log


def _same(source: str, *states):
    lowered = lower_module(source)
    for S in states:
        assert _run(lowered, S) == _run(source, S), lowered
    return lowered


def _fn(expr: str, prelude: str = "") -> str:
    return f"def f(S):\n{prelude}    return {expr}\n"


STATES = [State(xs=[], ys=[], xss=[], flag=False, v=0, zs=[1]),
          State(xs=[1, 2, 3], ys=[3, 1], xss=[[1, 2], [], [3]], flag=True, v=5, zs=[1, 0, 2]),
          State(xs=[0, 4], ys=[4], xss=[[0]], flag=True, v=0, zs=[0])]


@pytest.mark.parametrize("expr", [
    "[x * 2 for x in S.xs]",
    "[[y for y in x if y > 1] for x in S.xss if len(x) > 0]",
    "S.flag and [ev('a', x) for x in S.xs]",
    "[ev('t', x) for x in S.xs] if S.flag else [ev('e', x) for x in S.ys]",
    "ev('l', S.v) or [ev('r', x) for x in S.xs]",
    "ev('l', S.v) and ev('m', S.flag) and [ev('r', x) for x in S.xs]",
    "(ev('a', 1), [ev('b', x) for x in S.xs], ev('c', 3))",
    "[1 // x for x in S.zs]",
    "ev('a', 1) + [1 // x for x in S.zs][0]",
    "next((x for x in S.xs if x > 2), None)",
    "next((ev('item', x) for x in S.xs if ev('test', x) > 0), False)",
    "next((True for x in S.xs if x > 2), False)",
    "next((False for x in S.xs if not x > 0), True)",
    "b_len([1 for x in S.xs if x % 2])",
    "{ev('k', x): ev('v', x * x) for x in S.xs}",
    "[[x for x in x] for x in S.xss]",
    "[x for x in S.xs] + [x for x in S.ys]",
    "[x + y for x in S.xs for y in S.ys if x != y]",
    "[x for x in S.xs if next((True for y in S.ys if y == x), False)]",
    "0 < len([x for x in S.xs]) < 3",
    "max([*[x for x in S.xs]] or [None])",
    "sum([sum([y for y in x]) for x in S.xss])",
    "[ev('in', x) for x in [ev('it', y) for y in S.xs]]",
    "{'a': ev('a', S.v), 'b': [ev('b', x) for x in S.xs], 'c': ev('c', 1)}",
    "S.xs[len([x for x in S.ys])] if len(S.xs) > len(S.ys) else None",
    "-sum([x for x in S.xs])",
    "[x for x in S.xs][0].real",
    "[x.missing for x in S.xs]",
    "next((x for x in S.xs for y in S.ys if x == y), None)",
    "dict(a=ev('a', 1), b=[ev('b', x) for x in S.xs], c=next((ev('c', x) for x in S.ys if x > 1), None))",
])
def test_a_lowered_expression_computes_what_the_comprehension_computed(expr):
    _same(_fn(expr), *STATES)


def test_comprehensions_are_gone_where_they_can_be():
    lowered = _same(_fn("[[y for y in x if y > 1] for x in S.xss if len(x) > 0]"), *STATES)
    assert not any(isinstance(n, (ast.ListComp, ast.GeneratorExp)) for n in ast.walk(ast.parse(lowered)))
    lowered = _same(_fn("next((True for x in S.xs if x > 2), False)"), *STATES)
    assert "for " in lowered and "break" in lowered and "next(" not in lowered


def test_a_lazy_local_is_computed_once_and_a_walrus_binds_the_function():
    prelude = "    _h_a = ...\n    _h_b = ...\n"
    expr = ("((_h_a if _h_a is not ... else (_h_a := [ev('once', x) for x in S.xs]))"
            " + (_h_a if _h_a is not ... else (_h_a := [ev('twice', 0)])),"
            " [(_h_b := x) for x in S.xs], _h_b)")
    _same(_fn(expr, prelude), *STATES)


def test_statements_holding_comprehensions():
    source = (
        "def f(S):\n"
        "    out = []\n"
        "    if len([x for x in S.xs if x > 1]) > 1:\n"
        "        out.append('many')\n"
        "    elif S.flag and next((True for x in S.ys if x == 1), False):\n"
        "        out.append('one')\n"
        "    for z in [x * 10 for x in S.xs]:\n"
        "        out.append(z)\n"
        "    a = b = [ev('ab', x) for x in S.ys]\n"
        "    try:\n"
        "        out.append([1 // x for x in S.zs])\n"
        "    except ZeroDivisionError:\n"
        "        out.append('zero')\n"
        "    return out, a, b, a is b\n")
    _same(source, *STATES)


def test_a_module_without_loops_is_left_as_it_is():
    source = "def f(S):\n    return S.v + 1\n"
    assert lower_module(source) == source


# ---- a random family of nested expressions ------------------------------------------------------

def _random_expr(rng: random.Random, depth: int, loop_vars: list) -> str:
    """An expression over S.xs / S.ys / S.xss, numbers and the loop variables in scope, built
    from the forms the rules compile to (comprehensions, first/any/all, count, max, sum,
    and/or, if/else, dict displays), with ev() marking what is evaluated."""
    atoms = ["S.v", "1", "0", *loop_vars]
    if depth <= 0:
        return f"ev('a', {rng.choice(atoms)})"
    var = f"x{depth}{rng.randrange(3)}"
    source = rng.choice(["S.xs", "S.ys", *[f"[{v}, 1]" for v in loop_vars]])
    inner = loop_vars + [var]
    sub = lambda: _random_expr(rng, depth - 1, inner)  # noqa: E731
    out = lambda: _random_expr(rng, depth - 1, loop_vars)  # noqa: E731
    forms = [
        lambda: f"[{sub()} for {var} in {source}]",
        lambda: f"[{sub()} for {var} in {source} if ({sub()}) % 2]",
        lambda: f"next(({sub()} for {var} in {source} if ({sub()}) > 0), None)",
        lambda: f"b_len([1 for {var} in {source} if {sub()}])",
        lambda: f"sum([{sub()} for {var} in {source}])",
        lambda: f"({out()} and {out()})",
        lambda: f"({out()} or {out()})",
        lambda: f"({out()} if {out()} else {out()})",
        lambda: f"len([{out()}, {out()}])",
        lambda: f"{{'p': {out()}, 'q': {out()}}}",
        lambda: f"({out()} + 10 // ({out()}))",   # (may divide by zero: the same error, at the same point)
    ]
    return rng.choice(forms)()


@pytest.mark.parametrize("seed", range(40))
def test_random_nested_expressions_lower_to_the_same_computation(seed):
    rng = random.Random(f"lower:{seed}")
    states = STATES + [State(xs=[rng.randrange(-2, 4) for _ in range(rng.randrange(5))],
                             ys=[rng.randrange(-2, 4) for _ in range(rng.randrange(4))],
                             xss=[], flag=rng.random() < 0.5, v=rng.randrange(-1, 3), zs=[1])
                       for _ in range(6)]
    for _ in range(10):
        expr = _random_expr(rng, 3, [])
        _same(_fn(expr), *states)


def test_the_default_rules_run_no_comprehension():
    # every comprehension the default rules compile to is one this pass takes apart, in the
    # variant's module and in the phases specialised per contract
    from baloot_spec.rules import load_variant
    rules = load_variant("default")
    tree = ast.parse(rules.python_source)
    assert [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, (ast.ListComp, ast.GeneratorExp, ast.DictComp))] == []
    for contract in (("sun", None), ("hokum", "S")):
        for name in ("play", "score"):
            phase = rules.specialized(name, contract)
            for fn in (phase.narrow, *phase.narrows, phase.check, phase.winner, phase.facts_all):
                if fn is not None:
                    assert not any(getattr(c, "co_name", "") in ("<listcomp>", "<genexpr>", "<dictcomp>")
                                   for c in fn.__code__.co_consts)


def test_a_sum_of_ints_accumulates_without_a_list_and_a_sum_of_anything_else_stays_a_list():
    # _isum: how the emitter writes sum() of items typed int (expr/emit.py SUM_OF_INTS)
    ints = _same(_fn("_isum([_isum([ev('y', y) for y in S.ys]) for x in S.xs if ev('c', x)])"), *STATES)
    assert "+= " in ints and ".append(" not in ints and "_isum" not in ints
    other = _same(_fn("sum([ev('x', x) for x in S.xs])"), *STATES)
    assert ".append(" in other and "sum(" in other   # (items of unknown type: `+` may fail, after all are worked out)
