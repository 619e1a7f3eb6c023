"""A loop item's field read again in the loop's body read once (rules/passes/field_reads.py):
which reads keep a local and which use it, what is left, and that every function computes
what it did (values, order of evaluation, failures)."""

from __future__ import annotations

import ast
import re
import textwrap

import pytest

from baloot_spec.expr.builtins import Rec
from baloot_spec.rules import load_variant
from baloot_spec.rules.passes.field_reads import field_reads

from logged_runs import run_logged


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


def _text(source: str) -> str:
    return ast.unparse(ast.fix_missing_locations(field_reads(_function(source))))


def _run(function: ast.FunctionDef, *args):
    return run_logged(function, args, k_order=["N", "E", "S", "W"])


KEY = """
def f(items):
    out = []
    for x in items:
        if not ev('s', x['seat']) != 'E':
            continue
        out.append([ev('v', x['project'])['value'], 1 if x['project']['kind'] == 'four' else 0, x['project']['key']]
                   + [k_order.index(x['seat']) if x['seat'] in k_order else -1])
        out.append(x['name'] if x['seat'] == 'N' else x['name'])
    return out
"""


def test_the_first_read_that_always_runs_is_kept_and_the_later_ones_read_its_local():
    text = _text(KEY)
    assert "ev('s', (_fv1 := x['seat']))" in text
    assert "ev('v', (_fv2 := x['project']))['value']" in text and "_fv2['kind']" in text and "_fv2['key']" in text
    assert "k_order.index(_fv1) if _fv1 in k_order" in text and "_fv1 == 'N'" in text
    assert text.count("x['project']") == 1 and text.count("x['seat']") == 1
    assert "x['name'] if _fv1 == 'N' else x['name']" in text   # (only in branches: neither always runs)


def _item(seat="N", name="a", project=None, drop=()):
    record = Rec(seat=seat, name=name, project=Rec(value=4, kind="four", key=2) if project is None else project)
    for field in drop:
        del record[field]
    return record


@pytest.mark.parametrize("items", [
    [], [_item()], [_item("E"), _item("W", "b"), _item("S")], [_item(project=Rec(value=1, kind="x"))],
    [_item(drop=("seat",))], [_item("W", drop=("project",))], [_item("X")], [_item(drop=("name",))], [_item(seat="fail")],
    [_item("W", name="fail")], [Rec()], [_item(), 5], ["NS"],
])
def test_the_same_values_in_the_same_order_or_the_same_failure(items):
    original = _run(_function(KEY), items)
    assert _run(field_reads(_function(KEY)), items) == original


LEFT = {
    "stored into": """
def f(items):
    for x in items:
        a = x['k'] + 1
        x['k'] = 2
        b = x['k']
    return [a, b]
""",
    "a method read": """
def f(items):
    for x in items:
        a = x['k']
        x.update(k=3)
        b = x['k']
    return [a, b]
""",
    "bound again": """
def f(items):
    for x in items:
        a = x['k']
        x = {'k': 5}
        b = x['k']
    return [a, b]
""",
    "bound by a walrus": """
def f(items):
    for x in items:
        a = [x['k'], (x := {'k': 5}), x['k']]
    return a
""",
    "first read in a branch": """
def f(items):
    for x in items:
        a = x['k'] if ev('t', True) else 0
        b = x['k']
    return [a, b]
""",
    "a later operand": """
def f(items):
    for x in items:
        a = ev('t', False) and x['k']
        b = ev('u', True) or x['k']
        c = 1 < ev('v', 0) < x['k']
        d = x['k']
    return [a, b, c, d]
""",
    "in a nested block": """
def f(items):
    for x in items:
        if ev('t', True):
            a = x['k']
        while False:
            pass
        try:
            b = x['k']
        except KeyError:
            b = 0
        c = x['k']
    return [a, b, c]
""",
    "in a comprehension": """
def f(items):
    for x in items:
        a = [x['k'] for i in [1]]
        b = x['k']
    return [a, b]
""",
}


@pytest.mark.parametrize("case", sorted(LEFT))
def test_reads_left_where_no_earlier_read_always_ran(case):
    text = _text(LEFT[case])
    assert "_fv" not in text
    for items in ([{"k": 1}], [{"k": 1}, {"k": 2}], [{}], []):
        assert _run(field_reads(_function(LEFT[case])), [Rec(i) for i in items]) == _run(_function(LEFT[case]), [Rec(i) for i in items])


def test_a_kept_read_is_used_in_nested_blocks_and_inner_loops_after_it():
    source = """
def f(items):
    out = []
    for x in items:
        t = ev('n', x['name'])
        for y in items:
            if y['name'] == x['name']:
                out.append(x['name'])
        if t:
            out.append(x['name'])
    return out
"""
    text = _text(source)
    assert "ev('n', (_fv1 := x['name']))" in text and text.count("x['name']") == 1
    assert "if (_fv2 := y['name']) == _fv1" not in text   # (y's read is used once: no local)
    for items in ([Rec(name="a"), Rec(name="b"), Rec(name="a")], [Rec(name="")], [Rec()]):
        assert _run(field_reads(_function(source)), items) == _run(_function(source), items)


def test_no_local_where_no_later_read_uses_it():
    source = """
def f(items):
    for x in items:
        a = x['k'] + x['m']
        b = x['n']
    return [a, b]
"""
    assert "_fv" not in _text(source)


def test_the_default_rules_read_each_declared_projects_fields_once_a_pass():
    """The projects' sort key and the credited projects: each field of a declared project
    read once a pass through the loop, and the rules compute what they did (the hands' scores:
    tests/test_scored.py and the cross-check)."""
    source = load_variant("default").python_source
    for name, fields in (("f_project_winner_team", ("project", "seat")), ("f_credited_projects", ("project", "seat"))):
        body = source.split(f"def {name}(", 1)[1].split("\ndef ", 1)[0]
        for field in fields:
            loops = body.count("for _l")
            assert len(re.findall(rf"_l\d+\['{field}'\]", body)) == loops, (name, field)
