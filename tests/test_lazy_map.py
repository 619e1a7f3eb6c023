"""A `map(...)` that an entering phase sets is filled in lazily only where nobody could tell:
its entries read state that nothing changes for the rest of the hand. The compiler decides that
from the generic fields the engine changes (ENGINE_WRITES), the effects' targets and the phases
that can follow; these tests check each of those against what really happens."""

import ast
import copy
import json
import pickle
import random

import pytest

from baloot_spec.engine.hand import Hand, _copied
from baloot_spec.engine.random_play import play_random_hand
from baloot_spec.engine.state import ENGINE_WRITES
from baloot_spec.expr.builtins import LazyMap, Rec
from baloot_spec.rules import load_variant
from baloot_spec.rules.passes.flow import following as phases_following

PRESETS = ("default", "nl-rulebook", "saudi-federation", "riyadh", "online-apps")

# projects.find as shipped, written to read each seat's current hand as well: `hands` changes
# with every card played, so this map must be worked out when the phase is entered.
EAGER_OVERLAY = '''overlay: projects-read-the-hands
title: projects found from the cards as dealt, with a read of the hands that changes nothing
source: "choice: test"
replace:
  - id: projects.find
    phase: play
    at: enter
    set: {projects: "map(best_projects(dealt[s]) if len(hands[s]) >= 0 else [] for s in all_seats)"}
    source: "de: Projekte"
'''


def _fields(state) -> dict:
    return {name: _copied(getattr(state, name)) for name in state._fields}


@pytest.mark.parametrize("preset", PRESETS)
def test_the_engine_changes_no_generic_field_that_engine_writes_leaves_out(preset, monkeypatch):
    rules = load_variant(preset)
    generic = set(Hand(rules, "N", {"deck": [c.text for c in rules.deck.cards]}).state._fields) - set(rules.state_init)
    entered = []
    real_enter = Hand._enter
    monkeypatch.setattr(Hand, "_enter", lambda self, name: (entered.append(name), real_enter(self, name))[1])
    checked = 0
    for number in range(60):
        played = play_random_hand(rules, random.Random(f"{preset}:{number}"), "N")
        hand = Hand(rules, "N", played.deal_spec)
        for event in played.events:
            kinds = {rules.phases[hand.phase].kind}
            before = _fields(hand.state)
            entered.clear()
            hand.apply(event)
            kinds |= {rules.phases[name].kind for name in entered if name in rules.phases}
            allowed = set(ENGINE_WRITES["*"]).union(*(ENGINE_WRITES[kind] for kind in kinds))
            after = _fields(hand.state)
            changed = {name for name in generic if after[name] != before[name]}
            assert changed <= allowed, (preset, number, event, kinds, changed - allowed)
            checked += 1
    assert checked > 1000


def test_the_shipped_projects_are_lazy_and_equal_to_the_eager_ones(tmp_path):
    overlay = tmp_path / "eager.yaml"
    overlay.write_text(EAGER_OVERLAY, encoding="utf-8")
    lazy_rules, eager_rules = load_variant(), load_variant(overlays=[str(overlay)])
    best = lazy_rules.functions["best_projects"]
    compared = 0
    for number in range(40):
        played = play_random_hand(lazy_rules, random.Random(number), "N")
        other = Hand(eager_rules, "N", played.deal_spec)
        for event in played.events:
            other.apply(event)
        assert other.result() == played.result()
        if played.result()["thrown_in"]:
            continue   # (the play phase was never entered)
        assert type(played.state.projects) is LazyMap and type(other.state.projects) is Rec
        assert played.state.projects == other.state.projects
        assert played.state.projects == {s: best(played.state, played.state.dealt[s]) for s in played.state.all_seats}
        compared += 1
    assert compared > 30


def test_an_entry_reading_state_that_changes_later_is_worked_out_at_once(tmp_path):
    overlay = tmp_path / "eager.yaml"
    overlay.write_text(EAGER_OVERLAY, encoding="utf-8")
    assert "_LazyMap(" in load_variant().python_source
    assert "_LazyMap(" not in load_variant(overlays=[str(overlay)]).python_source


def test_a_next_that_is_not_made_of_phase_names_may_lead_to_any_phase():
    texts = {"bidding": "('over' if S.thrown_in else 'play')", "play": "'score'", "score": "S.after_score",
             "loop": "'loop'"}
    following = phases_following({name: ast.parse(text, mode="eval").body for name, text in texts.items()})
    assert following["play"] == {"score", "bidding", "play", "loop"}   # score may lead anywhere
    assert following["loop"] == {"loop"}
    assert following["bidding"] >= {"play", "score", "bidding"}


def _lazy():
    class Frozen:
        x = 10
    worked_out = []

    def entry(frozen, key):
        worked_out.append(key)
        return frozen.x + key
    return LazyMap([3, 1, 2], entry, Frozen(), ("x",)), worked_out


def test_a_lazy_map_works_out_an_entry_once_when_it_is_first_read():
    lazy, worked_out = _lazy()
    assert lazy[1] == 11 and lazy[1] == 11 and lazy.get(2) == 12 and worked_out == [1, 2]
    assert 3 in lazy and 4 not in lazy and len(lazy) == 3 and lazy.get(4, "none") == "none"
    with pytest.raises(KeyError):
        lazy[4]
    assert worked_out == [1, 2]


@pytest.mark.parametrize("view", [
    lambda m: list(m.items()), lambda m: list(m.values()), lambda m: list(m), lambda m: dict(m),
    lambda m: {**m}, lambda m: json.loads(json.dumps(m)), lambda m: pickle.loads(pickle.dumps(m)),
    lambda m: copy.deepcopy(m), lambda m: m.copy(), lambda m: eval(repr(m))])
def test_every_view_of_a_whole_lazy_map_is_the_eager_map_in_key_order(view):
    lazy, _ = _lazy()
    lazy[2]   # one entry worked out before the others: the order must still be the keys'
    seen = view(lazy)
    if isinstance(seen, dict):
        seen = {int(k): v for k, v in seen.items()}
        assert list(seen) == [3, 1, 2] and seen == {3: 13, 1: 11, 2: 12}
    else:
        assert seen in ([(3, 13), (1, 11), (2, 12)], [13, 11, 12], [3, 1, 2])
    assert lazy == {3: 13, 1: 11, 2: 12} and not (lazy != {3: 13, 1: 11, 2: 12})


def test_copies_of_a_hand_share_the_lazy_projects_safely():
    rules = load_variant()
    for number in range(30):
        played = play_random_hand(rules, random.Random(number), "N")
        hand = Hand(rules, "N", played.deal_spec)
        plays = [i for i, e in enumerate(played.events) if e["type"] == "play"]
        if not plays:
            continue
        for event in played.events[:plays[0] + 5]:
            hand.apply(event)
        fork = hand.copy()
        for event in played.events[plays[0] + 5:]:
            fork.apply(event)
        for event in played.events[plays[0] + 5:]:
            hand.apply(event)
        assert fork.result() == hand.result() == played.result()
        assert fork.state.projects == hand.state.projects


FAILING_OVERLAY = '''overlay: projects-fail-for-north
title: North's projects cannot be worked out
source: "choice: test"
replace:
  - id: projects.find
    phase: play
    at: enter
    set: {projects: "map(best_projects(dealt[s]) if s != 'N' else dealt[s][99] for s in all_seats)"}
    source: "de: Projekte"
'''


def test_an_entry_that_fails_is_reported_under_the_effect_id(tmp_path):
    from baloot_spec.errors import RuleRuntimeError
    overlay = tmp_path / "failing.yaml"
    overlay.write_text(FAILING_OVERLAY, encoding="utf-8")
    rules = load_variant(overlays=[str(overlay)])
    assert "_LazyMap(" in rules.python_source
    played = play_random_hand(load_variant(), random.Random(3), "N")
    hand = Hand(rules, "N", played.deal_spec)
    for event in played.events:
        if hand.phase == "play":
            break
        hand.apply(event)
    assert hand.phase == "play" and hand.state.projects["E"] is not None
    with pytest.raises(RuleRuntimeError) as failed:
        hand.state.projects["N"]
    assert failed.value.rule_id == "projects.find" and "IndexError" in str(failed.value)


def test_a_key_given_twice_is_one_entry():
    class Frozen:
        pass
    lazy = LazyMap(["N", "E", "N"], lambda frozen, key: key * 2, Frozen(), ())
    assert len(lazy) == 2 and list(lazy) == ["N", "E"] and lazy == {"N": "NN", "E": "EE"}
