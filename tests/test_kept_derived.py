"""Derived values kept across events (`S._kept`, rules/passes/kept.py): a derived value that reads
only the rules' own fields (or the generic ones fixed when the state is made) is worked out once
while no effect writes what it reads, then replaced by exactly the effects that do. Checked
against the value worked out afresh at every event of random hands in every preset and under
random knobs, and on its parts (which values are kept, the effects' resets, a copied hand)."""

import ast
import random
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from baloot_spec.engine.hand import Hand
from baloot_spec.engine.random_play import random_action, random_deck
from baloot_spec.errors import BalootError, RuleRuntimeError
from baloot_spec.rules import load_variant
from baloot_spec.rules.fuse import fused_effects
from baloot_spec.rules.module import ModuleBuilder
from baloot_spec.rules.passes.kept import kept_fields
from baloot_spec.rules.passes.rule_lines import rule_at

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import knob_fuzz  # noqa: E402

PRESETS = ["default", "riyadh", "saudi-federation", "nl-rulebook", "online-apps"]


def _kept_names(rules) -> list:
    """The derived values whose generated function keeps its value in S._kept."""
    tree = ast.parse(rules.python_source)
    return sorted(fn.name[2:] for fn in tree.body if isinstance(fn, ast.FunctionDef) and fn.name.startswith("f_")
                  and any(isinstance(n, ast.Attribute) and n.attr == "_kept" for n in ast.walk(fn)))


def _check_every_kept_value(rules, hand, names, seen) -> None:
    """Each kept value read now (it may come from S._kept) equals the value worked out afresh."""
    S = hand.state
    for name in names:
        fn = rules.functions[name]
        was_kept = name in S._kept
        try:
            value = fn(S)
        except (BalootError, Exception) as exc:   # (a value undefined here: afresh it fails the same way)
            saved, S._kept = S._kept, {}
            with pytest.raises(type(exc)):
                fn(S)
            S._kept = saved
            continue
        saved, S._kept = S._kept, {}
        fresh = fn(S)
        S._kept = saved
        assert value == fresh and type(value) is type(fresh), (name, S.phase, value, fresh)
        seen["reused" if was_kept else "computed"] += 1


def _play_checked(rules, rng, names, seen, match_scores=None) -> Hand:
    hand = Hand(rules, rng.choice(rules.table.seats), {"deck": random_deck(rules, rng)}, match_scores)
    _check_every_kept_value(rules, hand, names, seen)
    while not hand.is_over():
        action = random_action(hand, rng)   # (a legal event, with every announcement allowed: projects declared)
        _check_every_kept_value(rules, hand, names, seen)
        hand.apply(action)
        _check_every_kept_value(rules, hand, names, seen)
    return hand


@pytest.mark.parametrize("preset", PRESETS)
def test_every_kept_value_is_the_fresh_one_at_every_event(preset):
    rules = load_variant(preset)
    names = _kept_names(rules)
    assert names   # (every preset keeps some: the projects' values at least)
    rng = random.Random(f"kept-{preset}")
    teams = list(rules.table.teams)
    seen = {"reused": 0, "computed": 0}
    for k in range(30):
        scores = {team: rng.choice([0, 40, 101, 120, 150]) for team in teams} if k % 2 else None
        _play_checked(rules, rng, names, seen, scores)
    assert seen["reused"] > seen["computed"] > 0   # (kept across events, and worked out again after writes)


def test_every_kept_value_is_the_fresh_one_under_random_knobs():
    choices = knob_fuzz.knob_choices()
    rng = random.Random("kept-knobs")
    played = 0
    for _ in range(8):
        try:
            rules = load_variant("default", knob_fuzz.draw(choices, rng))
        except BalootError:   # (a combination the rules refuse)
            continue
        names = _kept_names(rules)
        seen = {"reused": 0, "computed": 0}
        for _ in range(4):
            _play_checked(rules, rng, names, seen)
        played += 1
    assert played >= 4


def test_the_projects_values_are_kept_and_the_trick_s_are_not():
    names = _kept_names(load_variant())
    assert {"declared_projects", "credited_projects", "project_winner_team", "sun_double_allowed"} <= set(names)
    assert not {"led_suit", "winning", "partner_winning", "void_in_led", "baloot_holder"} & set(names)


def _e(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def test_which_bodies_can_be_kept():
    declared = {"declared", "projects", "level"}
    bodies = {"f_inner": _e("S.level + 1"), "f_moving": _e("len(S.trick)")}
    assert kept_fields(_e("S.declared + [S.level]"), bodies, declared) == {"declared", "level"}
    assert kept_fields(_e("f_inner(S) * 2"), bodies, declared) == {"level"}        # (through a rule function)
    assert kept_fields(_e("S.match_scores['a']"), bodies, declared) == {"match_scores"}   # (fixed when made)
    assert kept_fields(_e("f_moving(S)"), bodies, declared) is None                # (the engine changes it)
    assert kept_fields(_e("S.actor"), bodies, declared) is None                    # (the engine writes it)
    assert kept_fields(_e("S.undeclared"), bodies, declared) is None               # (not the rules' own)
    assert kept_fields(_e("g(S)"), bodies, declared) is None                       # (S passed whole)
    assert kept_fields(_e("f_unknown(S)"), bodies, declared) is None


def _compiled(effects, kept):
    builder = ModuleBuilder()
    fn = fused_effects(builder, [(i, _e(w), _e(v), names) for i, w, v, names in effects], kept=kept)
    source = builder.source()
    space = {"_RuleRuntimeError": RuleRuntimeError, "_BalootError": BalootError, "_Exception": Exception,
             "_rule_at": rule_at, "f_double": lambda S: S._kept.setdefault("double", S.n * 2)}
    exec(compile(source, "<test>", "exec"), space)
    return space[fn]


def test_an_effect_writing_what_a_kept_value_reads_replaces_the_kept_values():
    fn = _compiled([("e.first", "f_double(S) > 0", "(S.n + 1,)", ("n",)),   # fills S._kept, then writes n
                    ("e.second", "True", "(f_double(S),)", ("d",))], frozenset({"n"}))
    kept = {}
    S = SimpleNamespace(n=3, d=None, _kept=kept, _memo={})
    fn(S, SimpleNamespace())
    assert S.d == 8 and S._kept is not kept and kept == {"double": 6}   # (replaced, never cleared in place)


def test_an_effect_writing_nothing_a_kept_value_reads_leaves_them():
    fn = _compiled([("e.one", "True", "(S.m + 1,)", ("m",))], frozenset({"n"}))
    kept = {"double": 6}
    S = SimpleNamespace(n=3, m=0, _kept=kept, _memo={})
    fn(S, SimpleNamespace())
    assert S._kept is kept and kept == {"double": 6} and S.m == 1


def test_a_kept_value_outlives_the_events_that_write_nothing_it_reads():
    """Default rules: once worked out in the doubling, `sun_double_allowed` is read again from
    S._kept at later events (the per-position memo would have been emptied)."""
    rules = load_variant()
    rng = random.Random(5)
    outlived = 0
    for _ in range(40):
        hand = Hand(rules, rng.choice(rules.table.seats), {"deck": random_deck(rules, rng)}, {"NS": 120, "EW": 40})
        while not hand.is_over():
            legal = hand.legal()   # (reads the value in a Sun's doubling)
            before = "sun_double_allowed" in hand.state._kept
            hand.apply(dict(legal[rng.randrange(len(legal))], seat=hand.turn()))
            outlived += before and "sun_double_allowed" in hand.state._kept
    assert outlived > 0


def test_a_copied_hand_keeps_its_own_values():
    rules = load_variant()
    rng = random.Random(9)
    names = _kept_names(rules)
    seen = {"reused": 0, "computed": 0}
    for _ in range(10):
        hand = Hand(rules, "N", {"deck": random_deck(rules, rng)})
        while not hand.is_over() and hand.state.phase != "play":
            legal = hand.legal()
            hand.apply(dict(legal[rng.randrange(len(legal))], seat=hand.turn()))
        for name in names:   # (fill S._kept with what can be read here)
            try:
                rules.functions[name](hand.state)
            except Exception:
                pass
        copy = hand.copy()
        assert copy.state._kept is not hand.state._kept and copy.state._kept == hand.state._kept
        for one in (hand, copy):   # (each played on its own, differently, checked at every event)
            while not one.is_over():
                one.apply(random_action(one, rng))
                _check_every_kept_value(rules, one, names, seen)
    assert seen["reused"] > 0
