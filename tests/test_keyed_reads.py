"""A keyed derived value settled into a local read from its table in the function itself
(rules/passes/keyed_reads.py): which functions are keyed, which statements are rewritten, and
that a rewritten function computes what it did (hits, misses that fill the table, values that
are no key, failures), in the generated module and in a replay."""

from __future__ import annotations

import ast
import textwrap

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.rules import load_variant, module
from baloot_spec.rules.passes.keyed_reads import keyed_lookups, keyed_reads


def _functions(source: str) -> list:
    return ast.parse(textwrap.dedent(source)).body


KEYED = """
def f_seat(S, v=None):
    try:
        return k__keyed_seat[S.actor][S.dealer]
    except _KeyMiss:
        pass
    return _keyed_fill(k__keyed_seat, k__keyed_fields_seat, S, m_keyed_seat(S), False)

def f_memo(S):
    try:
        kept = S._kept
    except _AttributeError:
        return S.a
    return kept

def f_other(S):
    try:
        return k__keyed_seat[S.actor]
    except _KeyMiss:
        pass
    return 1
"""

USER = """
def narrow(S, C):
    try:
        _h_seat = f_seat(S)
        if C:
            _h_again = f_seat(S)
            x = f_seat(S, 1)
            y = f_memo(S)
            z = [f_seat(S)]
        K = [_h_seat, _h_again if C else None]
    except _BalootError:
        raise
    except _Exception:
        return None
    return K
"""


def test_keyed_lookups_finds_keyeds_front_functions_only():
    found = keyed_lookups(_functions(KEYED))
    assert list(found) == ["f_seat"]   # (f_other's table is another value's: left)
    assert ast.unparse(found["f_seat"]) == "k__keyed_seat[S.actor][S.dealer]"


def test_a_settled_read_becomes_the_table_read_then_the_call_on_a_miss():
    function = keyed_reads(_functions(USER)[0], keyed_lookups(_functions(KEYED)))
    text = ast.unparse(ast.fix_missing_locations(function))
    assert "try:\n        try:\n            _h_seat = k__keyed_seat[S.actor][S.dealer]\n        except _KeyMiss:\n" \
           "            _h_seat = f_seat(S)" in text
    assert "_h_again = k__keyed_seat[S.actor][S.dealer]" in text   # (in a nested block too)
    assert "x = f_seat(S, 1)" in text and "y = f_memo(S)" in text and "z = [f_seat(S)]" in text   # (left)


class _Key:
    """A key whose hash fails with something that is no miss."""

    def __hash__(self):
        raise ValueError("no hash")


def _run(source: str, rewrite: bool, state: dict, table: dict):
    fronts = _functions(KEYED)
    user = _functions(USER)[0]
    if rewrite:
        user = keyed_reads(user, keyed_lookups(fronts))
    calls = []

    def keyed_fill(tbl, fields, S, value, lists):
        tbl.setdefault(S.actor, {})[S.dealer] = value
        return value

    def m_keyed_seat(S):
        calls.append((S.actor, S.dealer))
        return f"{S.actor}-{S.dealer}"
    space = {"k__keyed_seat": table, "k__keyed_fields_seat": (), "_keyed_fill": keyed_fill, "m_keyed_seat": m_keyed_seat,
             "_KeyMiss": (KeyError, TypeError, AttributeError), "_AttributeError": AttributeError,
             "_BalootError": RuntimeError, "_Exception": Exception}
    module_tree = ast.Module(body=[*fronts, user], type_ignores=[])
    exec(compile(ast.fix_missing_locations(module_tree), "<test>", "exec"), space)

    class S:
        pass
    s = S()
    for field, value in state.items():
        setattr(s, field, value)
    results = [space["narrow"](s, C) for C in ([1], [], [1])]
    return results, calls, table


@pytest.mark.parametrize("state, table", [
    ({"actor": "N", "dealer": "E", "a": 1}, {}),                       # a miss, then hits
    ({"actor": "N", "dealer": "E", "a": 1}, {"N": {"E": "kept"}}),     # hits
    ({"actor": "N", "dealer": "W", "a": 1}, {"N": {"E": "kept"}}),     # a row without the entry
    ({"actor": ["no", "key"], "dealer": "E", "a": 1}, {}),             # a value that is no key
    ({"dealer": "E", "a": 1}, {}),                                     # a field not set
    ({"actor": _Key(), "dealer": "E", "a": 1}, {}),                    # a lookup failing otherwise
])
def test_the_same_values_calls_and_table_as_the_call(state, table):
    plain = _run(USER, False, state, {k: dict(v) for k, v in table.items()})
    rewritten = _run(USER, True, state, {k: dict(v) for k, v in table.items()})
    assert rewritten == plain


def test_a_function_naming_its_rule_by_line_is_left(monkeypatch):
    guarded = _functions(USER.replace("return None", "raise _RuleRuntimeError('r', 1)"))[0]
    lookups = keyed_lookups(_functions(KEYED))
    module._TEXTS.clear()
    assert "k__keyed_seat" not in module.function_text(guarded, lookups, b"k")


def test_the_texts_memo_tells_the_lookups_apart():
    lookups = keyed_lookups(_functions(KEYED))
    user = _functions(USER)[0]
    module._TEXTS.clear()
    plain = module.function_text(user)
    keyed = module.function_text(user, lookups, b"k")
    assert "k__keyed_seat" not in plain and "k__keyed_seat[S.actor][S.dealer]" in keyed
    assert module.function_text(user) == plain and module.function_text(user, lookups, b"k") == keyed
    module._TEXTS.clear()


def test_the_default_rules_read_the_calls_narrows_keyed_values_from_their_tables():
    source = load_variant("default").python_source
    assert "_h_ashkal_seat = k__keyed_ashkal_seat[S.actor][S.dealer]\n        except _KeyMiss:\n" \
           "            _h_ashkal_seat = f_ashkal_seat(S)" in source
    assert "_h_next_step = k__keyed_next_step[" in source
    assert "= f_ashkal_seat(S)\n" in source   # (the call kept for a miss)


def test_a_replayed_bidding_calls_no_keyed_function_once_its_table_holds_the_entries(monkeypatch):
    import sys
    sys.path.insert(0, "tools")
    from bench import record_hands
    rules = load_variant("default")
    hands = record_hands(rules, 30, 3)

    def replay():
        for dealer, deal, scores, events in hands:
            hand = Hand(rules, dealer, deal, scores)
            for event in events:
                hand.legal()
                hand.apply(event)
    replay()   # (the tables filled as positions ask)
    namespace = next(f.__globals__ for phase in Hand(rules, *hands[0][:3])._phases.values()
                     for f in (getattr(phase, "effects", None) or {}).values()
                     if "f_ashkal_seat" in getattr(f, "__globals__", {}))
    calls = []
    for name in ("f_ashkal_seat", "f_next_step"):
        real = namespace[name]
        monkeypatch.setitem(namespace, name, lambda S, real=real, name=name: calls.append(name) or real(S))
    replay()
    assert calls == []
