"""A state field read again in a generated function read once (rules/passes/state_reads.py):
which reads keep a local and which use it, the functions left as they are, and that every
function computes what it did (values, the order of its reads and evaluations, failures, and the
rule a guarded function names)."""

from __future__ import annotations

import ast
import re
import textwrap
from types import SimpleNamespace

import pytest

from baloot_spec.errors import BalootError, RuleRuntimeError
from baloot_spec.rules import fuse, load_variant, module
from baloot_spec.rules.module import ModuleBuilder
from baloot_spec.rules.passes.rule_lines import rule_at
from baloot_spec.rules.passes.state_reads import state_reads

from logged_runs import run_logged


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


def _text(source: str) -> str:
    return ast.unparse(ast.fix_missing_locations(state_reads(_function(source))))


class _State:
    """A state whose every field read is logged (`S.x`) in the run's log; a field set to
    "missing" is not there (AttributeError)."""

    def __init__(self, log, **fields):
        object.__setattr__(self, "_log", log)
        object.__setattr__(self, "_fields", fields)

    def __getattr__(self, field):
        self._log.append(f"S.{field}")
        value = self._fields.get(field, "missing")
        if value == "missing":
            raise AttributeError(field)
        return value


def _run(function: ast.FunctionDef, fields: dict, *args):
    """("value", result, log) or ("raised", type, args, log): `f(S, *args)`, S a _State logging
    into the run's log; `ev(tag, value)` logs `tag` (and raises for "fail"), `f_pure(S)` reads
    S.a, `other(S)` is any call."""
    log = []
    return run_logged(function, (_State(log, **fields), *args), log=log, f_pure=lambda S: S.a,
                      k_order=["N", "E", "S", "W"])


def _fewer_reads(original: list, rewritten: list) -> bool:
    """Whether `rewritten` is `original` without some state reads, each dropped one of a field
    read before it (no read added, none moved)."""
    read, k = set(), 0
    for entry in original:
        if k < len(rewritten) and rewritten[k] == entry:
            k += 1
            read.add(entry)
        elif not (entry.startswith("S.") and entry in read):
            return False
    return k == len(rewritten)


def _same(source: str, fields: dict, *args) -> None:
    original = _run(_function(source), fields, *args)
    rewritten = _run(state_reads(_function(source)), fields, *args)
    assert rewritten[:-1] == original[:-1]
    assert _fewer_reads(original[-1], rewritten[-1]), (original[-1], rewritten[-1])


WINNER = """
def f(S):
    return S.trick[0 if ev('a', S.trick[0]) >= S.trick[1] else 1 if S.trick[1] > ev('b', S.trick[2]) else 2]
"""

SCORED = """
def f(S, team):
    t = 0
    for x in S.tricks:
        if ev('w', x) == team:
            t += 1
    last = S.tricks[len(S.tricks) - 1] if ev('n', S.tricks) else None
    seen = []
    for y in S.tricks:
        seen.append(ev('s', y))
    if t:
        u = S.actor
        v = [S.actor, S.actor, S.tricks]
    else:
        v = S.actor
    return [t, last, seen, v, f_pure(S), S.tricks]
"""


def test_a_field_read_five_times_in_one_expression_is_read_once():
    text = _text(WINNER)
    assert text.count("S.trick") == 1 and "(_sv1 := S.trick)[" in text
    assert "ev('a', _sv1[0]) >= _sv1[1]" in text and "_sv1[1] > ev('b', _sv1[2])" in text


def test_the_first_read_that_always_runs_is_kept_for_the_later_statements_and_blocks():
    text = _text(SCORED)
    assert "for x in (_sv1 := S.tricks):" in text
    assert "last = _sv1[len(_sv1) - 1] if ev('n', _sv1) else None" in text
    assert "for y in _sv1" in text and "f_pure(S), _sv1]" in text
    assert "u = (_sv2 := S.actor)" in text and "v = [_sv2, _sv2, _sv1]" in text   # (kept in a branch, used there)
    assert "v = S.actor" in text   # (the other branch: read once, as it was)


@pytest.mark.parametrize("fields", [
    {"trick": [3, 1, 2]}, {"trick": [1, 3, 2]}, {"trick": [1, 2, 3]}, {"trick": ["fail", 1, 2]}, {"trick": [1]},
    {"trick": "missing"}, {"trick": 5}, {"trick": [1, 2, "fail"]},
])
def test_the_winner_gives_the_same_value_or_failure_with_fewer_reads(fields):
    _same(WINNER, fields)


@pytest.mark.parametrize("fields,team", [
    ({"tricks": ["N", "E", "N"], "actor": "W", "a": 1}, "N"), ({"tricks": ["N", "E"], "actor": "W", "a": 1}, "S"),
    ({"tricks": [], "actor": "W", "a": 1}, "N"), ({"tricks": ["N"], "actor": "missing", "a": 1}, "N"),
    ({"tricks": ["N"], "actor": "missing", "a": 1}, "E"), ({"tricks": ["N", "fail"], "actor": "W", "a": 1}, "N"),
    ({"tricks": "missing", "actor": "W"}, "N"), ({"tricks": ["N"], "actor": "W", "a": "missing"}, "N"),
    ({"tricks": None, "actor": "W", "a": 1}, "N"),
])
def test_the_scored_shape_gives_the_same_values_or_failure_with_fewer_reads(fields, team):
    _same(SCORED, fields, team)


LEFT = {
    "writes the state": """
def f(S):
    a = S.x
    S.x = ev('w', 5)
    return [a, S.x]
""",
    "deletes a field": """
def f(S):
    a = S.x
    del S.y
    return [a, S.x]
""",
    "stores into a field": """
def f(S):
    a = S.x
    S.y[0] = 1
    return [a, S.x]
""",
    "hands S to a call that may write": """
def f(S):
    a = S.x
    other(S)
    return [a, S.x]
""",
    "hands S inside a value": """
def f(S):
    a = S.x
    f_pure([S])
    return [a, S.x]
""",
    "binds S again in a loop": """
def f(S):
    for S in [S, S]:
        a = S.x
        b = S.x
    return [a, b]
""",
    "binds S by a walrus": """
def f(S):
    a = [S.x, (S := ev('s', S)), S.x]
    return a
""",
    "a read only in a branch": """
def f(S):
    a = S.x if ev('t', True) else 0
    if ev('u', True):
        b = S.x
    return [a, b, ev('v', False) and S.x]
""",
    "a later operand": """
def f(S):
    a = ev('t', False) and S.x
    b = ev('u', True) or S.x
    c = 1 < ev('v', 0) < S.x
    return [a, b, c, S.x]
""",
    "a read in a try, then after it": """
def f(S):
    try:
        a = S.x
    except AttributeError:
        a = 0
    return [a, S.x]
""",
    "a read in a loop's body, then after it": """
def f(S):
    for i in [1, 2]:
        a = S.x
    else:
        b = S.x
    return [a, b, S.x]
""",
    "a lambda": """
def f(S):
    g = lambda: S.x
    return [S.x, g(), S.x]
""",
    "the engine's memos": """
def f(S):
    return [S._memo, S._memo, S._kept, S._kept]
""",
}


@pytest.mark.parametrize("case", sorted(LEFT))
def test_reads_left_where_the_state_may_change_or_no_earlier_read_always_ran(case):
    text = _text(LEFT[case])
    assert "_sv" not in text
    assert ast.dump(state_reads(_function(LEFT[case]))) == ast.dump(_function(LEFT[case]))


def test_a_rule_function_given_the_state_does_not_stop_the_pass():
    text = _text("""
def f(S):
    a = S.x
    b = f_pure(S) + m_keyed_y(S) + _keyed_fill({}, (), S, 1, False)
    return [a, b, S.x]
""")
    assert "(_sv1 := S.x)" in text and "[a, b, _sv1]" in text


def test_no_local_where_no_later_read_uses_it():
    assert "_sv" not in _text("""
def f(S):
    a = S.x + S.y
    if a:
        return S.z
    return S.z
""")


def _guarded_check():
    builder = ModuleBuilder()
    fn_name = fuse.fused_check(builder, [(f"c{j}", ast.parse(f"S.boom({2 * j}) and S.x", mode="eval").body,
                                          ast.parse(f"S.boom({2 * j + 1}) and S.x", mode="eval").body, False)
                                         for j in range(3)])
    return builder, fn_name


class _Boom(Exception):
    pass


def _named(source, fn_name, target):
    space = {"_RuleRuntimeError": RuleRuntimeError, "_BalootError": BalootError, "_Exception": Exception,
             "_rule_at": rule_at}
    exec(compile(source, "<test>", "exec"), space)

    def boom(k):
        if k == target:
            raise _Boom(k)
        return True
    try:
        space[fn_name](SimpleNamespace(boom=boom, x=True, _memo={}), SimpleNamespace())
    except RuleRuntimeError as exc:
        return exc.rule_id
    return None


def test_a_guarded_function_names_the_same_rule_with_its_reads_kept(monkeypatch):
    builder, fn_name = _guarded_check()
    module._TEXTS.clear()
    source = builder.source()
    assert "(_sv1 := S.boom)(0)" in source and "_sv1(4)" in source and "_rule_at(" in source
    module._TEXTS.clear()
    monkeypatch.setattr(module, "state_reads", lambda function: function)
    before = builder.source()
    module._TEXTS.clear()
    assert "_sv" not in before
    named = [_named(source, fn_name, target) for target in range(7)]
    assert named == [_named(before, fn_name, target) for target in range(7)]
    assert sorted(set(named) - {None}) == ["c0", "c1", "c2"]


def test_the_default_rules_read_state_fields_once_where_nothing_writes_them():
    """The generic module: functions that keep a state field's read, none of them one that
    writes the state; the rules compute what they did (the cross-check and the whole suite)."""
    source = load_variant("default").python_source
    functions = re.split(r"\n(?=def )", source)
    kept = [f for f in functions if "(_sv1 := S." in f]
    assert len(kept) >= 5
    for text in kept:
        assert not re.search(r"\bS\.\w+(, )?\s*(,\s*)?=[^=]", text.split("\n", 1)[1]), text[:80]
