"""`flatten` of a comprehension of lists (the emitter's `_flat(...)`, expr/builtin_forms.py) and
`index` of a comprehension, written out by the lowering (expr/lower.py `_flat`, `_index`): no
inner list, no call of builtins.py, and the same value, the same evaluations in the same order
and the same error as the call."""

import ast

import pytest

from baloot_spec.expr.builtins import _flatten, _index
from baloot_spec.expr.lower import lower_function
from logged_runs import run_logged


class State:
    def __init__(self, **fields):
        self.__dict__.update(fields)


class Odd:
    """An item whose comparison with 99 fails (a TypeError: a ValueError out of `==` is what
    `_index` takes for "not found", and no value the rules make raises one when compared)."""

    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        if getattr(other, "n", other) == 99:
            raise TypeError("no comparing with 99")
        return isinstance(other, Odd) and other.n == self.n

    __hash__ = None


def _lowered(source: str) -> str:
    module = ast.parse(source)
    module.body = [lower_function(n) for n in module.body]
    return ast.unparse(ast.fix_missing_locations(module))


def _run(source: str, S):
    """What f(S) of `source` gives, and everything it evaluated, in order (tests/logged_runs.py)."""
    return run_logged(ast.parse(source).body[0], (S,), b_flatten=_flatten, _flat=_flatten, b_index=_index, b_len=len)


STATES = [State(xss=[], xs=[], v=0, k=1),
          State(xss=[[1, 2], [], [3, 0]], xs=[3, 1, 2, 1], v=1, k=2),
          State(xss=[[0], [5, 6, 7]], xs=[0, 0], v=0, k=0),
          State(xss=[[1], [2]], xs=[Odd(1), Odd(2), Odd(1)], v=Odd(1), k=1),
          State(xss=[[1], [2]], xs=[Odd(1), Odd(2)], v=Odd(99), k=1),
          State(xss=[[1], 'ab'], xs=None, v=0, k=1)]


@pytest.mark.parametrize("expr", [
    "_flat([[ev('e', (x, y)) for y in x if ev('c', y) != 2] for x in S.xss if ev('o', len(x)) < 3])",
    "_flat([[10 // y for y in x] for x in S.xss])",                 # (fails on a 0, where the call does)
    "_flat([[y for y in S.xss[i]] for i in range(len(S.xss))])",
    "_flat([[ev('a', x), y] for x in S.xss for y in x])",         # (two outer loops)
    "ev('before', 1) + len(_flat([[y * S.k for y in x] for x in S.xss]))",
])
def test_a_flatten_of_comprehensions_is_one_list_appended_in_order(expr):
    source = f"def f(S):\n    return {expr}\n"
    lowered = _lowered(source)
    assert "_flat(" not in lowered, lowered   # (a display item: its list extended)
    for S in STATES[:4] + STATES[5:]:
        assert _run(lowered, S) == _run(source, S), lowered


@pytest.mark.parametrize("expr", [
    "b_index([ev('e', x) for x in S.xs if ev('c', x) != 3], S.v)",
    "b_index([x for x in S.xs], 1)",
    "b_index([x for x in S.xs if x != 2], S.v) + ev('after', 1)",
    "[b_index([y for y in S.xs if y == x], x) for x in S.xs]",
    "b_index([x for x in S.xs], S.v) if S.k else -5",
])
def test_an_index_of_a_comprehension_searches_the_list_made_first(expr):
    source = f"def f(S):\n    v = S.v\n    return {expr.replace('S.v', 'v')}\n"
    lowered = _lowered(source)
    assert "b_index" not in lowered and ".index(" in lowered, lowered
    for S in STATES:
        assert _run(lowered, S) == _run(source, S), lowered


@pytest.mark.parametrize("expr", [
    "b_index([x for x in S.xs], S.v)",        # the value is no name: the call stays
    "b_index(S.xs, 1)",                       # no comprehension
    "b_flatten(S.xss)",
    "b_flatten([S.xs for x in S.xss])",       # the items are no comprehensions
    "b_flatten([[y for (y, z) in x] for x in S.xss])",   # a loop over a tuple target
])
def test_other_calls_are_left(expr):
    lowered = _lowered(f"def f(S):\n    return {expr}\n")
    assert ("b_index(" in lowered) or ("b_flatten(" in lowered), lowered


def test_the_default_rules_declared_projects_make_no_inner_list_and_call_neither():
    from baloot_spec.rules import load_variant
    rules = load_variant("default")
    tree = ast.parse(rules.python_source)
    (function,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f_declared_projects"]
    called = {n.func.id for n in ast.walk(function) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert not called & {"b_flatten", "_flat", "b_index"}, called
