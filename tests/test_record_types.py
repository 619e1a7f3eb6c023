"""A field read off a value the typed tree knows is a record with that field (a `{seat, project}`
literal, the items of a comprehension of them, through `flatten` and `unique`, a derived value's
result) is read by subscript, even where the field's name is also an engine attribute (`seat`,
which a play has too, so it is no `record_fields` name): the same value, no __getattribute__
frame. A value of unknown type keeps the attribute read, and so does a name the record has of its
own (a dict method), which the attribute read answers with the method."""

import re

import pytest

from baloot_spec.cards import Table
from baloot_spec.expr import types as ty
from baloot_spec.expr.builtins import Rec, make_builtins
from baloot_spec.expr.compiler import Scope, to_python
from baloot_spec.expr.parse import parse
from baloot_spec.expr.resolve import resolve
from baloot_spec.rules import load_variant
from baloot_spec.rules.compiled import SAFE_PY_BUILTINS

_ATTRIBUTES = frozenset({"seat", "name", "items", "value"})


def _scope(**state) -> Scope:
    return Scope(state=frozenset(state), attributes=_ATTRIBUTES, record_fields=frozenset({"name", "value"}),
                 builtins={"flatten": (1, 1), "unique": (1, 1), "len": (1, 1)})


def _run(text, **state):
    source = to_python(text, _scope(**state))
    namespace = {"__builtins__": SAFE_PY_BUILTINS, "_R": Rec,
                 **make_builtins(Table(["N", "W", "S", "E"], {"NS": ["N", "S"], "EW": ["E", "W"]}))}
    exec(compile(f"def f(S):\n    return {source}\n", "<test>", "exec"), namespace)
    return source, namespace["f"](Rec(state))


def _type(text, **state) -> ty.Type:
    return resolve(parse(text), _scope(**state)).type


def test_a_record_literals_field_is_read_by_subscript_with_the_same_value():
    source, value = _run("{seat: 'N', name: 'x'}.seat")
    assert "['seat']" in source and ".seat" not in source
    assert value == "N"


@pytest.mark.parametrize("text", [
    "[d.seat for d in [{seat: s, name: 'a'} for s in xs]]",
    "[d.seat for d in flatten([[{seat: s, name: 'a'} for s in xs], [{seat: 'E', name: 'b'}]])]",
    "[d.seat for d in unique([{seat: s, name: 'a'} for s in xs])]",
    "[d.seat for d in unique(flatten([[{seat: s, name: 'a'}] for s in xs]))]",
])
def test_the_items_of_lists_of_records_are_still_records(text):
    source, value = _run(text, xs=["N", "W"])
    assert ".seat" not in source and "['seat']" in source
    assert value[:2] == ["N", "W"]


def test_flatten_and_unique_pass_their_items_type_through():
    record = ty.Type("record", fields=(("seat", ty.TEXT),))
    assert _type("flatten([[{seat: 'N'}]])") == ty.list_of(record)
    assert _type("unique([{seat: 'N'}])") == ty.list_of(record)
    # what they cannot know stays unknown: items of unknown lists, a list that is no list of lists
    assert _type("flatten(xs)", xs=[]) == ty.list_of(ty.ANY)
    assert _type("flatten([1, 2])") == ty.list_of(ty.ANY)
    assert _type("unique(xs)", xs=[]) == ty.list_of(ty.ANY)


def test_an_unknown_value_keeps_the_attribute_read():
    source, value = _run("[d.seat for d in xs]", xs=[Rec(seat="N")])
    assert "_l1.seat" in source or re.search(r"\w+\.seat", source)
    assert value == ["N"]


def test_a_name_the_record_has_of_its_own_keeps_the_attribute_read():
    source, value = _run("{items: 1}.items")
    assert "['items']" not in source
    assert callable(value)   # (the dict's method, as before: a field cannot hide it)


def test_the_default_rules_read_seats_of_declared_projects_by_subscript():
    source = load_variant("default").python_source
    for name in ("f_credited_projects", "f_best_project_key", "f_project_winner_team"):
        body = source.split(f"def {name}(", 1)[1].split("\ndef ", 1)[0]
        assert "['seat']" in body
        assert re.search(r"_l\d+\.seat\b", body) is None, name


def test_records_with_the_same_fields_join_field_by_field():
    a = ty.Type("record", fields=(("seat", ty.SEAT), ("name", ty.TEXT)))
    b = ty.Type("record", fields=(("seat", ty.ANY), ("name", ty.TEXT)))
    assert ty.join(a, b) == ty.Type("record", fields=(("seat", ty.ANY), ("name", ty.TEXT)))
    assert ty.join(a, ty.Type("record", fields=(("seat", ty.SEAT),))) == ty.ANY
    assert ty.join(a, ty.Type("record", fields=(("name", ty.TEXT), ("seat", ty.SEAT)))) == ty.ANY
