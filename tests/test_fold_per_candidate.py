"""The per-candidate folding of a calls phase's fused narrow (rules/passes/candidates.py `fold`): the
folded test must have the truth value of the original for that candidate, in every state."""

import ast
import random
from types import SimpleNamespace

import pytest

from baloot_spec.rules.passes.candidates import Fields, fold

CANDIDATES = [("bid", {"call": c}) for c in ("pass", "hokum", "sun")] + \
    [("double", {"call": c, "closed": k}) for c in ("pass", "double") for k in (False, True)]


def folded(text: str, action_type: str, fields: dict, boolean: bool = True) -> str:
    return ast.unparse(fold(Fields(action_type, fields).visit(ast.parse(text, mode="eval").body), boolean))


@pytest.mark.parametrize("text, fields, expected", [
    ("A.call != 'hokum' or (S.bid == None and S.stage == 'first')", {"call": "pass"}, "True"),
    ("A.call != 'hokum' or (S.bid == None and S.stage == 'first')", {"call": "hokum"}, "S.bid == None and S.stage == 'first'"),
    ("(A.call != 'kawesh' or False) and S.x", {"call": "kawesh"}, "False"),
    ("not A.closed or (S.mode == 'hokum' and A.call in ['double', 'four'])", {"call": "pass", "closed": True}, "False"),
    ("A.call == 'ashkal' and f_seat(S)", {"call": "pass"}, "False"),
    ("f_seat(S) and A.call == 'ashkal'", {"call": "pass"}, "f_seat(S) and False"),   # a call may fail: kept
    ("S.x if A.call == 'pass' else S.y", {"call": "pass"}, "S.x"),
    ("A.rank < 3", {"rank": "a"}, "'a' < 3"),   # str < int: not folded
    ("A.missing == None", {"call": "pass"}, "True"),                        # a field it lacks reads none
])
def test_folding_by_hand(text, fields, expected):
    assert folded(text, "bid", fields) == expected


def test_a_value_keeps_its_value_outside_a_test():
    # `x and True` is x in a test, but its value is True or a falsy x: kept as it is.
    assert folded("S.x and True", "bid", {}, boolean=False) == "S.x and True"
    assert folded("S.x and True", "bid", {}, boolean=True) == "S.x"
    assert folded("'' or S.x", "bid", {}, boolean=False) == "S.x"
    assert folded("'a' or S.x", "bid", {}, boolean=False) == "'a'"


ATOMS = ["A.call == 'pass'", "A.call != 'hokum'", "A.closed", "A.call in ['sun', 'double']", "S.p", "S.q == 1",
         "S.r", "True", "False", "''", "'a'", "A.missing == None"]


def random_expression(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(ATOMS)
    kind = rng.choice(["and", "or", "not", "if"])
    if kind == "not":
        return f"(not {random_expression(rng, depth - 1)})"
    if kind == "if":
        return f"({random_expression(rng, depth - 1)} if {random_expression(rng, depth - 1)} else {random_expression(rng, depth - 1)})"
    parts = [random_expression(rng, depth - 1) for _ in range(rng.randint(2, 4))]
    return "(" + f" {kind} ".join(parts) + ")"


@pytest.mark.parametrize("seed", range(20))
def test_folding_keeps_the_truth_value_in_every_state(seed):
    rng = random.Random(seed)
    for _ in range(30):
        text = random_expression(rng, 4)
        for action_type, fields in CANDIDATES:
            action = SimpleNamespace(**{"type": action_type, "missing": None, "closed": None, **fields})
            simplified = folded(text, action_type, fields)
            for p in (False, True, 0, "x"):
                for q in (0, 1):
                    state = SimpleNamespace(p=p, q=q, r=rng.choice([None, "", "y", 0, 2]))
                    # (test code: evaluating generated Python to compare it with the original)
                    before = bool(eval(text, {"A": action, "S": state}))  # noqa: S307
                    after = bool(eval(simplified, {"A": action, "S": state}))  # noqa: S307
                    assert before == after, (text, fields, simplified)
