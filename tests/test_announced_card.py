"""Step 98 (tools/BENCHMARKS.md): a card said with announcements is matched to its shared action
by C-level reads of the event (engine/candidates.py `card_action`: no loop over the annotations,
no generator per list), and a LazyMap copies what its entries read into an instance with no
`__init__` to run. Nothing a user sees changes: card_action is checked against the loop it was."""

import sys

import pytest

from baloot_spec.engine import candidates
from baloot_spec.expr import builtins as builtins_module
from baloot_spec.expr.builtins import LazyMap
from baloot_spec.rules import load_variant


@pytest.fixture(scope="module")
def rules():
    return load_variant()


def _play_table(rules):
    tables = candidates.tables_of(rules)
    phase = rules.phases[tables.play_phase]
    return phase, tables[tables.play_phase]


def _by_loop(phase, table, event):
    """card_action as it was: each annotation read and tested in a loop (the reference)."""
    if event.get("type") != table.play_type:
        return None
    base = table.by_signature.get(event.get("card"))
    if base is None:
        return None
    values = []
    for name, default in phase.annotations.items():
        value = event.get(name, default)
        if type(default) is bool:
            if type(value) is not bool:
                return None
        elif type(default) is list:
            if type(value) is not list or not all(type(v) is str for v in value):
                return None
            value = tuple(value)
        else:
            return None
        values.append(value)
    if values == table.default_annotations:
        return base
    return candidates.announced_action(phase, table, base.card, tuple(values))


class _Meta(type):
    def __eq__(cls, other):
        return True

    __hash__ = type.__hash__


class _Str(str):
    pass


def _events(phase, table):
    """Card events with every kind of annotation value, right and wrong."""
    play = table.play_type
    bools = [name for name, default in phase.annotations.items() if type(default) is bool]
    lists = [name for name, default in phase.annotations.items() if type(default) is list]
    assert bools and lists   # (the rules' play phase has both kinds)
    odd = _Meta("Odd", (), {})()
    events = [{"type": play, "card": "AS"}, {"type": "bid", "card": "AS"}, {"type": play, "card": "ZZ"},
              {"type": play, "card": "AS", **{name: False for name in bools}, **{name: [] for name in lists}}]
    for name in bools:
        events += [{"type": play, "card": "KH", name: value} for value in (True, False, 1, 0, "true", None, odd)]
    for name in lists:
        events += [{"type": play, "card": "QS", name: value}
                   for value in (["sira"], ["sira", "sira"], ["fifty", "sira"], [], "sira", ("sira",), [1], [None],
                                 [_Str("sira")], ["sira", 1], None, odd)]
    events.append({"type": play, "card": "QS", **{name: True for name in bools}, **{name: ["sira"] for name in lists}})
    return events


def test_card_action_gives_what_the_loop_gave(rules):
    phase, table = _play_table(rules)
    for event in _events(phase, table):
        fast, slow = candidates.card_action(phase, table, event), _by_loop(phase, table, event)
        assert fast is slow, event   # (the same shared action, or None for both)


def test_card_action_runs_no_python_frame_of_its_own(rules):
    """The values are read and their types tested by C-level maps: no generator per list (the
    loop ran one for each list said), and nothing but announced_action is called."""
    phase, table = _play_table(rules)
    name = next(name for name, default in phase.annotations.items() if type(default) is list)
    event = {"type": table.play_type, "card": "QS", name: ["sira", "fifty"]}
    action = candidates.card_action(phase, table, event)   # (made and kept the first time)
    called = []

    def profile(frame, what, arg):
        if what == "call":
            called.append(frame.f_code.co_name)
    sys.setprofile(profile)
    try:
        again = candidates.card_action(phase, table, event)
    finally:
        sys.setprofile(None)
    assert again is action and set(called) <= {"card_action", "announced_action"}, called


# ---- LazyMap -------------------------------------------------------------------------------------
def test_a_lazy_map_is_made_without_a_values_init(monkeypatch):
    def refused(self, **values):
        raise AssertionError("Values.__init__ ran")
    monkeypatch.setattr(builtins_module.Values, "__init__", refused)

    class State:
        x, y = 10, 20
    lazy = LazyMap([1, 2, 1], lambda frozen, key: frozen.x + frozen.y + key, State(), ("x", "y"))
    assert dict(lazy) == {1: 31, 2: 32}
