"""The time budget on rule evaluation per hand (issue 29, Build 3): rules that load fine but take
for ever to run are stopped, and the report names the rule that was running."""

import json
import time

import pytest

from baloot_spec import budget
from baloot_spec.cli import main

def _nested(names: str) -> str:
    """Aggregates over the hand nested len(names) deep, each reading the one around it (nothing
    to hoist out of a loop: 8 * 7**8 steps at a lead with eight cards, seconds against the short
    budget below; an expression whose loops do not read each other is hoisted, and fast). (Eight
    deep, 8 * 7**7 steps, took 0.6-0.8 s a hand once the hand's cards were read once a function,
    rules/passes/state_reads.py: too near the budget of 0.5 s on a quiet machine.)"""
    inner = f"count(1 for {names[-1]} in hand if {names[-1]} != {names[-2]})"
    for outer, name in zip(reversed(names[:-2]), reversed(names[1:-1])):
        inner = f"count(1 for {name} in hand if {name} != {outer} and {inner} > 0)"
    return f"count(1 for {names[0]} in hand if {inner} > 0)"


NESTED = _nested("abcdefghm")
SLOW = f"""overlay: slow
title: eight aggregates nested over the hand
source: 'choice: test'
# (asked at every lead, Sun or Hokum: the random bidder nearly always says Sun)
replace:
  - id: play.hokum.partner-led-exception
    phase: play
    when: "len(trick) == 0 and {NESTED} > 0"
    only: "card.rank != '7'"
    if_possible: true
    source: "choice: test overlay"
"""


@pytest.fixture
def slow_setup(tmp_path, monkeypatch):
    overlay = tmp_path / "slow.yaml"
    overlay.write_text(SLOW, encoding="utf-8")
    logs = tmp_path / "hands.jsonl"
    # (the games are made under the normal budget: with a cold compile cache, compiling the
    # default rules' specialised phases on first use can take longer than the test's budget)
    assert main(["simulate", "--hands", "40", "--seed", "2", "--out", str(logs)]) == 0
    monkeypatch.setattr(budget, "MAX_SECONDS_PER_HAND", 0.5)
    return overlay, logs


def test_seven_nested_aggregates_load_then_hit_the_budget_naming_the_rule(slow_setup, capsys):
    overlay, logs = slow_setup
    assert main(["rules", "check", "--overlay", str(overlay)]) == 0   # (it loads fine)
    capsys.readouterr()
    started = time.monotonic()
    assert main(["audit", str(logs), "--overlay", str(overlay), "--json"]) == 2
    assert time.monotonic() - started < 20
    report = json.loads(capsys.readouterr().out)
    messages = [e["message"] for d in report["documents"] for e in d["errors"]]
    assert messages and all("play.hokum.partner-led-exception" in m and "BudgetExceeded" in m for m in messages)


def test_replay_under_slow_rules_stops_with_the_budget(slow_setup, capsys, tmp_path):
    overlay, logs = slow_setup
    one = tmp_path / "one.json"
    one.write_text(logs.read_text(encoding="utf-8").splitlines()[0], encoding="utf-8")
    started = time.monotonic()
    code = main(["replay", str(one), "--overlay", str(overlay)])
    err = capsys.readouterr().err
    assert time.monotonic() - started < 20
    assert code in (0, 2)     # (a hand with no Hokum play never runs the slow rule)
    if code == 2:
        assert "BudgetExceeded" in err and "Traceback" not in err


def test_the_budget_is_disarmed_after_the_run():
    import signal
    with budget.hand_budget(5):
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_simulate_under_slow_rules_stops_with_the_budget_and_keeps_the_old_file(slow_setup, capsys, tmp_path):
    overlay, _ = slow_setup
    out = tmp_path / "old.jsonl"
    out.write_text("old\n", encoding="utf-8")
    started = time.monotonic()
    assert main(["simulate", "--hands", "50", "--out", str(out), "--overlay", str(overlay)]) == 2
    assert time.monotonic() - started < 20
    err = capsys.readouterr().err
    assert "BudgetExceeded" in err and "play.hokum.partner-led-exception" in err
    assert out.read_text(encoding="utf-8") == "old\n"
    import signal
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_the_clock_stops_while_a_phase_is_compiled_and_resumes_after():
    """Compiling a specialised phase on first use (a cold cache) is not the rules' time: the
    budget pauses around it, and the hand keeps what it had left."""
    import signal
    with budget.hand_budget(5):
        with budget.paused():
            assert signal.getitimer(signal.ITIMER_REAL)[0] == 0.0   # nothing can fire in here
            with budget.paused():                                     # (re-entrant)
                pass
            assert signal.getitimer(signal.ITIMER_REAL)[0] == 0.0
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 4 < left <= 5
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
