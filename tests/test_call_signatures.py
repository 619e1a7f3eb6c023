"""How a call event is matched to its candidate (engine/candidates.py, `signature`): the per-type
readers must give exactly the key under which the candidate table holds the candidate, for
every call of every preset, and keep apart values Python calls equal (0 and False)."""

import pytest

from baloot_spec.engine.candidates import call_signature, signature, tables_of
from baloot_spec.rules import load_variant
from baloot_spec.rules.loader import load_presets


@pytest.mark.parametrize("preset", sorted(load_presets()))
def test_every_candidate_call_is_found_by_its_own_event(preset):
    rules = load_variant(preset)
    tables = tables_of(rules)
    checked = 0
    for name, phase in rules.phases.items():
        if phase.kind != "calls":
            continue
        table = tables[name]
        for action in table.calls:
            event = {**action._event, "seat": "N"}
            assert table.by_signature[signature(phase, table, event)] is action
            names, defaults = table.call_fields[action.type]
            assert signature(phase, table, event) == call_signature(action.type, tuple(map(event.get, names, defaults)))
            checked += 1
    assert checked >= 15


def test_a_value_equal_in_python_but_of_another_type_is_another_signature():
    rules = load_variant()
    tables = tables_of(rules)
    phase, table = rules.phases["doubling"], tables["doubling"]
    double = {"type": "double", "call": "double", "closed": False, "seat": "E"}
    assert signature(phase, table, double) in table.by_signature
    assert signature(phase, table, {**double, "closed": 0}) not in table.by_signature
    # a field left out reads as its default: the same candidate as with the default spelled out
    passing = {"type": "double", "call": "pass", "seat": "E"}
    found = table.by_signature[signature(phase, table, passing)]
    assert found is table.by_signature[signature(phase, table, {**passing, "closed": False})]
    assert found.call == "pass" and found.closed is False
    assert signature(phase, table, {"type": "no-such-call", "seat": "E"}) is None
