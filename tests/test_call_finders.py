"""A call event's candidate found by its values, a type test and a dict probe a parameter
(engine/call_finders.py), not by a signature of three new tuples hashed and compared: the same
candidate, or none, as `by_signature` gives for every event (tools/BENCHMARKS.md, step 108)."""

import random

import pytest

from baloot_spec.engine.call_finders import call_finder
from baloot_spec.engine.candidates import tables_of
from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import random_action, random_deck
from baloot_spec.rules import load_variant

PRESETS = ["default", "riyadh", "saudi-federation", "nl-rulebook", "online-apps"]


class _Text(str):
    pass


def _by_signature(table, action_type, event):
    try:
        return table.by_signature.get(table.signature_of[action_type](event))
    except TypeError:   # an unhashable value: no candidate
        return None


def _odd_values(value):
    """Values equal to `value`, or like it, of other types, and values of no candidate."""
    odd = [None, 0, 1, 0.0, 1.0, False, True, "", "nothing", [value], (value,), {"v": 1}]
    if isinstance(value, str):
        odd.append(_Text(value))
    return odd


def _events(action_type, names, fields):
    """The candidate's own event, each parameter left out, and each given an odd value."""
    yield {"type": action_type, **fields}
    yield {"type": action_type, **fields, "seat": "N", "extra": [1]}
    for name in names:
        yield {"type": action_type, **{k: v for k, v in fields.items() if k != name}}
        for odd in _odd_values(fields[name]):
            yield {"type": action_type, **fields, name: odd}


@pytest.mark.parametrize("preset", PRESETS)
def test_every_call_type_is_found_by_its_values_as_by_its_signature(preset):
    rules = load_variant(preset)
    tables = tables_of(rules)
    asked = 0
    for name, phase in rules.phases.items():
        table = tables[name]
        assert set(table.call_of) == set(table.call_fields)
        for action_type, fields in phase.call_candidates():
            names = table.call_fields[action_type][0]
            find = table.call_of[action_type]
            assert find.__name__ in ("find_none", "find_one", "find_two")   # not the signature fallback
            for event in _events(action_type, names, fields):
                assert find(event) is _by_signature(table, action_type, event), (preset, name, event)
                asked += 1
    assert asked > 100


def test_a_parameter_whose_candidates_are_of_mixed_types_keeps_the_signature():
    """0 and False are equal keys: one dict by value could not tell them apart."""
    by_signature = {("t", (0,), (int,)): "zero", ("t", (False,), (bool,)): "false"}

    def reader(event):
        value = event.get("v")
        return ("t", (value,), (type(value),))
    find = call_finder(("v",), (None,), [({"v": 0}, "zero"), ({"v": False}, "false")], reader, by_signature)
    assert find({"v": 0}) == "zero" and find({"v": False}) == "false" and find({"v": 0.0}) is None
    assert find({"v": []}) is None


def test_one_exact_type_tells_equal_values_of_another_type_from_a_candidate():
    find = call_finder(("v", "w"), (None, False), [({"v": 1, "w": False}, "a"), ({"v": 1, "w": True}, "b")],
                       None, {})
    assert find({"v": 1}) == "a" and find({"v": 1, "w": True}) == "b"
    assert find({"v": True}) is None and find({"v": 1.0}) is None and find({"v": 1, "w": 1}) is None
    assert find({"v": 2}) is None and find({"v": [1]}) is None


def test_a_candidate_that_leaves_a_parameter_out_has_its_default():
    """The signature reads a candidate's fields with the defaults (event.get(name, default)):
    so does the finder, rather than failing on the missing key when the table is made."""
    def reader(event):
        one, two = event.get("v", None), event.get("w", False)
        return ("t", (one, two), (type(one), type(two)))
    candidates = [({"v": 1}, "a"), ({"v": 1, "w": True}, "b")]
    by_signature = {reader(fields): action for fields, action in candidates}
    find = call_finder(("v", "w"), (None, False), candidates, reader, by_signature)
    assert find.__name__ == "find_two"
    for event in ({"v": 1}, {"v": 1, "w": False}, {"v": 1, "w": True}, {"w": True}, {"v": 1, "w": 1}):
        assert find(event) is by_signature.get(reader(event)), event


@pytest.mark.parametrize("preset", PRESETS)
def test_the_judgement_of_a_call_reads_no_signature(preset):
    """Every call of 20 random hands judged with the signature readers broken: the fast path
    finds each candidate by its values."""
    rules = load_variant(preset)
    tables = tables_of(rules)
    rng = random.Random(preset)

    def broken(event):
        raise AssertionError("a signature was read")
    saved = {name: dict(table.signature_of) for name, table in tables.by_name.items()}
    calls = 0
    try:
        for name, table in tables.by_name.items():
            table.signature_of = {action_type: broken for action_type in table.signature_of}
        for _ in range(20):
            hand = Hand(rules, "N", {"deck": random_deck(rules, rng)}, {"NS": 0, "EW": 0})
            while not hand.is_over():
                event = random_action(hand, rng)
                phase, target, _ = hand._judge(event)
                if "card" not in event:
                    calls += 1
                    assert target in hand._now[1].calls
                hand.apply(event)
    finally:
        for name, table in tables.by_name.items():
            table.signature_of = saved[name]
    assert calls > 20
