"""A declared state field typed from its initial value and the effects that set it
(rules/passes/state_types.py), kept only where it holds records: then a field of its items is read
by subscript (`d['seat']` for the `{seat, name}` records of `declared`), with the same value."""

from baloot_spec.expr import types as ty
from baloot_spec.expr.scope import Scope
from baloot_spec.rules import load_variant
from baloot_spec.rules.passes.state_types import state_types

RECORD = ty.Type("record", fields=(("seat", ty.ANY), ("name", ty.ANY)))


def _infer(setters: dict, initial: dict, excluded=frozenset()):
    guesses: dict = {}
    scope = Scope(state=frozenset(initial) | {"actor"}, action=frozenset({"names"}), state_types=guesses,
                  attributes=frozenset({"seat", "name"}), builtins={"len": (1, 1), "flatten": (1, 1)})
    effects = [{"phase": "p", "set": {name: text}} for name, texts in setters.items() for text in texts]
    found = state_types(effects, lambda effect: scope, initial, excluded, guesses)
    assert guesses == {}   # (the guesses are gone once the types are found)
    return found


def test_a_list_appended_records_is_a_list_of_records():
    found = _infer({"declared": ["declared + [{seat: actor, name: n} for n in names]"]}, {"declared": []})
    assert found == {"declared": ty.list_of(RECORD)}


def test_every_effect_must_store_records_with_the_same_fields():
    assert _infer({"d": ["d + [{seat: actor, name: 'x'}]", "d + [{seat: actor}]"]}, {"d": []}) == {}
    assert _infer({"d": ["d + [{seat: actor, name: 'x'}]", "[]"]}, {"d": []}) == {"d": ty.list_of(
        ty.Type("record", fields=(("seat", ty.ANY), ("name", ty.TEXT))))}
    assert _infer({"d": ["d + [{seat: actor, name: 'x'}]", "names"]}, {"d": []}) == {}   # (what an action gives)
    assert _infer({"d": ["d + [{seat: actor, name: 'x'}]", "other"], "other": ["other + [actor]"]},
                  {"d": [], "other": []}) == {}
    # (a field no effect sets stays its empty initial list: storing it adds no other items)
    assert _infer({"d": ["d + [{seat: actor, name: 'x'}]", "other"]}, {"d": [], "other": []}) != {}


def test_a_field_read_through_another_is_typed_through_the_fixed_point():
    found = _infer({"a": ["a + [{seat: actor, name: 1}]"], "b": ["a", "b + a"]}, {"a": [], "b": []})
    assert found["a"] == found["b"] == ty.list_of(ty.Type("record", fields=(("seat", ty.ANY), ("name", ty.INT))))


def test_what_holds_no_records_or_cannot_be_known_stays_unknown():
    assert _infer({"n": ["n + 1"], "s": ["s + [actor]"]}, {"n": 0, "s": []}) == {}
    assert _infer({"d": ["d + [{seat: actor, name: zzz}]"]}, {"d": []}) == {}   # (does not check: reported later)
    assert _infer({"d": ["d + [{seat: actor, name: 'x'}]"]}, {"d": []}, excluded=frozenset({"d"})) == {}
    assert _infer({}, {"d": []}) == {}   # (never set: a list of nothing known)


def test_the_default_rules_read_the_declarations_seats_by_subscript():
    source = load_variant("default").python_source
    for name in ("f_declaration_order", "f_declared_projects"):
        body = source.split(f"def {name}(", 1)[1].split("\ndef ", 1)[0]
        assert "['seat']" in body and ".seat" not in body, body
