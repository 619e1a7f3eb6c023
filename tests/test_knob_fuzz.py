"""Random knob combinations keep the random-play invariants (tools/knob_fuzz.py; the long run is
`python tools/knob_fuzz.py --combos 300 --hands 200 --matches 2`)."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import knob_fuzz  # noqa: E402


def test_random_knob_combinations_keep_the_invariants():
    summary = knob_fuzz.fuzz(combos=12, hands=40, matches=1, seed="ci")
    assert summary["violations"] == []
    assert summary["played"] + sum(summary["refused"].values()) == 12 and summary["played"] >= 6


def test_every_knob_and_value_can_be_drawn():
    choices = knob_fuzz.knob_choices()
    assert choices["sun_conversion"] == ["keep_fives", "half_up", "to_even"]
    assert choices["ekka"] == ["true", "false"] and "152" in choices["match_target"]
    assert len(choices) >= 30


def test_a_broken_invariant_is_reported(monkeypatch):
    def broken(rules, hand):
        raise knob_fuzz.Violation("planted")
    monkeypatch.setattr(knob_fuzz, "check_hand", broken)
    lines = []
    summary = knob_fuzz.fuzz(combos=8, hands=1, matches=0, seed="ci", out=lines.append)
    assert summary["violations"] and all(v["problem"] == "Violation: planted" for v in summary["violations"])
    assert lines and "--set sun_conversion=" in lines[0]
