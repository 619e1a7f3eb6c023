"""Every case under every variant it fits: conformance/dependencies.json is current, a subset of
it recomputes to the same knobs, every preset has at least 600 applicable cases and each of them
holds under the preset, `--set` variants get the cases whose knobs agree, and a run in which no
case applies exits 2."""

import contextlib
import json
import sys
from pathlib import Path

import pytest
from corpus_cache import corpus

from baloot_spec.cli import main
from baloot_spec.conformance.corpus import case_dependencies
from baloot_spec.conformance.dependencies import COMMAND, single_knob_dependencies, stale_reasons
from baloot_spec.conformance.harness import applicability, Claims, run_engine, run_in_process, target_of
from baloot_spec.conformance.retarget import knobs_agree, knobs_at_run_time
from baloot_spec.conformance.runner import ERROR, FAIL, PASS
from baloot_spec.conformance.status import NOT_APPLICABLE
from baloot_spec.resources import conformance_dir
from baloot_spec.rules.loader import load_presets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import case_dependencies as case_dependencies_tool  # noqa: E402
CASES = list(corpus())
DOCUMENT = json.loads((conformance_dir() / "dependencies.json").read_text(encoding="utf-8"))
PRESETS = sorted(load_presets())


def test_the_dependencies_file_is_current():
    reasons = stale_reasons(DOCUMENT, CASES)
    assert not reasons, f"conformance/dependencies.json is stale ({'; '.join(reasons)}): regenerate it with `{COMMAND}`"


@pytest.mark.parametrize("knobs_read_at_run_time", [False, True])
def test_a_subset_recomputes_to_the_stored_knobs(knobs_read_at_run_time):
    """Every 40th case of the default variant, perturbed knob by knob again: the knobs found, plus
    those the preset closure added (recorded in the file), are exactly the stored ones; the
    oracle agrees with every answer both engines give. Both with each variant compiled with its
    knobs folded in, as the engine does, and with the rules compiled once and the knobs read at
    run time, as tools/case_dependencies.py runs by default."""
    subset = [c for c in CASES if c.data["variant"] == {"preset": "default"}][::40]
    assert len(subset) >= 15
    oracle = case_dependencies_tool.OracleCheck()
    with (knobs_at_run_time() if knobs_read_at_run_time else contextlib.nullcontext()):
        found = single_knob_dependencies(subset, on_probe=oracle)
    assert oracle.disagreements == [] and oracle.counts["both answer, agree"] > 300, dict(oracle.counts)
    interactions = DOCUMENT.get("interactions", {})
    for case in subset:
        expected = set(DOCUMENT["cases"][case.id])
        assert found[case.id] | set(interactions.get(case.id, ())) == expected, \
            f"{case.id}: recomputed {sorted(found[case.id])}, stored {sorted(expected)}: regenerate with `{COMMAND}`"


def test_a_stale_file_names_the_command():
    stale = dict(DOCUMENT, rules="0" * 16, cases={})
    reasons = stale_reasons(stale, CASES)
    assert any("rules changed" in r for r in reasons) and any("not listed" in r for r in reasons)


def test_every_case_is_listed_and_depends_on_known_knobs():
    from baloot_spec.rules.loader import load_params
    knobs = set(load_params())
    for case in CASES:
        assert case.depends_on is not None, case.id
        assert set(case.depends_on) <= knobs, case.id
    # a case written for a knob value depends on that knob when the value is what it tests
    assert "closed_play" in case_dependencies()["play.closed.010"]


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_has_600_applicable_cases_and_each_holds_there(preset):
    target = target_of(preset)
    run = run_in_process(CASES, target)
    statuses = [o.status for o in run.outcomes]
    applicable = sum(knobs_agree(c, target.knobs, target.overlays) for c in CASES)
    assert statuses.count(PASS) == applicable >= 600, (preset, statuses.count(PASS), applicable)
    assert statuses.count(FAIL) == statuses.count(ERROR) == 0
    assert DOCUMENT["presets"][preset] == applicable
    # given as positions (derived under each case's own variant), the applicable cases hold too
    from_positions = [o.status for o in run_in_process(CASES, target, setups=("position",)).outcomes]
    assert from_positions.count(FAIL) == from_positions.count(ERROR) == 0


def test_preset_cases_run_under_the_preset_rules():
    """A case written for the default variant, applicable to nl-rulebook, is moved there: its
    outcome carries the nl-rulebook variant, which is what an engine is told."""
    target = target_of("nl-rulebook")
    case = next(c for c in CASES if c.data["variant"] == {"preset": "default"} and knobs_agree(c, target.knobs, ()))
    outcome = run_in_process([case], target).outcomes[0]
    assert outcome.status == PASS and outcome.case.data["variant"]["preset"] == "nl-rulebook"


def test_a_case_that_depends_on_a_knob_the_target_changes_is_not_applicable_and_says_which():
    target = target_of("default", {"closed_play": "false"})
    case = next(c for c in CASES if c.id == "play.closed.010")
    outcome = applicability(case, target, Claims(engine={}, everything=True))
    assert outcome.status == NOT_APPLICABLE and "closed_play" in outcome.message


def _cli(args, capsys):
    code = main(["conformance", "run"] + args)
    out, err = capsys.readouterr()
    return code, out, err


def test_set_variants_get_every_case_whose_knobs_agree(tmp_path, capsys):
    report = tmp_path / "r.json"
    code, _, err = _cli(["--set", "ekka=false", "--set", "undertrump=forced", "--json", str(report), "--quiet"], capsys)
    assert code == 0, err
    target = target_of("default", {"ekka": "false", "undertrump": "forced"})
    assert target.variant["set"] == {"ekka": False, "undertrump": "forced"}     # what an engine is sent: typed
    statuses = {c["id"]: c["status"] for c in json.loads(report.read_text())["cases"]}
    agree = {c.id for c in CASES if knobs_agree(c, target.knobs, ())}
    assert {i for i, s in statuses.items() if s == PASS} == agree
    assert len(agree) > 600
    # the variant's own cases are among them, and so are cases written for the default variant
    assert any(CASES_BY_ID[i].data["variant"] == {"preset": "default"} for i in agree)


CASES_BY_ID = {c.id: c for c in CASES}


def test_a_run_where_no_case_applies_exits_2_and_says_why(capsys):
    code, _, err = _cli(["--id", "play.closed.010", "--set", "closed_play=false"], capsys)
    assert code == 2 and "nothing was checked" in err and "closed_play" in err


def test_the_protocol_path_runs_applicable_cases_under_the_target():
    """Through the built-in adapter, the preset's applicable cases pass just as in process."""
    target = target_of("saudi-federation")
    chosen = [c for c in CASES if c.kind in ("legal", "score", "match")][::15]
    argv = [sys.executable, str(ROOT / "conformance" / "engines" / "builtin_adapter.py")]
    over_protocol = run_engine(chosen, argv, target, timeout=30.0)
    in_process = run_in_process(chosen, target)
    assert [o.status for o in over_protocol.outcomes] == [o.status for o in in_process.outcomes]
    assert [o.status for o in in_process.outcomes].count(PASS) > len(chosen) // 2
