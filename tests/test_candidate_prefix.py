"""A calls phase's first filter pass written out per candidate (rules/passes/candidates.py
`per_candidate`): a candidate whose folded test is the one before's and more (`p and q`) is
tested under the one before (`if q:` inside `if p:`), `p` not evaluated again; the same
candidates kept, in the same order, and only where `p` reads no candidate and has no effect."""

import ast
import itertools
from types import SimpleNamespace

import pytest

from baloot_spec.rules.passes import candidates as passes
from baloot_spec.rules.passes.candidates import per_candidate
from baloot_spec.rules.pyast import function

CANDIDATES = [("bid", {"call": "pass", "closed": False}), ("bid", {"call": "double", "closed": False}),
              ("bid", {"call": "double", "closed": True}), ("bid", {"call": "four", "closed": False}),
              ("bid", {"call": "four", "closed": True})]
TEST = ("A.call == 'pass' or (A.call == 'double' and S.p and b_id(S.r)) and (not A.closed or S.q)"
        " or A.call == 'four' and S.p and (not A.closed or S.q)")


def _narrow(test: str, monkeypatch=None):
    lines = per_candidate(ast.parse(test, mode="eval").body, CANDIDATES)
    fn = function("narrow", "S, C", lines + [ast.Return(value=ast.Name(id="C", ctx=ast.Load()))])
    source = ast.unparse(ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[])))
    calls = []
    space = {"b_len": len, "b_id": lambda v: calls.append(v) or v, "g": lambda v: calls.append(v) or v}
    exec(compile(source, "<test>", "exec"), space)
    return space["narrow"], source, calls


def test_a_test_that_extends_the_one_before_is_nested_in_it():
    _, source, _ = _narrow(TEST)
    assert "        if S.q:\n            K.append(C[2])" in source and "        if S.q:\n            K.append(C[4])" in source
    assert source.count("b_id(S.r)") == 1


SECOND = "A.call == 'double' and S.p or A.call == 'four' and (S.p and S.q or not A.closed)"


@pytest.mark.parametrize("test", [TEST, SECOND])
def test_the_same_candidates_are_kept_in_the_same_order(test, monkeypatch):
    nested, _, _ = _narrow(test)
    monkeypatch.setattr(passes, "_nested", lambda shared, test, kept: False)
    plain, source, _ = _narrow(test)
    assert test != TEST or source.count("b_id(S.r)") == 2
    for p, q, r in itertools.product([False, True], repeat=3):
        S = SimpleNamespace(p=p, q=q, r=r)
        assert nested(S, list(range(5))) == plain(S, list(range(5))), (p, q, r)


def test_a_test_with_another_call_or_after_an_unconditional_candidate_is_not_nested():
    _, source, _ = _narrow(TEST.replace("b_id(S.r)", "g(S.r)"))
    assert source.count("g(S.r)") == 2
    _, source, _ = _narrow(SECOND)
    assert "    if S.p:\n        K.append(C[1])\n        K.append(C[2])\n    K.append(C[3])\n    if S.p and S.q:\n" in source
    # (the same test kept together; C[3], always kept, between: C[4] tested on its own)
