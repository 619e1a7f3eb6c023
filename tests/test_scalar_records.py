"""Records filled and read back in one function (rules/passes/scalar_records.py): which reads
become the stored value's local, which are left, the literal folds, and that every function
computes what it did (values, key order, failures)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from baloot_spec.rules.passes.record_stores import record_stores
from baloot_spec.rules.passes.scalar_records import fold, scalar_records

from logged_runs import run_logged


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


def _rewritten(source: str) -> ast.FunctionDef:
    return scalar_records(record_stores(_function(source)))


def _text(function) -> str:
    return ast.unparse(ast.fix_missing_locations(function))


def _run(function: ast.FunctionDef, *args):
    ran = run_logged(function, args, _isum=sum)
    if ran[0] == "raised":
        return ran
    _, result, log = ran
    return "value", _plain(result), log


def _plain(value):
    if isinstance(value, dict):
        return (type(value).__name__, [(k, _plain(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_plain(v) for v in value])
    return (type(value).__name__, value)


STEPS = """
def f(a, b):
    try:
        x = _R({'NS': ev('n', a), 'EW': ev('e', b)})
        y = _R({'NS': x['NS'] + 1, 'EW': x['EW'] * 2, 'sum': _isum([x['NS'], x['EW']]), 'pick': x['NS'] if 'NS' == 'NS' else x['missing']})
        z = x['NS'] if 'NS' == 'NS' else x['missing']
        w = x[ev('k', 'NS')]
        out = _R({'x': x, 'y': y, 'z': z, 'w': w, 'first': y['NS']})
    except KeyError:
        raise
    return out
"""


def test_a_read_by_a_literal_key_is_the_stored_value():
    text = _text(_rewritten(STEPS))
    assert "x['NS']" not in text and "x['EW']" not in text and "y['NS']" not in text
    assert "_c1 = ev('n', a)" in text and "_rec1['NS'] = _c1" in text
    assert "_rec2['pick'] = _c1\n" in text   # (in a fill, 'NS' == 'NS' folded: the missing key never read)
    assert "z = _c1 if 'NS' == 'NS' else x['missing']" in text   # (elsewhere only the reads: CPython's to run)
    assert "_isum" not in text and "_c1 + _c2" in text
    assert "w = x[ev('k', 'NS')]" in text   # (a key that is not a literal: the record is read)
    assert "'x': " not in text and "_rec3['x'] = x" in text   # (the record is still made and kept)


@pytest.mark.parametrize("a, b", [(1, 2), (5, 0), ("fail", 2), (1, "fail"), (True, True)])
def test_the_same_values_in_the_same_order_or_the_same_failure(a, b):
    original = _run(_function(STEPS), a, b)
    assert _run(_rewritten(STEPS), a, b) == original
    if a == 1 and b == 2:
        assert original[0] == "value" and original[1][0] == "Rec"


LEFT = {
    "set twice": """
def f(a):
    x = _R({'k': a})
    x = _R({'k': a + 1})
    return x['k']
""",
    "stored into after its fill": """
def f(a):
    x = _R({'k': a})
    x['k'] = 2
    return x['k']
""",
    "a method read": """
def f(a):
    x = _R({'k': a})
    x.update(k=3)
    return x['k']
""",
    "the fill in a loop": """
def f(a):
    for i in a:
        x = _R({'k': i})
        t = x['k']
    return t
""",
    "read in a generator": """
def f(a):
    x = _R({'k': a})
    return next((x['k'] for i in [1]), None)
""",
    "read in another block": """
def f(a):
    if a:
        x = _R({'k': a})
    return x['k']
""",
}


@pytest.mark.parametrize("case", sorted(LEFT))
def test_reads_left_where_the_value_could_differ(case):
    text = _text(_rewritten(LEFT[case]))
    assert "x['k']" in text
    for a in ([1, 2], 7, 0) if case == "the fill in a loop" else (7, 0):
        assert _run(_rewritten(LEFT[case]), a) == _run(_function(LEFT[case]), a)


def test_a_name_set_again_after_the_fill_is_copied_into_a_local():
    source = """
def f(a):
    t = a
    x = _R({'k': t, 'm': a})
    t = 5
    return [x['k'], x['m'], t]
"""
    text = _text(_rewritten(source))
    assert "_c1 = t" in text and "return [_c1, a, t]" in text
    assert _run(_rewritten(source), 3) == _run(_function(source), 3)


@pytest.mark.parametrize("expr, folded", [
    ("None == 'NS'", "False"), ("'NS' != 'NS'", "False"), ("1 == True", "True"), ("0 == ''", "False"),
    ("not None", "True"), ("a if 'NS' == 'NS' else b", "a"), ("a if 0 else b", "b"),
    ("2 if None == 'EW' else 0", "0"), ("_isum([a, b, c])", "a + b + c"),
])
def test_literal_operations_folded_as_python_computes_them(expr, folded):
    assert ast.unparse(fold(ast.parse(expr, mode="eval").body)) == folded


@pytest.mark.parametrize("expr", ["a == 'NS'", "1.5 == 1.5", "'a' is 'a'", "1 < 2 == 2", "_isum([a])",
                                  "_isum([*a, b])", "sum([a, b])", "a if b else c", "not a"])
def test_other_operations_left(expr):
    assert ast.unparse(fold(ast.parse(expr, mode="eval").body)) == ast.unparse(ast.parse(expr, mode="eval").body)


def _literal_reads(code) -> list:
    """(local, key) of each `local['key']` the code object reads."""
    import dis
    ops = [(i.opname, i.argval) for i in dis.get_instructions(code)]
    return [(ops[k][1], ops[k + 1][1]) for k in range(len(ops) - 2)
            if ops[k][0] == "LOAD_FAST" and ops[k + 1][0] == "LOAD_CONST" and isinstance(ops[k + 1][1], str)
            and ops[k + 2][0] == "BINARY_SUBSCR"]


def test_the_specialised_score_reads_its_records_locals():
    """The default variant's Sun score: no step reads a fact or a step back out of its record by
    a literal key (all of them were filled in the function), and what the literals decide is
    folded (no `_isum` of a written-out list)."""
    from baloot_spec.rules import load_variant
    rules = load_variant()
    code = rules.specialized("score", ("sun", None)).facts_scored.__code__
    assert [(local, key) for local, key in _literal_reads(code) if local.startswith("_s_")] == []
    assert "_isum" not in code.co_names


def test_a_record_nobody_reads_by_a_literal_key_is_filled_as_it_was():
    source = """
def f(a, b):
    x = _R({'k': a + 1, 'm': b})
    y = x[b]
    return [x, y]
"""
    assert _text(_rewritten(source)) == _text(record_stores(_function(source)))


def test_only_the_keys_read_get_a_local_and_a_key_filled_twice_reads_its_last_value():
    source = """
def f(a, b):
    x = _R({'k': a + 1, 'm': b + 1, 'k': a + 2})
    return x['k']
"""
    text = _text(_rewritten(source))
    assert "_rec1['k'] = a + 1" in text and "_rec1['m'] = b + 1" in text and "_c1 = a + 2" in text
    assert text.rstrip().endswith("return _c1")
    assert _run(_rewritten(source), 1, 2) == _run(_function(source), 1, 2)
