"""Positions: a hand given as its state once the contract is settled (rules/position.yaml,
baloot_spec/engine/position.py, conformance/positions.json, PROTOCOL.md "Setup forms")."""

import copy
import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
from corpus_cache import corpus

from baloot_spec.conformance.harness import run_engine, run_in_process
from baloot_spec.conformance.positions import (derive_all, derive_entry, entry_of, render, run_case_from_position,
                                               setup_digest, stored_positions)
from baloot_spec.conformance.protocol import _registry
from baloot_spec.conformance.runner import ERROR, FAIL, PASS, run_case, rules_for
from baloot_spec.conformance.status import SKIPPED, UNSUPPORTED
from baloot_spec.engine.position import PositionError, hand_from_position, position_of, spec_problems
from baloot_spec.rules import load_variant

ROOT = Path(__file__).resolve().parent.parent
CASES = list(corpus())
BY_ID = {c.id: c for c in CASES}
STORED = stored_positions()
RULES = load_variant("default", {}, [])


def _entries(phase=None):
    return [(cid, e) for cid, e in STORED.items() if phase is None or e["position"]["phase"] == phase]


# ---- the stored file -------------------------------------------------------------------------------
def test_the_positions_file_is_what_the_cases_give_now():
    """conformance/positions.json is generated: regenerated, it must be the same text."""
    text = (ROOT / "conformance" / "positions.json").read_text(encoding="utf-8")
    assert text == render(derive_all(CASES)), "conformance/positions.json is out of date: run python tools/positions.py"


def test_the_positions_file_follows_its_schema_and_covers_the_play_and_doubling_cases():
    schema = json.loads((ROOT / "conformance" / "schema" / "position.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator({"$ref": schema["$id"] + "#/$defs/positionsFile"}, registry=_registry())
    document = json.loads((ROOT / "conformance" / "positions.json").read_text(encoding="utf-8"))
    assert not list(validator.iter_errors(document))
    position_validator = jsonschema.Draft202012Validator(schema, registry=_registry())
    some = next(iter(STORED.values()))["position"]
    assert not list(position_validator.iter_errors(some))
    assert list(position_validator.iter_errors({**some, "phase": "bidding"}))
    phases = {e["position"]["phase"] for e in STORED.values()}
    assert phases == {"doubling", "play"}
    # every legal/reject case whose question is asked in the play or the doubling has one
    for case in CASES:
        if case.kind in ("legal", "reject") and case.data["expect"].get("phase") in ("play", "doubling"):
            assert case.id in STORED, case.id
    assert len(STORED) >= 300


def test_an_entry_is_only_used_for_the_setup_it_was_derived_from():
    case_id, entry = _entries("play")[0]
    case = BY_ID[case_id]
    assert entry_of(case) is entry and entry["digest"] == setup_digest(case)
    edited = copy.deepcopy(case.data)
    edited["setup"]["match_scores"] = {"NS": 1, "EW": 0}
    fresh = entry_of(type(case)(edited, case.file, case.index))   # (derived now, the same way)
    assert fresh is not entry and fresh["position"]["match_scores"] == {"NS": 1, "EW": 0}
    assert fresh["position"]["tricks"] == entry["position"]["tricks"]
    edited["setup"]["events"] = edited["setup"]["events"][:1] + [dict(edited["setup"]["events"][0])]   # refused
    assert entry_of(type(case)(edited, case.file, case.index)) is None


def test_a_case_run_under_another_variant_gets_its_position_under_that_variant():
    case_id = next(cid for cid, e in _entries("play") if not e["position"]["tricks"] and not e["position"]["trick"]["plays"])
    case = BY_ID[case_id]
    data = copy.deepcopy(case.data)
    data["variant"] = {"preset": "online-apps"}   # first_lead: buyer
    entry = entry_of(type(case)(data, case.file, case.index))
    buyer = entry["position"]["contract"]["buyer"]
    assert entry["position"]["trick"]["leader"] == buyer == entry["position"]["turn"]


# ---- the same verdicts ------------------------------------------------------------------------------
def test_every_positional_case_gives_the_same_verdict_from_its_events_and_from_its_position():
    for case_id, entry in STORED.items():
        case = BY_ID[case_id]
        from_events, from_position = run_case(case), run_case_from_position(case, entry)
        assert from_events.status == from_position.status == PASS, (case_id, from_position.message)


def test_a_wrong_expectation_fails_from_the_position_too():
    case_id, entry = _entries("play")[3]
    data = copy.deepcopy(BY_ID[case_id].data)
    if data["kind"] == "legal":
        data["expect"]["legal"] = data["expect"]["legal"][1:] + [{"type": "play", "card": "7C"}]
    else:
        data["expect"] = {"reject": "turn.out-of-turn"} if data["expect"].get("reject") != "turn.out-of-turn" else {"reject": "x"}
    case = type(BY_ID[case_id])(data, "x", 0)
    assert run_case_from_position(case, entry).status == FAIL


def test_in_process_run_from_positions_only():
    chosen = [BY_ID[i] for i in list(STORED)[:20]] + [c for c in CASES if c.kind == "legal" and c.id not in STORED][:3]
    run = run_in_process(chosen, setups=("position",))
    statuses = [o.status for o in run.outcomes]
    assert statuses == [PASS] * 20 + [UNSUPPORTED] * 3


# ---- reading and writing ----------------------------------------------------------------------------
def test_a_position_read_and_written_again_is_the_same_position():
    for case_id, entry in STORED.items():
        rules = rules_for(BY_ID[case_id])
        assert position_of(hand_from_position(rules, entry["position"])) == entry["position"], case_id


def test_a_hand_continues_from_its_position_as_from_its_events():
    """After the position, every legal set on the way to the end is the same as from the events."""
    for case_id, entry in _entries("play")[::15]:
        case = BY_ID[case_id]
        rules = rules_for(case)
        from_position = hand_from_position(rules, entry["position"])
        from_events = derive_entry(case, rules)   # (the same position)
        assert from_events["position"] == entry["position"]
        rng = random.Random(case_id)
        while not from_position.is_over():
            legal = from_position.legal()
            event = dict(rng.choice(legal), seat=from_position.turn())
            from_position.apply(event)
        assert from_position.result() is not None


def test_the_position_section_names_every_state_variable_once():
    spec = RULES.variant.ruleset.single["position"]
    assert spec_problems(RULES, spec) == []
    broken = {**spec, "not_carried": {k: v for k, v in spec["not_carried"].items() if k != "round"}}
    assert "state 'round' is in none of carried, shown, not_carried" in spec_problems(RULES, broken)
    broken = {**spec, "not_carried": {**spec["not_carried"], "mode": "twice", "nonsense": "x"}}
    problems = spec_problems(RULES, broken)
    assert "state 'mode' is in carried and not_carried" in problems and "'nonsense' is not a state variable" in problems
    broken = {**spec, "phases": ["doubling", "dancing"]}
    assert "phase 'dancing' is not a phase" in spec_problems(RULES, broken)


def _play_position(index=0, min_tricks=2):
    for case_id, entry in _entries("play"):
        if len(entry["position"]["tricks"]) >= min_tricks:
            if index == 0:
                return rules_for(BY_ID[case_id]), copy.deepcopy(entry["position"])
            index -= 1
    raise AssertionError("no such position")


def _swap_two_cards_between(position, a, b):
    """Exchange a card of seat a and one of seat b that neither has played yet."""
    ha, hb = position["hands"][a], position["hands"][b]
    ca, cb = ha[0], hb[0]
    for key in ("hands", "dealt"):
        position[key][a] = [cb if c == ca else c for c in position[key][a]]
        position[key][b] = [ca if c == cb else c for c in position[key][b]]


def _mutations():
    """(name, change of a play position, the path of the error, the rule named or None)."""
    def dealt_twice(p):
        p["dealt"]["N"][0] = p["dealt"]["E"][0]

    def seven_cards(p):
        p["dealt"]["N"].pop()

    def wrong_winner(p):
        p["tricks"][0]["winner"] = next(s for s in "NESW" if s != p["tricks"][0]["winner"])

    def wrong_leader(p):
        p["tricks"][1]["leader"] = next(s for s in "NESW" if s != p["tricks"][1]["leader"])

    def wrong_turn(p):
        p["turn"] = next(s for s in "NESW" if s != p["turn"])

    def hands_not_dealt_less_played(p):
        p["hands"]["N"], p["hands"]["E"] = p["hands"]["E"], p["hands"]["N"]

    def card_not_held(p):
        play = p["tricks"][0]["plays"][1]
        p["tricks"][0]["plays"][1] = dict(play, card=p["hands"]["N" if play["seat"] != "N" else "E"][0])

    def unknown_phase(p):
        p["phase"] = "bidding"

    def bad_mode(p):
        p["contract"]["mode"] = "misere"

    def no_contract(p):
        del p["contract"]

    def unknown_field(p):
        p["weather"] = "fine"

    def public_nowhere(p):
        p["public"] = "ZZ"

    def dealer_not_a_seat(p):
        p["dealer"] = "X"

    def eight_tricks(p):
        p["tricks"] = p["tricks"] * 5

    def claims_baloot(p):
        p["baloot"] = ["N"]

    return [("a card dealt twice", dealt_twice, "position.dealt", None),
            ("seven cards", seven_cards, "position.dealt.N", None),
            ("a trick given to the wrong seat", wrong_winner, "position.tricks[0].winner", None),
            ("a trick led by the wrong seat", wrong_leader, "position.tricks[1].leader", None),
            ("a turn the rules do not give", wrong_turn, "position.turn", None),
            ("hands that are not dealt less played", hands_not_dealt_less_played, "position.hands", None),
            ("a card played that the seat does not hold", card_not_held, "position.tricks[0].plays[1]", "play.not-in-hand"),
            ("a phase no position is in", unknown_phase, "position.phase", None),
            ("a mode the rules do not know", bad_mode, "position.contract.mode", None),
            ("no contract", no_contract, "position.contract.mode", None),
            ("an unknown field", unknown_field, "position.weather", None),
            ("a public card that is no card", public_nowhere, "position.public", None),
            ("a dealer that is no seat", dealer_not_a_seat, "position.dealer", None),
            ("more tricks than cards", eight_tricks, "position.tricks", None),
            ("a Baloot nobody said", claims_baloot, "position.baloot", None)]


@pytest.mark.parametrize("name, change, path, rule", _mutations(), ids=[m[0] for m in _mutations()])
def test_an_inconsistent_position_is_a_located_error(name, change, path, rule):
    rules, position = _play_position()
    change(position)
    with pytest.raises(PositionError) as caught:
        hand_from_position(rules, position)
    assert caught.value.path.startswith(path), (caught.value.path, str(caught.value))
    if rule:
        assert caught.value.rule == rule


def test_a_card_the_rules_refuse_is_named_by_its_rule():
    """A play that breaks an obligation: the error names the rule, as a refusal does."""
    for index in range(40):
        rules, position = _play_position(index, min_tricks=1)
        trick = position["tricks"][0]
        follower = trick["plays"][1]
        led = trick["plays"][0]["card"][1]
        off_suit = [c for c in position["dealt"][follower["seat"]] if c[1] != led
                    and all(c != p["card"] for t in position["tricks"] for p in t["plays"])
                    and all(c != p["card"] for p in position["trick"]["plays"])]
        if follower["card"][1] == led and off_suit:
            follower_card = follower["card"]
            follower["card"] = off_suit[0]
            seat = follower["seat"]
            position["hands"][seat] = [follower_card if c == off_suit[0] else c for c in position["hands"][seat]]
            with pytest.raises(PositionError) as caught:
                hand_from_position(rules, position)
            assert caught.value.path == "position.tricks[0].plays[1]" and caught.value.rule == "play.follow-suit"
            return
    raise AssertionError("no position to try")


def test_a_doubling_position_checks_who_is_asked():
    case_id, entry = next((i, e) for i, e in _entries("doubling") if not e["position"]["contract"]["doubling"])
    rules, position = rules_for(BY_ID[case_id]), copy.deepcopy(entry["position"])
    assert hand_from_position(rules, position).turn() == position["turn"]
    position["contract"]["level"] = 7
    with pytest.raises(PositionError, match="position.contract.level"):
        hand_from_position(rules, position)
    # the doubling state is checked by searching the calls from the doubling's start
    asked_buyer = dict(copy.deepcopy(entry["position"]), turn=entry["position"]["contract"]["buyer"])
    with pytest.raises(PositionError) as caught:
        hand_from_position(rules, asked_buyer)
    assert caught.value.path == "position.turn" and "never asks" in str(caught.value)
    doubled_by_nobody = copy.deepcopy(entry["position"])
    doubled_by_nobody["contract"].update(doubling=["double"], level=2, doubler=None)
    with pytest.raises(PositionError) as caught:
        hand_from_position(rules, doubled_by_nobody)
    assert caught.value.path == "position.contract" and "no sequence of legal doubling calls" in str(caught.value)


def test_random_damage_to_positions_is_a_position_error_or_a_position_never_a_crash():
    rng = random.Random(22)
    values = [None, 0, -1, 3, True, "N", "ZZ", "TS", "10S", [], {}, ["AS"], {"N": []}, "play", "hokum"]
    tried = 0
    for case_id, entry in list(STORED.items())[::7]:
        rules = rules_for(BY_ID[case_id])
        for _ in range(6):
            position = copy.deepcopy(entry["position"])
            node, key = _random_place(position, rng)
            node[key] = copy.deepcopy(rng.choice(values))
            try:
                hand_from_position(rules, position)
            except PositionError:
                pass
            tried += 1
    assert tried > 200


def _random_place(position, rng):
    node = position
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return parent, parent_key   # noqa: F821 (an empty container: damage it whole)
        key = rng.choice(keys)
        child = node[key]
        if isinstance(child, (dict, list)) and child and rng.random() < 0.6:
            parent, parent_key = node, key
            node = child
            continue
        return node, key


def test_rules_without_a_position_section_have_no_positions():
    class Bare:
        class variant:
            class ruleset:
                single = {}
    with pytest.raises(PositionError, match="declare no position"):
        hand_from_position(Bare, {})


# ---- the oracle ---------------------------------------------------------------------------------------
def test_the_oracle_reaches_every_position_and_answers_every_case_from_it():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "oracle" / "positions_check.py")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    overlaid = sum(1 for case in corpus() if case.id in STORED and case.data["variant"].get("overlays"))
    checked = len(STORED) - overlaid   # (the oracle implements the knobs, not overlays)
    assert f"{len(STORED)} positions: the oracle reached {checked} of them from the events and answered {checked} " \
           f"from the position; 0 differences; {overlaid} under an overlay not checked" in done.stdout


def test_the_oracle_check_can_fail():
    """A damaged position is told apart by the oracle (in a process of its own: the tests import
    tools/oracle as the package `oracle`, the oracle's scripts import oracle.py as `oracle`)."""
    case_id, entry = _entries("play")[5]
    script = textwrap.dedent(f"""
        import copy, json, sys
        sys.path.insert(0, {str(ROOT / "tools" / "oracle")!r})
        import positions_check
        from presets import PRESETS
        case, entry = json.loads(sys.stdin.read())
        knobs = dict(PRESETS[case["variant"].get("preset", "default")], **case["variant"].get("set", {{}}))
        out = {{"fine": positions_check.reached(case, entry, knobs)[0]}}
        broken = copy.deepcopy(entry)
        broken["position"]["contract"]["level"] = 2
        broken["position"]["contract"]["doubling"] = ["double"]
        out["doubled"] = positions_check.reached(case, broken, knobs)[0]
        broken = copy.deepcopy(entry)
        broken["position"]["turn"] = [s for s in "NESW" if s != entry["position"]["turn"]][0]
        try:
            positions_check.answered(case, broken, knobs)
        except ValueError as exc:
            out["turn"] = str(exc)
        print(json.dumps(out))
    """)
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps([BY_ID[case_id].data, entry]),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["fine"] == [] and out["doubled"] == ["contract"] and out["turn"].startswith("position.turn")


# ---- through the protocol ------------------------------------------------------------------------------
def test_an_engine_that_takes_only_positions_passes_the_play_cases():
    """tests/data/position_only_engine.py refuses the auction and the doubling altogether."""
    run = run_engine(CASES, [sys.executable, str(ROOT / "tests" / "data" / "position_only_engine.py")], timeout=60, jobs=2)
    by_status = {}
    for outcome in run.outcomes:
        by_status.setdefault(outcome.status, []).append(outcome)
    assert not by_status.get(FAIL) and not by_status.get(ERROR), [(o.case.id, o.message) for o in by_status.get(ERROR, [])[:3]]
    passed = {o.case.id for o in by_status[PASS]}
    play = {cid for cid, e in _entries("play")}
    # every play case passes, but the few whose action is an auction event (skipped by this engine)
    assert passed <= play and len(passed) >= len(play) - 10
    for outcome in by_status[SKIPPED]:
        assert outcome.case.id in STORED
    for outcome in by_status[UNSUPPORTED]:
        assert outcome.case.id not in STORED
    assert any("setup form" in o.message for o in by_status[UNSUPPORTED])
    assert run.claims is not None


def test_the_harness_sends_events_when_asked_to_and_positions_otherwise(tmp_path):
    """--setup events: both adapters get deals and events again, with the same verdicts."""
    chosen = [BY_ID[i] for i in list(STORED)[::20]]
    for setups in (("events",), ("position",)):
        run = run_engine(chosen, [sys.executable, str(ROOT / "conformance" / "engines" / "oracle_adapter.py")],
                         timeout=60, setups=setups)
        assert {o.status for o in run.outcomes} == {PASS}
    run = run_engine(chosen, [sys.executable, str(ROOT / "tests" / "data" / "position_only_engine.py")], timeout=60,
                     setups=("events",))
    assert {o.status for o in run.outcomes} == {UNSUPPORTED}


def test_the_position_only_engine_through_the_cli(capsys):
    from baloot_spec.cli import main
    code = main(["conformance", "run", "--engine", f"{sys.executable} {ROOT / 'tests' / 'data' / 'position_only_engine.py'}",
                 "--id", "play.*", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert " 0 failed, 0 errors" in out


def test_the_positions_tool_checks_and_exits_1_when_stale(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "positions.py"), "--check"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    stale = tmp_path / "positions.json"
    stale.write_text("{}", encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "positions.py"), "--check", "--out", str(stale)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and "out of date" in done.stderr


def test_the_position_shown_in_protocol_md_is_the_stored_one():
    text = (ROOT / "conformance" / "PROTOCOL.md").read_text(encoding="utf-8")
    section = text.split("### The position", 1)[1]
    block = section.split("```json\n", 1)[1].split("```", 1)[0]
    assert json.loads(block) == STORED["play.ekka.001"]["position"]
    assert "`E` with `QH AD KD QD JD TD`" in section
    assert {a["card"] for a in BY_ID["play.ekka.001"].data["expect"]["legal"]} == {"QH", "AD", "KD", "QD", "JD", "TD"}


def test_a_position_section_that_leaves_a_state_variable_out_is_a_located_rules_error(rules_copy, tmp_path, monkeypatch):
    from baloot_spec.errors import RulesError
    monkeypatch.setenv("BALOOT_CACHE_DIR", str(tmp_path / "cache"))
    text = (rules_copy / "position.yaml").read_text(encoding="utf-8")
    (rules_copy / "position.yaml").write_text(text.replace('    round: "read only while bidding', '    roundx: "read only while bidding'),
                                              encoding="utf-8")
    rules = load_variant("default")
    case_id, entry = _entries("play")[0]
    with pytest.raises(RulesError) as caught:
        hand_from_position(rules, entry["position"])
    rendered = caught.value.render()
    assert "rules/position.yaml" in rendered and "'roundx' is not a state variable" in rendered
    assert "state 'round' is in none of carried, shown, not_carried" in rendered
