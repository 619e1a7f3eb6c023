"""The oracle (tools/oracle) implements every knob of rules/params.yaml: same default, every value
claimed by its protocol adapter, and each preset resolving to the same knob values in both. A new
knob (issue 24's fidelity knobs, say) that the oracle does not know fails here, not silently in a
cross-check that never draws it."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tools"), os.path.join(ROOT, "conformance", "engines")]

from oracle import oracle as O  # noqa: E402
from oracle.presets import PRESETS  # noqa: E402
import oracle_adapter  # noqa: E402

from baloot_spec.rules import load_variant  # noqa: E402
from baloot_spec.rules.loader import load_params  # noqa: E402

PARAMS = load_params()


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_the_oracle_has_the_knob_with_the_same_default(name):
    assert name in O.DEFAULTS, f"the oracle does not know the knob {name}"
    assert O.DEFAULTS[name] == PARAMS[name].default


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_the_oracle_adapter_claims_every_value(name):
    knob = PARAMS[name]
    claimed = oracle_adapter.KNOBS.get(name)
    if knob.type == "int":
        assert claimed == "any"
    else:
        assert claimed is not None and sorted(map(str, claimed)) == sorted(map(str, knob.values))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_preset_resolves_alike_in_both(preset):
    rules = load_variant(preset).variant.knobs
    oracle = O.knobs_of(PRESETS[preset])
    assert {n: oracle[n] for n in PARAMS} == {n: rules[n] for n in PARAMS}
