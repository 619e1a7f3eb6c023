"""node-sun (conformance/engines/node-sun/engine.js) fails exactly the cases its three documented
departures predict, and nothing else. The prediction replays each case through the built-in
engine and asks, from the position it reaches, whether a departure changes the answer:

  D1 follow-suit   the player to act holds exactly one card of the led suit (and another card)
  D2 trick-order   a finished trick whose winner differs under the order A K Q J T 9 8 7
  D3 refusal-id    a refused Sun Double whose rule is double.sun.scores
"""

import shutil
from pathlib import Path

import pytest
from corpus_cache import corpus

from baloot_spec.conformance.harness import run_engine
from baloot_spec.conformance.runner import ERROR, FAIL, PASS, replay_setup, rules_for
from baloot_spec.conformance.status import SKIPPED, UNSUPPORTED

ENGINE = Path(__file__).resolve().parent.parent / "conformance" / "engines" / "node-sun" / "engine.js"
NAIVE = "AKQJT987"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def departures(case) -> set:
    """The departures that change node-sun's answer to this case (empty: it must pass)."""
    found = set()
    if case.kind == "reject" and case.data["expect"]["reject"] == "double.sun.scores":
        found.add("D3")
    if case.kind not in ("legal", "reject"):
        return found
    hand = replay_setup(rules_for(case), case.data["setup"])
    state = hand.state
    if state.mode != "sun":
        return found
    for trick in state.tricks:
        led = trick.plays[0].card.suit
        naive = min((p for p in trick.plays if p.card.suit == led), key=lambda p: NAIVE.index(p.card.rank))
        if naive.seat != trick.winner:
            found.add("D2")
    seat = hand.turn()
    if hand.phase == "play" and state.trick and seat is not None:
        led = state.trick[0].card.suit
        held = [c for c in state.hands[seat] if c.suit == led]
        if len(held) == 1 and len(state.hands[seat]) > 1:
            if case.kind == "legal" or case.data["expect"]["reject"] == "play.follow-suit":
                found.add("D1")
    return found


@pytest.fixture(scope="module")
def node_run():
    cases = list(corpus())
    return cases, run_engine(cases, ["node", str(ENGINE)], timeout=30)


def test_node_sun_fails_exactly_what_its_departures_predict(node_run):
    cases, run = node_run
    assert run.engine["name"] == "node-sun" and run.restarts == 0
    predicted, failing, seen = set(), set(), set()
    for case, outcome in zip(cases, run.outcomes):
        if outcome.status == UNSUPPORTED:
            continue
        reasons = departures(case)
        seen |= reasons
        if reasons:
            predicted.add(case.id)
        if outcome.status in (FAIL, ERROR):
            failing.add(case.id)
    assert failing == predicted, {"unpredicted failures": sorted(failing - predicted),
                                  "predicted but not failing": sorted(predicted - failing)}
    assert seen == {"D1", "D2", "D3"}, "every departure must show in the corpus"


def test_node_sun_runs_a_real_share_of_what_it_claims(node_run):
    cases, run = node_run
    statuses = [o.status for o in run.outcomes]
    assert statuses.count(PASS) >= 50
    assert statuses.count(SKIPPED) >= 1 and statuses.count(UNSUPPORTED) >= 1
    for case, outcome in zip(cases, run.outcomes):
        if outcome.status == SKIPPED:
            assert "not implemented" in outcome.message, (case.id, outcome.message)
        if outcome.status == UNSUPPORTED:
            assert "not claimed by the engine" in outcome.message
        if outcome.status == FAIL and case.kind == "reject":
            assert outcome.actual["reject"] in ("double.wrong-step", None), case.id
