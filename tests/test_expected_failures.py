"""Expected failures, format 2: by case id or glob, rule id, knob value or feature, each with a
reason; an entry that matches nothing or no longer fails is stale and fails the run. The first
format ({"case-id": "reason"}) keeps working (tests/test_harness.py checks it through an engine)."""

import json
import sys
from pathlib import Path

import pytest
from corpus_cache import corpus

from baloot_spec.cli import main
from baloot_spec.conformance import corpus as corpus_module
from baloot_spec.conformance.expectations import apply_expected_failures, load_expected_failures
from baloot_spec.conformance.explain import explain_outcomes
from baloot_spec.conformance.runner import ERROR, FAIL, PASS, Outcome, canonical_action, compared_outcome
from baloot_spec.conformance.status import is_expected_failure, is_unexpected
from baloot_spec.errors import CaseError

CASES = list(corpus())
BY_ID = {c.id: c for c in CASES}
PARTIAL = [sys.executable, str(Path(__file__).resolve().parent / "data" / "partial_engine.py")]


def _write(tmp_path, entries, **extra):
    path = tmp_path / "xf.json"
    path.write_text(json.dumps({"format": "baloot-expected-failures/2", "entries": entries, **extra}))
    return str(path)


def _outcomes():
    """play.follow-suit.005 fails (offers a heart), doubling.sun.015 fails (wrong refusal id),
    play.knobs.001 (undertrump=forced) passes, scoring cases pass."""
    follow = BY_ID["play.follow-suit.005"]
    legal = sorted(canonical_action(a) for a in follow.data["expect"]["legal"])
    out = [compared_outcome(follow, {"turn": "N", "legal": legal},
                            {"turn": "N", "legal": legal + [canonical_action({"type": "play", "card": "9H"})]}),
           compared_outcome(BY_ID["doubling.sun.015"], {"reject": "double.sun.scores"}, {"reject": "double.wrong-step"}),
           Outcome(BY_ID["play.knobs.001"], PASS), Outcome(BY_ID["doubling.sun.016"], PASS)]
    out += [Outcome(c, PASS) for c in CASES if c.id.startswith("scoring.tie.")][:3]
    explain_outcomes(out)
    return out


def test_entries_match_by_rule_glob_feature_and_knob(tmp_path):
    entries = load_expected_failures(_write(tmp_path, [
        {"rule": "play.follow-suit", "reason": "house rule: a single card may be kept"},
        {"case": "doubling.sun.01[5-9]", "feature": "doubling.sun", "reason": "our own refusal code"},
        {"knob": "undertrump=forced", "reason": "we never force an undertrump"},
    ]))
    outcomes = _outcomes()
    stale = apply_expected_failures(outcomes, entries, [c.id for c in CASES])
    assert [o.status for o in outcomes[:2]] == [FAIL, FAIL]
    assert outcomes[0].details["expected_failure"] == "house rule: a single card may be kept"
    assert outcomes[1].details["expected_failure"] == "our own refusal code"
    assert not any(is_unexpected(o) for o in outcomes)
    # the knob entry matches play.knobs.001, which passes: it no longer fails
    assert [(s["id"], s["problem"].split(":")[0]) for s in stale] == [("knob undertrump=forced", "no longer fails")]


def test_stale_entries_are_reported_with_what_is_wrong(tmp_path):
    entries = load_expected_failures(_write(tmp_path, [
        {"rule": "play.hokum.undertrump", "reason": "never decides a failure here"},
        {"case": "play.gone.*", "reason": "renamed long ago"},
        {"feature": "match.gahwa", "reason": "not in this run"},
        {"case": "play.follow-suit.005", "rule": "double.sun.scores", "reason": "both must hold: nothing matches"},
    ]))
    outcomes = _outcomes()
    stale = {s["id"]: s["problem"] for s in apply_expected_failures(outcomes, entries, [c.id for c in CASES])}
    assert stale == {"rule play.hokum.undertrump": "no failing case is decided by rule play.hokum.undertrump",
                     "case play.gone.*": "matches no case of the corpus",
                     "feature match.gahwa": "matches no case of this run's selection",
                     "case play.follow-suit.005 rule double.sun.scores":
                         "no failing case is decided by rule double.sun.scores"}
    assert not any(is_expected_failure(o) for o in outcomes)


def test_the_first_format_still_reads_and_turns_a_passing_listed_case_into_an_error(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"play.follow-suit.005": "known", "play.knobs.001": "thought it failed"}))
    outcomes = _outcomes()
    stale = apply_expected_failures(outcomes, load_expected_failures(str(path)), [c.id for c in CASES])
    assert stale == [] and outcomes[0].details["expected_failure"] == "known"
    assert outcomes[2].status == ERROR and "remove the entry" in outcomes[2].message


@pytest.mark.parametrize("document, text", [
    ({"format": "baloot-expected-failures/9", "entries": []}, "$.format"),
    ({"entries": [{"case": "play.turn.001"}]}, "$.entries[0].reason"),
    ({"entries": [{"reason": "why"}]}, "$.entries[0]: name at least one of case, rule, knob, feature"),
    ({"entries": [{"case": "x", "reason": "why", "because": 1}]}, "unknown field(s) because"),
    ({"entries": [{"knob": "undertrump", "reason": "why"}]}, "is not NAME=VALUE"),
    ({"entries": [{"knob": "no_such_knob=1", "reason": "why"}]}, "'no_such_knob' is not a knob"),
    ({"entries": [{"rule": 7, "reason": "why"}]}, "$.entries[0].rule"),
    ({"entries": [{"knob": "undertrump=sometimes", "reason": "why"}]}, "'sometimes' is not a value of undertrump (free, forced)"),
    ({"entries": [{"knob": "match_target=many", "reason": "why"}]}, "match_target takes a whole number"),
    ({"entries": "all"}, "$.entries: a list"),
])
def test_a_malformed_file_is_a_located_error_and_exit_2(tmp_path, capsys, document, text):
    path = tmp_path / "xf.json"
    path.write_text(json.dumps(document))
    with pytest.raises(CaseError) as error:
        load_expected_failures(str(path))
    assert text in str(error.value) and str(path) in str(error.value)
    assert main(["conformance", "run", "--id", "match.end.001", "--expected-failures", str(path)]) == 2
    err = capsys.readouterr().err
    assert text in err and "Traceback" not in err


def test_through_an_engine_every_departure_listed_exits_0_and_a_stale_entry_exits_1(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(corpus_module, "load_corpus", lambda root=None: list(CASES))
    command = " ".join(f"'{p}'" for p in PARTIAL)
    base = ["conformance", "run", "--engine", command, "--id", "play.knobs.00*", "--quiet"]
    good = _write(tmp_path, [{"rule": "play.hokum.undertrump", "reason": "we never force an undertrump"}])
    assert main(base + ["--expected-failures", good]) == 0
    assert "expected failures" in capsys.readouterr().out
    stale = _write(tmp_path, [{"knob": "undertrump=forced", "reason": "we never force an undertrump"},
                              {"feature": "match.gahwa", "reason": "not in this selection"}])
    report = tmp_path / "r.json"
    assert main(base + ["--expected-failures", stale, "--json", str(report)]) == 1
    out = capsys.readouterr().out
    assert "STALE" in out and "feature match.gahwa" in out and "matches no case of this run's selection" in out
    data = json.loads(report.read_text())
    assert data["totals"]["unexpected"] == 0 and data["expected_failures"]["stale"][0]["id"] == "feature match.gahwa"
