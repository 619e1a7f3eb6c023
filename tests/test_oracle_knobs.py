"""The oracle (tools/oracle) implements every knob of rules/params.yaml: same default, every value
claimed by its protocol adapter, and each preset resolving to the same knob values in both. A new
knob (issue 24's fidelity knobs, say) that the oracle does not know fails here, not silently in a
cross-check that never draws it."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from oracle import oracle as O  # noqa: E402
from oracle.presets import PRESETS  # noqa: E402

from baloot_spec.rules import load_variant  # noqa: E402
from baloot_spec.rules.loader import load_params  # noqa: E402

PARAMS = load_params()


def adapter_knobs() -> dict:
    """The adapter's KNOBS, read in a process of its own (it imports tools/oracle/oracle.py as the
    top-level module `oracle`, which the package import above would shadow)."""
    code = ("import json, sys; sys.path.insert(0, %r); import oracle_adapter; print(json.dumps(oracle_adapter.KNOBS))"
            % os.path.join(ROOT, "conformance", "engines"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


ADAPTER_KNOBS = adapter_knobs()


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_the_oracle_has_the_knob_with_the_same_default(name):
    assert name in O.DEFAULTS, f"the oracle does not know the knob {name}"
    assert O.DEFAULTS[name] == PARAMS[name].default


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_the_oracle_adapter_claims_every_value(name):
    knob = PARAMS[name]
    claimed = ADAPTER_KNOBS.get(name)
    if knob.type == "int":
        assert claimed == "any"
    else:
        assert claimed is not None and sorted(map(str, claimed)) == sorted(map(str, knob.values))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_preset_resolves_alike_in_both(preset):
    rules = load_variant(preset).variant.knobs
    oracle = O.knobs_of(PRESETS[preset])
    assert {n: oracle[n] for n in PARAMS} == {n: rules[n] for n in PARAMS}
