"""tools/machinery_floor.py replays hands with the play rules' answers (and then the scoring's)
given back in the order a first replay asked for them: a wrong or missing answer would refuse a
recorded card, and answers left over stop the tool, so a clean run also says the recorded answers
stand in for the rules exactly (the timings themselves are for BENCHMARKS.md, not asserted)."""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import machinery_floor  # noqa: E402


def test_the_floor_replays_the_hands_with_the_play_rules_looked_up(capsys):
    assert machinery_floor.main(["--hands", "25", "--repeat", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hands"] == 25
    assert set(out["us_per_hand"]) == {"rules", "no-rules", "no-rules-or-scoring", "oracle"}
    assert all(value > 0 for parts in out["us_per_hand"].values() for value in parts.values())
    # the process's compiled rules get their own functions back
    from baloot_spec.rules import load_variant
    rules = load_variant()
    assert rules.facts_all.__name__.startswith("facts_all") and rules.steps_all.__name__.startswith("steps_all")
    assert rules.scored.__name__.startswith("scored")
    for phase in rules._specialized.values():
        assert phase.narrow.__name__.startswith("narrow")
        if phase.kind == "tricks":
            assert phase.winner.__name__.startswith("winner")
        if phase.kind == "score":
            assert phase.facts_all.__name__.startswith("facts_all") and phase.facts_scored.__name__.startswith("facts_scored")
