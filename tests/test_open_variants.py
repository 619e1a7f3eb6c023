"""Rules compiled once with the knobs read at run time (rules/open_variants.py) answer every case
as the variant compiled with its knobs folded in does: the fingerprint's reference relies on it."""

import random

import pytest

from baloot_spec.conformance.corpus import load_corpus
from baloot_spec.conformance.dependencies import refused
from baloot_spec.conformance.fingerprint import fingerprint_cases, preset_knobs
from baloot_spec.conformance.runner import reference_pair
from baloot_spec.errors import RulesError
from baloot_spec.rules import load_variant, resolve_variant
from baloot_spec.rules.loader import load_params
from baloot_spec.rules.open_variants import OpenVariants


@pytest.fixture(scope="module")
def open_rules():
    return OpenVariants(resolve_variant("default"))


def _answers(rules, cases) -> dict:
    out = {}
    for case in cases:
        try:
            out[case.id] = repr(reference_pair(rules, case))
        except Exception as exc:   # (a refused setup is an answer too: it must be the same one)
            out[case.id] = f"{type(exc).__name__}: {exc}"
    return out


def _assignments() -> list[dict]:
    """Each preset's knobs, and seeded random valid assignments (every knob at a random value)."""
    params = load_params()
    out = list(preset_knobs().values())
    rng = random.Random(2026)
    while len(out) < 8:
        knobs = {name: rng.choice([1, 100, 152, 1000]) if knob.type == "int" else rng.choice(list(knob.values))
                 for name, knob in params.items()}
        if not refused(knobs):
            out.append(knobs)
    return out


@pytest.mark.parametrize("number", range(8))
def test_open_rules_answer_every_case_as_the_folded_variant(open_rules, number):
    knobs = _assignments()[number]
    defaults = {name: knob.default for name, knob in load_params().items()}
    sets = {k: v for k, v in knobs.items() if v != defaults[k]}
    cases = fingerprint_cases(load_corpus())
    folded = _answers(load_variant("default", sets), cases)
    opened = _answers(open_rules.rules(resolve_variant("default", sets)), cases)
    differ = [case_id for case_id in folded if folded[case_id] != opened[case_id]]
    assert not differ, f"{len(differ)} cases answered otherwise, e.g. {differ[0]}: {folded[differ[0]]} / {opened[differ[0]]}"
    assert sum("Error" not in answer for answer in folded.values()) > len(cases) // 2   # (the runs did run)


def test_one_module_serves_every_assignment(open_rules):
    a = open_rules.rules(resolve_variant("default"))
    b = open_rules.rules(resolve_variant("default", {"match_target": 1000, "closed_play": False}))
    assert a.python_source == b.python_source and "_K[" in a.python_source
    assert a.functions is not b.functions
    folded = load_variant("default").python_source
    assert "_K[" not in folded


def test_other_rules_files_are_refused(open_rules):
    with pytest.raises(RulesError, match="only knobs may differ"):
        open_rules.rules(resolve_variant("default", overlays=["no-gahwa"]))
