"""Every knob value has a case that tells it apart (issue 7). The whole check takes about 90 s
(`python tools/knob_coverage.py`); CI runs it for the knobs added most recently."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import knob_coverage  # noqa: E402


def test_recent_knobs_have_a_case_for_every_value(capsys):
    code = knob_coverage.main(["--knob", "cutting", "--knob", "late_projects", "--knob", "pickup_before_trump",
                               "--knob", "sun_conversion", "--knob", "match_target"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "sun_conversion=to_even:" in out and "NO CASE" not in out


def test_a_value_without_a_case_is_reported(monkeypatch, capsys):
    # Pretend ekka had a third value no case uses: it must be listed as missing.
    real = knob_coverage.knob_values
    monkeypatch.setattr(knob_coverage, "knob_values", lambda: {**real(), "ekka": [True, False, "sometimes"]})
    monkeypatch.setattr(knob_coverage, "witness", lambda cases, knob, value, values: None if value == "sometimes" else {
        "case": "x", "other": None, "status": "fail"})
    assert knob_coverage.main(["--knob", "ekka"]) == 1
    assert "ekka=sometimes" in capsys.readouterr().out
