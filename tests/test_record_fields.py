"""A field only a record can have (a project's `value`, a declaration's `name`) is read by
subscript, not through the record's Python __getattribute__. That must not change what any
expression computes: the same value on a record, still a failure where the read fails (a card
has no `value`), and a name some other value has of its own (a card's `text`, a string's `count`,
a record's `items`) is never read that way."""

import re

import pytest

from baloot_spec.cards import Table
from baloot_spec.expr.builtins import Rec, make_builtins
from baloot_spec.expr.compiler import Scope, to_python
from baloot_spec.rules import load_variant
from baloot_spec.rules.scopes import PYTHON_ATTRIBUTES as _PYTHON_ATTRIBUTES
from baloot_spec.rules.compiled import SAFE_PY_BUILTINS


def _run(text, **state):
    scope = Scope(state=frozenset(state), attributes=frozenset({"suit", "value", "name", "items", "count"}),
                  record_fields=frozenset({"value", "name"}))
    source = to_python(text, scope)
    namespace = {"__builtins__": SAFE_PY_BUILTINS, "_R": Rec,
                 **make_builtins(Table(["N", "W", "S", "E"], {"NS": ["N", "S"], "EW": ["E", "W"]}))}
    exec(compile(f"def f(S):\n    return {source}\n", "<test>", "exec"), namespace)
    return source, namespace["f"](Rec(state))


def test_a_record_field_is_read_by_subscript_with_the_same_value():
    source, value = _run("p.value + sum(q.value for q in ps)", p=Rec(value=3), ps=[Rec(value=1), Rec(value=2)])
    assert "['value']" in source and ".value" not in source
    assert value == 6
    assert _run("{name: 'x', value: 2}.name")[1] == "x"


def test_reading_it_off_something_else_still_fails():
    class Card:
        suit = "H"
    with pytest.raises(Exception):
        _run("c.value", c=Card())
    with pytest.raises(Exception):
        _run("p.value", p=Rec(name="x"))   # a record without the field


def test_names_python_values_have_are_not_record_fields():
    assert {"count", "index", "items", "keys", "get", "real", "upper"} <= _PYTHON_ATTRIBUTES
    # nor a name the engine's own objects have: a card's text, a trick's leader (a rule may
    # build a record with such a field and still read it off a card)
    assert {"text", "rank", "suit", "leader", "plays", "winner", "seat", "card"} <= _PYTHON_ATTRIBUTES
    source, _ = _run("p.suit", p=Rec(suit="H"))
    assert source == "S.p.suit"


def test_the_default_rules_read_project_fields_by_subscript():
    # (that the scoring chain still computes the same is what tools/crosscheck.py and the
    # oracle's cases check, hand by hand: tests/test_crosscheck.py runs them)
    source = load_variant("default").python_source
    assert "['project']" in source and "['value']" in source and "['kind']" in source
    # (no such field read as an attribute of a loop variable, a parameter or an item)
    assert re.search(r"(?:_l\d+|v_[a-z_0-9]+|\])\.(project|value|kind|key)\b", source) is None
