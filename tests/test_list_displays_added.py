"""Two list displays added (`[a, b] + [c]`, what a rule function's list and a tie-break list
make once inlined) emitted as one display (expr/emit.py `_binop`): the same items, worked out in
the same order; a `+` with anything but two displays left as it is."""

import ast

import pytest

from baloot_spec.expr import types as ty
from baloot_spec.expr.compiler import Scope, to_python

SCOPE = Scope(state=frozenset({"xs", "n", "m"}), functions={}, builtins={"len": (1, 1)},
              attributes=frozenset(), record_fields=frozenset(),
              state_types={"xs": ty.list_of(ty.INT), "n": ty.INT, "m": ty.INT})


class State:
    xs, n, m = [4, 5], 2, 3


def _value(python: str):
    return eval(python, {"S": State(), "b_len": len})


@pytest.mark.parametrize("text, value", [
    ("[n, 1] + [m]", [2, 1, 3]),
    ("[n] + [m, n * m] + [len(xs)]", [2, 3, 6, 2]),
    ("[] + [n]", [2]),
    ("([n] + [m])[1]", 3),
])
def test_two_displays_added_are_one_display(text, value):
    python = to_python(text, SCOPE)
    tree = ast.parse(python, mode="eval")
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add)], python
    assert _value(python) == value


@pytest.mark.parametrize("text, value", [
    ("xs + [n]", [4, 5, 2]),        # (a list that is no display)
    ("[n] + xs", [2, 4, 5]),
    ("n + m", 5),
])
def test_other_additions_are_left(text, value):
    python = to_python(text, SCOPE)
    assert [n for n in ast.walk(ast.parse(python, mode="eval")) if isinstance(n, ast.BinOp)], python
    assert _value(python) == value


def test_the_default_rules_project_keys_are_one_display():
    # (project_key: project_strength(d.project) + [the tie-break], inlined in the comparison)
    from baloot_spec.rules import load_variant
    tree = ast.parse(load_variant("default").python_source)
    (function,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f_project_winner_team"]
    assert not [n for n in ast.walk(function) if isinstance(n, ast.BinOp) and isinstance(n.left, ast.List)]
    assert [n for n in ast.walk(function) if isinstance(n, ast.List) and len(n.elts) == 5]
