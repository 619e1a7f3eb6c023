"""Records built by item stores (rules/passes/record_stores.py): which statements, and that the
record, its key order and a failure are what the display gave."""

from __future__ import annotations

import ast
import textwrap

import pytest

from baloot_spec.expr.builtins import Rec
from baloot_spec.rules.passes.record_stores import record_stores

from logged_runs import run_logged


def _rewritten(source: str) -> ast.FunctionDef:
    return record_stores(ast.parse(textwrap.dedent(source)).body[0])


def _run(function: ast.FunctionDef, *args):
    ran = run_logged(function, args)
    if ran[0] == "raised":
        return ran
    _, result, log = ran
    if isinstance(result, list):
        return "value", [(type(r), list(r.items())) for r in result], log
    return "value", type(result), list(result.items()), log


SOURCE = """
def f(a, b):
    x = _R({'NS': ev('n', a), 'EW': ev('e', b), 'NS': ev('again', b)})
    return _R({'first': x, 'second': ev('s', a)})
"""


def test_a_record_display_becomes_item_stores_into_a_new_record():
    rewritten = _rewritten(SOURCE)
    text = ast.unparse(ast.fix_missing_locations(rewritten))
    assert "_R({" not in text and "_rec1 = _R()" in text and "_rec1['NS'] = ev('n', a)" in text
    assert text.rstrip().endswith("return _rec2")


@pytest.mark.parametrize("a, b", [(1, 2), ("fail", 2), (1, "fail")])
def test_the_same_record_in_the_same_key_order_or_the_same_failure(a, b):
    original = _run(ast.parse(textwrap.dedent(SOURCE)).body[0], a, b)
    assert _run(_rewritten(SOURCE), a, b) == original
    if a == 1 and b == 2:
        assert original[1] is Rec and [k for k, _ in original[2]] == ["first", "second"]
        assert original[2][0][1] == {"NS": 2, "EW": 2}


@pytest.mark.parametrize("source", [
    "def f(a):\n    return g(_R({'a': a}))\n",          # not the statement's whole value
    "def f(a):\n    return _R({k: a for k in a})\n",    # not a display
    "def f(a):\n    return _R({a: 1})\n",               # a key that is not a literal
    "def f(a):\n    return _R({**a})\n",
])
def test_what_is_left_alone(source):
    assert ast.unparse(_rewritten(source)) == ast.unparse(ast.parse(source).body[0])


APPENDED = """
def f(a, b):
    t = []
    for x in a:
        t.append(_R(seat=ev('s', x), project=ev('p', b)))
    u = g(b)
    u.append(_R(seat=1))
    return t
"""


def test_a_record_literal_appended_to_a_new_list_is_filled_item_by_item_too():
    text = ast.unparse(ast.fix_missing_locations(_rewritten(APPENDED)))
    assert "_rec1 = _R()" in text and "_rec1['seat'] = ev('s', x)" in text and "t.append(_rec1)" in text
    assert "u.append(_R(seat=1))" in text   # (u is not a list the function made: its append might fail first)


@pytest.mark.parametrize("a, b", [([1, 2], 3), ([1, "fail"], 3), ([1], "fail"), ([], 1)])
def test_appended_records_are_the_same_or_fail_the_same(a, b):
    source = APPENDED.replace("    u = g(b)\n    u.append(_R(seat=1))\n", "")
    original = _run(ast.parse(textwrap.dedent(source)).body[0], a, b)
    assert _run(_rewritten(source), a, b) == original
    if a == [1, 2] and b == 3:
        assert original[1] == [(Rec, [("seat", 1), ("project", 3)]), (Rec, [("seat", 2), ("project", 3)])]
