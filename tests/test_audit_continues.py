"""The audit and the replay go on past what they cannot accept: an illegal action (the log is
what happened), a hand that cannot be dealt, a deal recorded without its order (issue 25)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from baloot_spec.cli import main

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "conformance" / "games" / "default"


def _doc(name="match-long.json"):
    return json.loads((GAMES / name).read_text(encoding="utf-8"))


def _write(tmp_path, document, name="log.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _audit(capsys, path):
    code = main(["audit", "--json", str(path)])
    report = json.loads(capsys.readouterr().out)
    return code, report["documents"][0]


def _plays(hand):
    return [j for j, e in enumerate(hand["events"]) if e["type"] == "play"]


def test_replay_goes_on_past_a_hand_it_cannot_deal(tmp_path, capsys):
    document = _doc()
    deck = document["hands"][1]["deal"]["deck"]
    deck[3] = deck[4]                       # a card twice: hand 2 cannot be dealt
    path = _write(tmp_path, document)
    code = main(["replay", str(path)])
    out = capsys.readouterr().out
    assert code == 1                         # as `audit`: violations found
    assert "Hand 2 " in out and "appears twice" in out.split("Hand 3 ")[0].split("Hand 2 ")[1]
    assert f"Hand {len(document['hands'])} " in out   # the later hands are told
    for k in range(1, len(document["hands"]) + 1):    # --hand K for every hand of the log
        assert main(["replay", str(path), "--hand", str(k)]) == 1
        assert f"Hand {k} " in capsys.readouterr().out
    assert main(["replay", str(path), "--hand", str(len(document["hands"]) + 1)]) == 2


def test_replay_of_a_clean_log_exits_0_and_json_has_every_hand(capsys):
    assert main(["replay", "--json", str(GAMES / "match-long.json")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["hand"] for s in data["hands"]] == list(range(1, 12))
    assert all("stopped" not in s for s in data["hands"])


def test_out_of_turn_plays_are_each_reported_and_the_hand_goes_on(tmp_path, capsys):
    document = _doc()
    hand = document["hands"][0]
    plays = _plays(hand)
    for j in (plays[1], plays[9]):          # in trick 1 and in trick 3, two seats swap turns
        hand["events"][j], hand["events"][j + 1] = hand["events"][j + 1], hand["events"][j]
    code, report = _audit(capsys, _write(tmp_path, document))
    found = [(v["path"], v["rule"], v.get("after")) for v in report["violations"] if ".events[" in v["path"]]
    first = f"$.hands[0].events[{plays[1]}]"
    # each time only the card played early is out of turn: the turn then passes to the seat
    # that was skipped, and the trick is played out as recorded
    assert found == [(first, "turn.out-of-turn", None), (f"$.hands[0].events[{plays[9]}]", "turn.out-of-turn", first)]
    assert all(v["source"] for v in report["violations"])                 # every violation has its source
    assert not any(re.search(r"\['|'[A-Z0-9]{1,3}'", v["message"]) for v in report["violations"])   # no Python reprs
    assert not any("not checked" in n for n in report["notes"])           # the hand was checked to its end
    assert code == 1


def test_a_call_out_of_turn_ends_the_hand_and_the_next_hands_are_checked(tmp_path, capsys):
    document = _doc()
    events = document["hands"][0]["events"]
    events[0], events[1] = events[1], events[0]
    document["hands"][2]["claimed"]["written"] = {"NS": 1, "EW": 1}
    code, report = _audit(capsys, _write(tmp_path, document))
    rules = [(v["path"], v["rule"]) for v in report["violations"]]
    assert rules[0] == ("$.hands[0].events[0]", "turn.out-of-turn")
    assert ("$.hands[2].claimed.written", "score.written") in rules
    assert any(n.startswith("$.hands[0].events[0]") and "not checked" in n for n in report["notes"])


def test_a_card_another_seat_held_is_taken_from_it_and_the_hand_goes_on(tmp_path, capsys):
    document = _doc()
    hand = document["hands"][0]
    plays = _plays(hand)
    a = hand["events"][plays[1]]
    b = next(hand["events"][j] for j in plays[4:] if hand["events"][j]["seat"] != a["seat"])   # a later trick's
    a["card"], b["card"] = b["card"], a["card"]     # two cards recorded in each other's place
    code, report = _audit(capsys, _write(tmp_path, document))
    rules = [(v["path"], v["rule"]) for v in report["violations"]]
    assert rules[0] == (f"$.hands[0].events[{plays[1]}]", "play.not-in-hand")
    later = [v for v in report["violations"][1:] if ".events[" in v["path"]]
    assert later and all(v.get("after") == rules[0][0] for v in later)
    assert not any("not checked" in n for n in report["notes"])           # the hand was checked to its end
    assert code == 1


def test_claimed_scores_have_their_rules_source(tmp_path, capsys):
    document = _doc()
    document["hands"][0]["claimed"]["written"] = {"NS": 1, "EW": 2}
    document["claimed"]["scores"] = {"NS": 1, "EW": 2}
    code, report = _audit(capsys, _write(tmp_path, document))
    by_rule = {v["rule"]: v for v in report["violations"]}
    assert by_rule["score.written"]["source"].startswith("de: Abrechnung 5")
    assert by_rule["match.scores"]["source"].startswith("de: Spielende")
    assert "{'" not in by_rule["match.scores"]["message"]


def test_json_lines_without_the_suffix_get_a_hint(tmp_path, capsys):
    line = json.dumps(_doc())
    path = tmp_path / "games.log"
    path.write_text(line + "\n" + line + "\n", encoding="utf-8")
    assert main(["audit", str(path)]) == 2
    assert "Extra data" in (out := capsys.readouterr().out) and ".jsonl" in out


@pytest.fixture(scope="module")
def unordered(tmp_path_factory):
    """match-long.json with every deal as each seat's final cards, shuffled (tools/final_hands.py)."""
    out = tmp_path_factory.mktemp("unordered") / "match.json"
    subprocess.run([sys.executable, str(ROOT / "tools" / "final_hands.py"), str(GAMES / "match-long.json"), str(out),
                    "--seed", "4"], check=True)
    return out


def test_an_unordered_deal_is_audited_and_says_what_it_cannot_check(unordered, capsys):
    document = json.loads(unordered.read_text())
    assert all(h["deal"].get("unordered") and len(h["deal"]["hands"]["N"]) == 8 for h in document["hands"])
    code, report = _audit(capsys, unordered)
    assert code == 0 and report["violations"] == []
    notes = [n for n in report["notes"] if "without its deal order" in n]
    assert len(notes) == len(document["hands"]) and all("not checked" in n for n in notes)


def test_a_planted_wrong_score_in_an_unordered_hand_is_caught(unordered, tmp_path, capsys):
    document = json.loads(unordered.read_text())
    claimed = document["hands"][4]["claimed"]
    right = claimed["written"]
    claimed["written"] = {team: value + 10 for team, value in right.items()}
    code, report = _audit(capsys, _write(tmp_path, document))
    [violation] = report["violations"]
    assert (violation["path"], violation["rule"]) == ("$.hands[4].claimed.written", "score.written")
    assert violation["recomputed"] == right and code == 1


def test_an_unordered_deal_checks_who_holds_the_public_card(unordered, tmp_path, capsys):
    document = json.loads(unordered.read_text())
    hand = document["hands"][0]
    deal = hand["deal"]
    holder = next(s for s, cards in deal["hands"].items() if deal["public"] in cards)
    other = next(s for s in deal["hands"] if s != holder)
    i = deal["hands"][holder].index(deal["public"])
    deal["hands"][holder][i], deal["hands"][other][0] = deal["hands"][other][0], deal["hands"][holder][i]
    code, report = _audit(capsys, _write(tmp_path, document))
    first = report["violations"][0]
    assert first["rule"] == "deal.invalid" and "public card" in first["message"] and code == 1
