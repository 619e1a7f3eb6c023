"""The auditor: simulated logs audit clean; planted faults are found exactly where planted."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from baloot_spec.cli import main

TOOLS = Path(__file__).resolve().parent.parent / "tools"


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    path = tmp_path_factory.mktemp("logs") / "hands.jsonl"
    assert main(["simulate", "--hands", "400", "--seed", "7", "--out", str(path)]) == 0
    return path


def audit_json(capsys, *argv):
    code = main(["audit", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_simulated_hands_audit_clean(simulated, capsys):
    code, report = audit_json(capsys, str(simulated))
    assert code == 0
    assert report["summary"]["hands"] == 400 and report["summary"]["violations"] == 0


def test_simulated_matches_audit_clean(tmp_path, capsys):
    path = tmp_path / "matches.jsonl"
    assert main(["simulate", "--matches", "4", "--seed", "3", "--out", str(path)]) == 0
    code, report = audit_json(capsys, str(path))
    assert code == 0 and report["summary"]["violations"] == 0
    assert all(d["hands"] >= 1 for d in report["documents"])


def test_planted_cards_not_held_are_the_first_violation(simulated, tmp_path, capsys):
    planted = tmp_path / "planted.jsonl"
    before = simulated.read_bytes()
    subprocess.run([sys.executable, str(TOOLS / "plant_faults.py"), str(simulated), str(planted), "--seed", "5"], check=True)
    expected = {json.loads(l)["line"]: json.loads(l)["path"] for l in Path(str(planted) + ".expected").read_text().splitlines()}
    assert len(expected) == 40
    code, report = audit_json(capsys, str(planted))
    assert code == 1
    for document in report["documents"]:
        if document["line"] in expected:
            first = document["violations"][0]
            assert first["path"] == expected[document["line"]], document
            assert first["rule"] == "play.not-in-hand"
        else:
            assert document["violations"] == [], document
    assert simulated.read_bytes() == before  # the input is never modified


def test_a_wrong_claimed_score_names_the_step(simulated, tmp_path, capsys):
    lines = simulated.read_text().splitlines()
    document = next(json.loads(l) for l in lines if not json.loads(l)["hands"][0]["claimed"]["thrown_in"])
    claimed = document["hands"][0]["claimed"]
    claimed["written"] = {"NS": claimed["written"]["NS"] + 1, "EW": claimed["written"]["EW"]}
    path = tmp_path / "one.json"
    path.write_text(json.dumps(document))
    code, report = audit_json(capsys, str(path))
    assert code == 1
    [violation] = report["documents"][0]["violations"]
    assert violation["path"] == "$.hands[0].claimed.written" and violation["rule"] == "score.written"


@pytest.mark.parametrize("text, message", [
    ("{not json", "not valid JSON"),
    ('{"format": "baloot-log/2"}', "baloot-log/1"),
    ('{"format": "baloot-log/1", "variant": {"preset": "default"}, "match": {"first_dealer": "X"}, "hands": []}', "'X' is not one of"),
])
def test_unreadable_input_is_reported_and_exits_2(tmp_path, capsys, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    code = main(["audit", str(path)])
    out = capsys.readouterr().out
    assert code == 2 and message in out and "Traceback" not in out


def test_an_unknown_card_in_the_deal_is_a_located_violation(simulated, tmp_path, capsys):
    document = json.loads(simulated.read_text().splitlines()[0])
    document["hands"][0]["deal"]["deck"][5] = "1X"
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(document))
    code, report = audit_json(capsys, str(path))
    [violation] = report["documents"][0]["violations"]
    assert violation["rule"] == "deal.invalid" and "deal.deck[5]" in violation["path"] and code == 1


def test_replay_tells_the_hand(simulated, capsys):
    assert main(["replay", str(simulated.parent / "hands.jsonl"), "--hand", "1"]) in (0,)
    out = capsys.readouterr().out
    assert "Hand 1" in out
    assert main(["replay", "--json", str(simulated)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, list) and data[0]["hands"]


def test_a_refused_announcement_counts_as_not_said(tmp_path, capsys):
    """W leads KS announcing Ekka though his own AS is still out: the Ekka is refused, so it
    cannot excuse E (W's partner, no spades) from trumping the led King (de: Das Spiel, Hokum 3)."""
    deal = {"hands": {"W": ["JH", "9H", "AS", "KS", "QS", "7H", "8C", "7C"],
                      "S": ["AH", "TH", "AC", "KC", "QC", "JS", "TS", "9S"],
                      "E": ["KH", "QH", "AD", "KD", "QD", "JD", "TD", "9D"],
                      "N": ["8H", "TC", "JC", "9C", "8D", "7D", "8S", "7S"]}, "public": "7H"}
    events = [{"seat": "W", "type": "bid", "call": "hokum"}, {"seat": "S", "type": "bid", "call": "pass"},
              {"seat": "E", "type": "bid", "call": "pass"}, {"seat": "N", "type": "bid", "call": "pass"},
              {"seat": "W", "type": "bid", "call": "pass"},   # asked last on his own Hokum (hokum_bidder_sun)
              {"seat": "S", "type": "double", "call": "pass"}, {"seat": "N", "type": "double", "call": "pass"},
              {"seat": "W", "type": "play", "card": "KS", "ekka": True},
              {"seat": "S", "type": "play", "card": "9S"},
              {"seat": "E", "type": "play", "card": "AD"}]
    log = {"format": "baloot-log/1", "variant": {"preset": "default"}, "match": {"first_dealer": "N"},
           "hands": [{"dealer": "N", "deal": deal, "events": events}]}
    path = tmp_path / "ekka.json"
    path.write_text(json.dumps(log))
    code, report = audit_json(capsys, str(path))
    found = [(v["path"], v["rule"]) for v in report["documents"][0]["violations"]]
    assert found == [("$.hands[0].events[7]", "play.ekka.not-highest"),
                     ("$.hands[0].events[9]", "play.hokum.partner-led-exception"),
                     ("$.hands[0].events", "hand.incomplete")]
    assert code == 1


def _log_of_case(case_id, tmp_path):
    """A one-hand baloot-log/1 document from a hand case of the corpus (no claims)."""
    for path in (Path(__file__).resolve().parent.parent / "conformance" / "cases").glob("*/*.json"):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            if case["id"] == case_id:
                setup = case["setup"]
                doc = {"format": "baloot-log/1", "variant": {"preset": case["variant"]["preset"]},
                       "match": {"first_dealer": setup["dealer"]},
                       "hands": [{"dealer": setup["dealer"], "deal": setup["deal"], "events": setup["events"]}]}
                out = tmp_path / (case_id + ".json")
                out.write_text(json.dumps(doc), encoding="utf-8")
                return out
    raise LookupError(case_id)


@pytest.mark.parametrize("case_id, index, rule", [
    ("bidding.pickup.007", 8, "trump.pickup.refused"),
    ("play.late-projects.001", 10, "play.declare.not-first-trick"),
])
def test_nl_events_audit_clean_under_nl_and_are_found_under_de(case_id, index, rule, tmp_path, capsys):
    log = _log_of_case(case_id, tmp_path)
    code, report = audit_json(capsys, str(log))
    assert code == 0 and report["summary"]["violations"] == 0
    code, report = audit_json(capsys, "--preset", "default", str(log))
    found = [(v["path"], v["rule"]) for d in report["documents"] for v in d["violations"]]
    assert code == 1 and found == [(f"$.hands[0].events[{index}]", rule)]


def test_replay_tells_an_event_without_fields(tmp_path, capsys):
    log = _log_of_case("bidding.pickup.007", tmp_path)
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert "W hokum . S pass . E pass . N pass . W pickup . S double: pass" in out and "contract  sun  buyer W" in out


def test_jobs_give_the_same_reports_in_the_same_order(simulated, tmp_path, capsys):
    # Worker processes must not change a verdict or the order of the documents: planted faults,
    # an unreadable line and a wrong claim, audited with one process and with two.
    planted = tmp_path / "planted.jsonl"
    subprocess.run([sys.executable, str(TOOLS / "plant_faults.py"), str(simulated), str(planted), "--seed", "9"], check=True)
    lines = planted.read_text().splitlines()
    faulty = {json.loads(l)["line"] for l in Path(str(planted) + ".expected").read_text().splitlines()}
    clean = next(n for n in range(300, len(lines))   # a played document with no planted fault
                 if n + 1 not in faulty and not json.loads(lines[n])["hands"][0]["claimed"]["thrown_in"])
    document = json.loads(lines[clean])
    document["hands"][0]["claimed"]["totals"] = {"NS": 1, "EW": 1}
    lines[clean] = json.dumps(document)
    lines.insert(123, "{not json")
    planted.write_text("\n".join(lines) + "\n")
    one_code, one = audit_json(capsys, str(planted))
    two_code, two = audit_json(capsys, "--jobs", "2", str(planted))
    assert one_code == two_code == 2   # (the unreadable line)
    assert one["documents"] == two["documents"]
    assert [d["line"] for d in two["documents"]] == list(range(1, len(lines) + 1))
    for key in ("documents", "hands", "violations", "unreadable", "by_rule"):
        assert one["summary"][key] == two["summary"][key]
    assert one["summary"]["violations"] >= 41 and one["summary"]["unreadable"] == 1
    wrong_claim = two["documents"][clean + 1]   # (its line is clean + 2: one line was inserted before it)
    assert [v["path"] for v in wrong_claim["violations"]] == ["$.hands[0].claimed.totals"]


def test_a_worker_process_that_dies_ends_the_audit_with_one_line_and_exit_2(simulated, capsys, monkeypatch):
    import os
    import baloot_spec.cli.logs as log_commands
    audit_one = log_commands._audit_item

    def dies_at_line_200(item, override):   # (the forked workers inherit it)
        if item[1] == 200:
            os._exit(9)
        return audit_one(item, override)

    monkeypatch.setattr(log_commands, "_audit_item", dies_at_line_200)
    assert main(["audit", "--jobs", "2", str(simulated)]) == 2
    captured = capsys.readouterr()
    assert "baloot: error: a worker process stopped without answering (exit code 9)" in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize("jobs", ["0", "-3"])
def test_jobs_below_one_is_a_usage_error(simulated, capsys, jobs):
    assert main(["audit", "--jobs", jobs, str(simulated)]) == 2
    assert "--jobs takes a whole number of at least 1" in capsys.readouterr().err
