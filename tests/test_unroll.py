"""Loops over short constant lists written out (expr/unroll.py): the same values, the same
expressions evaluated in the same order, the same exceptions; and only where that holds."""

import ast
import itertools

import pytest

from baloot_spec.expr.unroll import MAX_ITEMS, short_lists, unroll as unroll_tree


def unroll(source: str, constants: tuple) -> str:
    """The pass on an expression written here (the compiler gives it the emitted `ast`)."""
    return ast.unparse(unroll_tree(ast.parse(source, mode="eval").body, constants))

CONSTANTS = (("k_teams", ("NS", "EW")), ("k_four", (1, 2, 3, 4)), ("k_none", ()))


def _run(source: str):
    """The value of `source` and the log of every call of f() it made, or the exception."""
    log = []

    def f(*args):
        log.append(args)
        if args and args[0] == "boom":
            raise ZeroDivisionError("boom")
        return args[-1] if args else None

    space = {"f": f, "k_teams": ["NS", "EW"], "k_four": [1, 2, 3, 4], "k_none": [], "k_long": [1, 2, 3, 4, 5],
             "S": {"NS": 3, "EW": 4}}
    try:
        value = eval(compile(source, "<test>", "eval"), space)   # the test's own Python, not rule text
    except Exception as exc:   # the same failure, at the same point of the log
        return ("raised", type(exc).__name__, str(exc)), log
    return value, log


WRITTEN_OUT = [
    "{v_t: f('el', v_t, S[v_t]) for v_t in k_teams}",
    "[f('el', v_n) for v_n in k_four]",
    "[f('el', v_n) for v_n in [7, 'x', None]]",
    "next((f('el', v_t) for v_t in k_teams if f('test', v_t, S[v_t] == 4)), None)",
    "next((True for v_t in k_teams if f('a', v_t) and f('b', v_t, S[v_t] > 3)), False)",
    "next((False for v_t in k_teams if not f('all', v_t, S[v_t] > 3)), True)",
    "next((f('el', v_t) for v_t in k_teams), 'empty')",
    "next((f('el', v_t) for v_t in k_none if f('t', v_t)), 'empty')",
    "{v_t: {v_u: f(v_t, v_u) for v_u in k_teams} for v_t in k_teams}",
    "sum([f('x', v_n) for v_n in k_four]) + len({v_t: 1 for v_t in k_teams})",
    "{v_t: f('boom') if v_t == 'EW' else f(v_t) for v_t in k_teams}",
    "next((v_t for v_t in k_teams if f(v_t, 'boom' if v_t == 'NS' else 0)), None)",
    "[f(v_t, (x := v_t)) for v_t in k_teams] + [x]",
]


@pytest.mark.parametrize("source", WRITTEN_OUT)
def test_a_written_out_loop_gives_the_same_value_and_calls_in_the_same_order(source):
    written = unroll(source, CONSTANTS)
    assert written != source
    tree = ast.parse(written, mode="eval")
    assert not any(isinstance(n, (ast.ListComp, ast.DictComp, ast.GeneratorExp)) for n in ast.walk(tree))
    assert _run(written) == _run(source)


KEPT = [
    "[f(v_t) for v_t in k_teams if f('t', v_t)]",        # a filtered list: no display says it
    "{v_t: f(v_t) for v_t in k_teams if v_t != 'NS'}",
    "[f(v_n) for v_n in k_long]",                          # not a short constant list
    "[f(v_n) for v_n in S]",                               # not a constant at all
    "[f(v_t) for v_t in k_teams for v_u in k_teams]",      # two loops
    "[[v_t for v_t in k_long] for v_t in k_teams]",        # the loop variable bound again inside
    "[f(v_t) for (v_t, v_u) in k_teams]",                  # not a plain loop variable
    "next((f(v_t) for v_t in k_teams))",                  # next() without a default raises
]


def test_max_of_a_written_out_list_needs_no_default():
    # (`or [None]` gives max() something when the list is empty; a display of items never is)
    for source in ("max([f('el', v_t, S[v_t]) for v_t in k_teams] or [None])",
                   "min([f('el', v_n) for v_n in k_four] or [None]) < 2"):
        written = unroll(source, CONSTANTS)
        assert "or [None]" not in written and "for " not in written
        assert _run(written) == _run(source)
    for source in ("max([f(v_n) for v_n in k_long] or [None])", "max([*k_none] or [None])",
                   "max([f(v_n) for v_n in k_none] or [None])"):
        assert "or [None]" in unroll(source, CONSTANTS)   # (not written out, or written out empty)
        assert _run(unroll(source, CONSTANTS)) == _run(source)


@pytest.mark.parametrize("source", KEPT)
def test_a_loop_that_cannot_be_written_out_is_kept_as_it_is(source):
    kept = unroll(source, CONSTANTS)
    outer = ast.parse(kept, mode="eval").body
    assert not isinstance(outer, (ast.List, ast.Dict, ast.IfExp))
    assert _run(kept) == _run(source)


def test_the_inner_loop_of_a_kept_one_is_still_written_out():
    source = "[f(v_n, [v_t for v_t in k_teams]) for v_n in k_long]"
    written = unroll(source, CONSTANTS)
    assert "for v_t" not in written and "for v_n" in written
    assert _run(written) == _run(source)


def test_only_short_lists_of_plain_values_are_candidates():
    short = short_lists({"teams": ["NS", "EW"], "long": list(range(MAX_ITEMS + 1)), "points": {"A": 11},
                         "nested": [[1], [2]], "mixed": [1, "a", None, True], "float": [1.5]})
    assert short == (("k_mixed", (1, "a", None, True)), ("k_teams", ("NS", "EW")))


def test_random_compositions_agree():
    # every pair of element and test shapes, in each construct, over each list
    elements = ["f('e', v_t)", "S.get(v_t, f('miss', v_t))", "(v_t, f(v_t))"]
    tests = ["f('t', v_t)", "v_t == 'EW'", "f('t', v_t) and v_t != 'NS'"]
    lists = ["k_teams", "k_none", "['EW']"]
    for el, test, xs in itertools.product(elements, tests, lists):
        for source in (f"{{v_t: {el} for v_t in {xs}}}", f"[{el} for v_t in {xs}]",
                       f"next(({el} for v_t in {xs} if {test}), 'none')", f"next(({el} for v_t in {xs}), 'none')"):
            assert _run(unroll(source, CONSTANTS)) == _run(source), source
