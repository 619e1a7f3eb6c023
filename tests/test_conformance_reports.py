"""Conformance v2 reports: per-key outcomes and hello's `produces`, failures that explain
themselves (title, source, note, repository path, knobs, deciding rules) and are grouped by rule
and knob in every format, checked against a deliberately partial engine (tests/data/partial_engine.py)
whose failures are predicted independently of the harness."""

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from corpus_cache import corpus

from baloot_spec.cli import main
from baloot_spec.conformance import corpus as corpus_module
from baloot_spec.conformance import runner
from baloot_spec.conformance.capabilities import produced_keys, unproduced
from baloot_spec.conformance.corpus import Case
from baloot_spec.conformance.explain import NO_RULE, case_knobs, explanation, keeping_rules, repo_path
from baloot_spec.conformance.grouping import by_knob, by_rule, console_lines
from baloot_spec.conformance.harness import Claims, run_engine
from baloot_spec.conformance.runner import FAIL, PASS, canonical_action, compare_keys, compared_outcome
from baloot_spec.conformance.status import UNSUPPORTED

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
from partial_engine import DEPARTURES, HAND_KEYS, SCORE_KEYS, departed_rules  # noqa: E402

CASES = list(corpus())
BY_ID = {c.id: c for c in CASES}
PARTIAL = [sys.executable, str(DATA / "partial_engine.py")]


# ---- per-key outcomes ----------------------------------------------------------------------------
def test_keys_pass_fail_or_unsupported_and_a_case_fails_only_on_a_produced_key():
    expected = {"written": {"NS": 6, "EW": 12}, "winner": "EW", "totals": {"NS": 6, "EW": 12}}
    # the engine answers totals wrongly but does not produce it: not a failure
    keys = compare_keys(expected, {"written": {"NS": 6, "EW": 12}, "winner": "EW", "totals": {"NS": 0, "EW": 0}},
                        produced=frozenset({"written", "winner"}))
    assert keys == {"written": PASS, "winner": PASS, "totals": "unsupported"}
    # a key left out of the answer is unsupported too, a wrong produced key fails
    assert compare_keys(expected, {"written": {"NS": 7, "EW": 11}, "winner": "EW"}) == \
        {"written": FAIL, "winner": PASS, "totals": "unsupported"}
    case = next(c for c in CASES if c.kind == "score")
    outcome = compared_outcome(case, {"a": 1, "b": 2}, {"a": 1, "b": 3}, frozenset({"a"}))
    assert outcome.status == PASS and outcome.keys == {"a": PASS, "b": "unsupported"}
    outcome = compared_outcome(case, {"a": 1, "b": 2}, {"a": 1, "b": 3})
    assert outcome.status == FAIL and outcome.message == "b: expected 2, got 3"
    outcome = compared_outcome(case, {"a": 1}, {})
    assert outcome.status == UNSUPPORTED and outcome.keys == {"a": "unsupported"}


def test_produces_is_optional_per_kind_and_a_case_with_no_produced_key_is_not_sent():
    hello = {"produces": {"score": ["written", "winner"]}}
    assert produced_keys(None, "score") is None and produced_keys(hello, "legal") is None
    assert produced_keys(hello, "score") == {"written", "winner"}
    converted_only = next(c for c in CASES if c.kind == "score" and set(c.data["expect"]) == {"converted", "counting_team"})
    assert "produces none of the keys" in unproduced(hello, "score", converted_only.data["expect"])
    claims = Claims(engine={}, presets=frozenset({"default"}), features=frozenset(converted_only.features),
                    commands=frozenset({"score"}), hello=hello)
    assert any("produces none" in m for m in claims.missing(converted_only))


# ---- explanations --------------------------------------------------------------------------------
def _legal(case, cards):
    expected = {"turn": case.data["expect"]["turn"], "legal": sorted(canonical_action(a) for a in case.data["expect"]["legal"])}
    actual = {"turn": expected["turn"], "legal": sorted(canonical_action({"type": "play", "card": c}) for c in cards)}
    return compared_outcome(case, expected, actual)


def test_a_legal_failure_names_the_refusing_and_the_keeping_rules():
    case = BY_ID["play.follow-suit.005"]     # N must play 7S (the only spade)
    outcome = _legal(case, ["9H", "8H"])     # offers two hearts, leaves out 7S
    explain = explanation(outcome)
    assert explain["title"] == case.data["title"] and explain["note"] == case.data["note"]
    assert explain["source"] == case.data["source"]
    assert explain["path"] == "conformance/cases/play/follow-suit.json#/cases/4"
    rules = {(r["rule"], r["why"]): r for r in explain["rules"]}
    offered = rules[("play.follow-suit", "refuses")]
    assert offered["items"] == [{"card": "8H", "type": "play"}, {"card": "9H", "type": "play"}]
    assert "must follow suit" in offered["explain"] and offered["source"].startswith("de: Das Spiel")
    assert rules[("play.follow-suit", "keeps")]["items"] == [{"card": "7S", "type": "play"}]


def test_keeping_rules_are_empty_where_nothing_restricts_the_action():
    case = BY_ID["play.follow-suit.005"]
    hand = runner.replay_setup(runner.rules_for(case), case.data["setup"])
    assert keeping_rules(hand, {"type": "play", "card": "7S"}) == ["play.follow-suit"]
    lead = next(c for c in CASES if c.kind == "legal" and c.data["expect"]["legal"]
                and c.data["expect"]["legal"][0]["type"] == "play" and c.data["variant"].get("preset", "default") == "default"
                and len(c.data["expect"]["legal"]) == 8)
    hand = runner.replay_setup(runner.rules_for(lead), lead.data["setup"])
    card = lead.data["expect"]["legal"][0]["card"]
    assert keeping_rules(hand, {"type": "play", "card": card}) == []
    outcome = _legal(lead, [a["card"] for a in lead.data["expect"]["legal"][1:]])
    assert [r["rule"] for r in explanation(outcome)["rules"]] == [NO_RULE]


def test_a_refusal_failure_names_the_expected_refusal_and_a_score_failure_its_step():
    case = BY_ID["doubling.sun.015"]
    outcome = compared_outcome(case, {"reject": "double.sun.scores"}, {"reject": "double.wrong-step"})
    rule = explanation(outcome)["rules"][0]
    assert rule["rule"] == "double.sun.scores" and rule["why"] == "refuses" and "may not be doubled" in rule["message"]
    score = next(c for c in CASES if c.kind == "score" and "totals" in c.data["expect"])
    actual = dict(score.data["expect"], totals={"NS": -1, "EW": -1})
    rules = explanation(compared_outcome(score, dict(score.data["expect"]), actual))["rules"]
    assert [(r["rule"], r["items"]) for r in rules] == [("score.totals", ["totals"])]


def test_paths_are_the_repository_s_also_when_installed():
    case = BY_ID["play.follow-suit.005"]
    installed = Case(case.data, "_conformance/cases/play/follow-suit.json", case.index)
    assert repo_path(installed) == repo_path(case) == "conformance/cases/play/follow-suit.json#/cases/4"
    from baloot_spec.conformance.junit import junit_xml
    from baloot_spec.conformance.report import case_json
    outcome = runner.Outcome(installed, PASS)
    assert case_json(outcome)["path"] == "conformance/cases/play/follow-suit.json#/cases/4"
    text = junit_xml([outcome], engine={"name": "e", "version": "1"}, corpus_hash="h")
    assert 'file="conformance/cases/play/follow-suit.json"' in text and "_conformance" not in text


@pytest.mark.parametrize("depends", [None, ("first_lead", "undertrump")])
def test_knobs_come_from_depends_on_and_the_variant_and_group_failures(monkeypatch, depends):
    case = BY_ID["play.knobs.001"]
    monkeypatch.setattr(Case, "depends_on", property(lambda self: depends))
    knobs = case_knobs(case)
    assert knobs["depends_on"] == (None if depends is None else list(depends))
    assert knobs["values"]["undertrump"] == "forced"
    if depends:
        assert knobs["values"]["first_lead"] == "dealer_right"
    outcome = compared_outcome(case, {"reject": "x"}, {"reject": "y"}) if case.kind == "reject" else \
        _legal(case, [a["card"] for a in case.data["expect"]["legal"]] + ["AS"])
    outcome.details["explain"] = explanation(outcome)
    groups = {g["knob"]: [e["id"] for e in g["cases"]] for g in by_knob([outcome])}
    assert groups["undertrump=forced"] == [case.id]
    assert ("first_lead=dealer_right" in groups) == bool(depends)


# ---- the partial engine: every failure a real departure, grouped ----------------------------------
PARTIAL_CASES = [c for c in CASES if c.kind in ("score", "hand") or c.id.startswith(("play.knobs.", "play.overtrump.",
                                                                                        "play.late-projects."))]


def _departs(case) -> bool:
    """Whether the partial engine's answer differs from the case on a key it produces (the
    built-in engine under the engine's departures, asked in process: not the harness)."""
    if case.kind not in ("legal", "reject", "hand", "score"):
        return False
    try:
        expected, actual = runner._KINDS[case.kind](departed_rules(case.data["variant"]), case)
    except runner.SetupRefused:
        return True
    produced = {"score": SCORE_KEYS, "hand": HAND_KEYS}.get(case.kind, tuple(expected))
    return any(k in actual and not runner.matches_expected(expected[k], actual[k]) for k in expected if k in produced)


@pytest.fixture(scope="module")
def partial_run():
    explain_run = run_engine(PARTIAL_CASES, PARTIAL, timeout=30, jobs=2)
    from baloot_spec.conformance.explain import explain_outcomes
    explain_outcomes(explain_run.outcomes)
    return explain_run


def test_the_partial_engine_fails_exactly_its_departures_and_never_on_an_unproduced_key(partial_run):
    outcomes = partial_run.outcomes
    failing = {o.case.id for o in outcomes if o.status == FAIL}
    predicted = {c.id for c in PARTIAL_CASES if _departs(c)}
    assert failing == predicted and failing, {"unpredicted": sorted(failing - predicted), "missed": sorted(predicted - failing)}
    assert all(o.status != "error" for o in outcomes), [o.message for o in outcomes if o.status == "error"]
    for outcome in outcomes:
        if outcome.case.kind == "score" and outcome.keys:
            assert {k for k, v in outcome.keys.items() if v != "unsupported"} <= set(SCORE_KEYS)
        if outcome.status == FAIL:
            assert all(outcome.keys[k] != FAIL for k in outcome.keys if outcome.case.kind == "score" and k not in SCORE_KEYS)
    converted_only = [o for o in outcomes if o.case.kind == "score" and set(o.case.data["expect"]) <= {"converted", "counting_team"}]
    assert converted_only and all(o.status == UNSUPPORTED for o in converted_only)
    keys = [v for o in outcomes for v in o.keys.values()]
    assert keys.count("unsupported") > 100 and keys.count(PASS) > keys.count(FAIL) > 0


def test_the_partial_engine_s_failures_are_grouped_by_the_rule_and_knob_of_its_departures(partial_run):
    rules = {g["rule"]: {e["id"] for e in g["cases"]} for g in by_rule(partial_run.outcomes)}
    undertrump = rules.pop("play.hokum.undertrump")
    assert undertrump and all(BY_ID[i].data["variant"]["set"].get("undertrump") == "forced" for i in undertrump)
    assert set(rules) <= {"score.written", "score.winner"}, rules      # P1: the rounding shows in a hand's result
    knobs = {g["knob"]: {e["id"] for e in g["cases"]} for g in by_knob(partial_run.outcomes)}
    assert knobs["undertrump=forced"] == undertrump
    lines = console_lines(partial_run.outcomes)
    assert lines[0].startswith("FAILURES BY RULE") and any(l.startswith("  play.hokum.undertrump [") for l in lines)
    assert DEPARTURES["undertrump"] == "free"


def test_one_failing_case_explains_itself_in_all_four_formats(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(corpus_module, "load_corpus", lambda root=None: list(CASES))
    report, junit, md = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.md"
    command = " ".join(f"'{p}'" for p in PARTIAL)
    code = main(["conformance", "run", "--engine", command, "--id", "play.knobs.00*", "--json", str(report),
                 "--junit", str(junit), "--markdown", str(md)])
    out = capsys.readouterr().out
    assert code == 1
    data = json.loads(report.read_text())
    row = next(c for c in data["cases"] if c["status"] == "fail" and c["kind"] == "legal")
    case = BY_ID[row["id"]]
    quote = case.data["source"]["quote"]
    # JSON: legal sets as arrays of objects, the explanation, the groups
    assert all(isinstance(a, dict) for a in row["expected"]["legal"] + row["actual"]["legal"])
    assert row["explain"]["title"] == case.data["title"] and row["explain"]["source"]["quote"] == quote
    assert row["explain"]["path"].startswith("conformance/cases/play/")
    assert "undertrump=forced" in row["explain"]["knob_labels"]
    assert row["explain"]["rules"][0]["rule"] == "play.hokum.undertrump" and row["keys"]["legal"] == FAIL
    assert data["failures"]["by_rule"][0]["rule"] == "play.hokum.undertrump"
    assert data["keys"]["legal"]["legal"]["fail"] >= 1 and data["totals"]["keys"]["fail"] >= 1
    # console
    assert f"FAIL {case.id} ({row['explain']['path']})" in out and quote in out
    assert "rule:   play.hokum.undertrump refuses" in out and "undertrump=forced" in out
    # JUnit: the explanation in the failure, arrays of objects, the groups in a suite without tests
    root = ET.parse(junit).getroot()
    failure = next(t for t in root.iter("testcase") if t.get("name") == case.id).find("failure").text
    assert quote in failure and "play.hokum.undertrump" in failure and '"legal": [{"card":' in failure
    departures = next(s for s in root.iter("testsuite") if s.get("name") == "departures")
    assert departures.get("tests") == "0" and "play.hokum.undertrump" in departures.find("system-out").text
    # Markdown
    text = md.read_text()
    assert "## Failures by rule" in text and "**`play.hokum.undertrump`**" in text and "## Failures by knob" in text
    assert f"### `{case.id}`" in text and quote in text and "## Expected keys" in text


def test_a_refused_setup_event_errors_under_the_rules_that_keep_it(tmp_path):
    script = tmp_path / "no_sun.py"
    script.write_text(f'''
import json, sys
sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})
from baloot_spec.conformance.serve import BuiltinEngine
engine = BuiltinEngine()
for line in sys.stdin:
    request = json.loads(line)
    if request["cmd"] == "apply":
        results = []
        for event in request["events"]:
            if event.get("type") == "bid" and event.get("call") == "sun":
                results.append({{"accepted": False, "rule": "bid.no-sun", "message": "we do not play Sun"}})
                break
            results += engine.handle({{"seq": 0, "cmd": "apply", "events": [event]}})["results"]
        answer = {{"seq": request["seq"], "results": results}}
    else:
        answer = engine.handle(request)
    print(json.dumps(answer), flush=True)
    if request["cmd"] == "stop":
        break
''')
    cases = [BY_ID["play.follow-suit.005"], BY_ID["doubling.sun.015"]]
    # (events only: given positions, an engine is never asked the auction this one refuses)
    run = run_engine(cases, [sys.executable, str(script)], timeout=30, setups=("events",))
    from baloot_spec.conformance.explain import explain_outcomes
    explain_outcomes(run.outcomes)
    assert [o.status for o in run.outcomes] == ["error", "error"]
    assert run.outcomes[0].details["refused_event"] == 0
    rules = explanation(run.outcomes[0])["rules"]
    assert rules and all(r["why"] == "keeps" and r["items"] == [{"call": "sun", "type": "bid"}] for r in rules)
    groups = by_rule(run.outcomes)
    assert sum(len(g["cases"]) for g in groups) >= 2 and {e["status"] for g in groups for e in g["cases"]} == {"error"}


def test_junit_and_markdown_show_the_keys_a_passing_case_could_not_compare():
    from baloot_spec.conformance.junit import junit_xml
    from baloot_spec.conformance.markdown import markdown_report
    case = next(c for c in CASES if c.kind == "score" and {"written", "totals"} <= set(c.data["expect"]))
    outcome = compared_outcome(case, dict(case.data["expect"]), {"written": case.data["expect"]["written"]})
    assert outcome.status == PASS and outcome.keys["totals"] == "unsupported"
    root = ET.fromstring(junit_xml([outcome], engine={"name": "e", "version": "1"}, corpus_hash="h").split("\n", 1)[1])
    assert "totals unsupported" in next(root.iter("testcase")).find("system-out").text
    text = markdown_report([outcome], engine={"name": "e"}, corpus={"version": "0", "hash": "h", "cases": 1}, variant="v")
    assert "| score | `totals` | 0 | 0 | 1 |" in text and "| score | `written` | 1 | 0 | 0 |" in text
