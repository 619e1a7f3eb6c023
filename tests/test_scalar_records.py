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
    y = x[b[0]]
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


BY_NAME = """
def f(a, b, k):
    x = _R({'NS': ev('n', a), 'EW': ev('e', b)})
    t = x
    c = t
    return [c[k], t[k] + 1, x, c[k] if k else 0]
"""


def test_a_read_by_a_name_key_compares_it_with_the_filled_keys_then_looks_up():
    """`x[k]` of a record filled here, k a name: the stored values chosen by comparing k with
    each filled key, in fill order, the lookup last (through an alias of an alias too)."""
    text = _text(_rewritten(BY_NAME))
    assert "c[k]" in text and text.count("_c1 if k == 'NS' else _c2 if k == 'EW' else c[k]") == 2
    assert "(_c1 if k == 'NS' else _c2 if k == 'EW' else t[k]) + 1" in text
    assert "_rec1['NS'] = _c1" in text and "_rec1['EW'] = _c2" in text


class _Text(str):
    """A text of the same characters: what a dict finds under that key."""


@pytest.mark.parametrize("k", ["NS", "EW", "N", "", None, 0, 1, True, 2.5, ("NS",), ["NS"], {"NS": 1},
                               _Text("EW"), b"NS"])
@pytest.mark.parametrize("a, b", [(1, 2), ("fail", 2), (1, "fail")])
def test_a_read_by_a_name_key_has_the_same_value_or_the_same_failure(k, a, b):
    """Every key: a filled one reads its value, another (text, None, number, an unhashable
    value) fails with the lookup's own error, as before."""
    original = _run(_function(BY_NAME), a, b, k)
    assert _run(_rewritten(BY_NAME), a, b, k) == original
    if (a, b) == (1, 2) and k in ("N", None, 0):
        assert original[:2] == ("raised", KeyError)


def test_two_name_keys_read_or_fail_as_the_lookups_did():
    from baloot_spec.expr.builtins import Rec
    source = """
def f(a, k, m):
    x = _R({'NS': a, 'EW': a + 1})
    return [x[k], x[m], x]
"""
    rec = Rec({"NS": 1})   # (a key that cannot be hashed: TypeError, as before)
    for k, m in (("NS", "EW"), ("EW", "EW"), ("NS", rec), ("NS", "ns")):
        assert _run(_rewritten(source), 3, k, m) == _run(_function(source), 3, k, m)


@pytest.mark.parametrize("case", ["aliased twice", "stored into", "key not a name", "read before the alias"])
def test_reads_by_a_name_key_left_where_they_could_differ(case):
    source = {
        "aliased twice": """
def f(a, k):
    x = _R({'NS': a})
    y = x
    y = _R({'NS': 7})
    return y[k]
""",
        "stored into": """
def f(a, k):
    x = _R({'NS': a})
    y = x
    y['NS'] = 5
    return y[k]
""",
        "key not a name": """
def f(a, k):
    x = _R({'NS': a})
    return x[k[0]]
""",
        "read before the alias": """
def f(a, k):
    x = _R({'NS': a})
    z = x
    return [x[k], z]
""",
    }[case]
    text = _text(_rewritten(source))
    if case == "read before the alias":
        assert "a if k == 'NS' else x[k]" in text
    else:
        assert "== 'NS'" not in text
    for k in ("NS", ["NS"], "EW"):
        assert _run(_rewritten(source), 4, k) == _run(_function(source), 4, k)


def test_the_specialised_scores_read_none_of_their_own_records_by_key():
    """The default variant's hands: at scoring, the score phase's function reads no record of
    the result by key (each read by a team chosen from the stored values), for a Sun and a
    Hokum; other records (the credited projects) it still reads."""
    import sys

    from baloot_spec.engine.hand import Hand
    from baloot_spec.expr.builtins import Rec
    from baloot_spec.rules import load_variant
    sys.path.insert(0, "tools")
    from bench import record_hands
    rules = load_variant()
    reads, results, modes = [], [], set()
    real = dict.__getitem__

    def counted(self, key):
        if sys._getframe(1).f_code.co_name.startswith("facts_scored"):
            reads.append(self)
        return real(self, key)
    for dealer, deal, scores, events in record_hands(rules, 60, 3):
        hand = Hand(rules, dealer, deal, scores)
        for event in events[:-1]:
            hand.legal()
            hand.apply(event)
        hand.legal()
        Rec.__getitem__ = counted
        try:
            hand.apply(events[-1])
        finally:
            del Rec.__getitem__
        result = hand.result()
        modes.add(result["mode"])
        results += [value for value in result.values() if isinstance(value, Rec)]
    own = {id(record) for record in results}
    assert len(modes) >= 2 and results
    assert [record for record in reads if id(record) in own] == []
