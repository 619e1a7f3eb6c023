"""`baloot replay --sheet`: the score sheet shows what the engine computed, hand by hand, and
agrees with what the recording app wrote in the log (the games of conformance/games)."""

import json
from pathlib import Path

import pytest

from baloot_spec.cli import main

GAMES = Path(__file__).resolve().parent.parent / "conformance" / "games" / "default"
MATCHES = sorted(GAMES.glob("match-*.json"))


def _sheet(capsys, path):
    code = main(["replay", "--sheet", "--json", str(path)])
    return code, json.loads(capsys.readouterr().out)["sheet"]


@pytest.mark.parametrize("path", MATCHES, ids=lambda p: p.stem)
def test_the_sheet_agrees_with_the_log(path, capsys):
    document = json.loads(path.read_text(encoding="utf-8"))
    code, sheet = _sheet(capsys, path)
    assert code == 0 and len(sheet["hands"]) == len(document["hands"])
    for k, (line, record) in enumerate(zip(sheet["hands"], document["hands"])):
        claimed = record.get("claimed") or {}
        assert line["dealer"] == record["dealer"]
        if claimed.get("thrown_in"):
            assert line.get("thrown_in") is True
            continue
        for key in ("written", "card_points", "buyer"):
            if key in claimed:
                assert line[key] == claimed[key], (k, key)
        if k + 1 < len(document["hands"]) and "match_scores" in document["hands"][k + 1]:
            assert line["match"] == document["hands"][k + 1]["match_scores"]
        assert line["outcome"]      # said in words
    assert sheet["result"]["scores"] == document["claimed"]["scores"]
    assert sheet["result"]["winner"] == document["claimed"]["winner"]


def test_kaboot_and_gahwa_are_said_in_words(capsys):
    _, sheet = _sheet(capsys, GAMES / "match-hokum-kaboot.json")
    assert any("Kaboot" in " ".join(l.get("outcome", [])) for l in sheet["hands"])
    _, sheet = _sheet(capsys, GAMES / "match-gahwa.json")
    assert any("Gahwa" in " ".join(l.get("outcome", [])) for l in sheet["hands"])


def test_the_text_sheet_has_one_row_per_hand_and_the_result(capsys):
    path = GAMES / "match-long.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    assert main(["replay", "--sheet", str(path)]) == 0
    out = capsys.readouterr().out
    rows = [l for l in out.splitlines() if l[:3].strip().isdigit()]
    assert len(rows) == len(document["hands"])
    scores = document["claimed"]["scores"]
    assert f"Match won by {document['claimed']['winner']}, NS {scores['NS']} EW {scores['EW']}." in out


def test_a_hand_that_cannot_be_replayed_is_on_the_sheet(tmp_path, capsys):
    document = json.loads((GAMES / "match-long.json").read_text(encoding="utf-8"))
    document["hands"][2]["deal"]["deck"][0] = document["hands"][2]["deal"]["deck"][1]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document))
    code, sheet = _sheet(capsys, path)
    assert code == 1
    assert "appears twice" in sheet["hands"][2]["stopped"] and "match" not in sheet["hands"][2]
    assert sheet["hands"][3]["match"] == document["hands"][4]["match_scores"]   # known again from the log


def test_step_docs_are_filled_with_the_values():
    from baloot_spec.explain import fill
    values = {"winner": "NS", "buyer_team": "EW", "counting_team": "NS", "kaboot": False, "written": {"NS": 26, "EW": 0},
              "doubling": []}
    assert fill("{winner} win{winner=buyer_team?: made|: the buyers {buyer_team} fail}", values) == "NS win: the buyers EW fail"
    assert fill("{kaboot?Kaboot|No Kaboot}; {doubling?raised|not doubled}", values) == "No Kaboot; not doubled"
    assert fill("Written: {written}. {unknown}", values) == "Written: NS 26, EW 0. {unknown}"


def test_every_scoring_step_has_a_doc_sentence():
    from baloot_spec.rules import load_variant
    from baloot_spec.explain import step_docs
    rules = load_variant()
    docs = step_docs(rules)
    assert all(docs[step_id][0] for _name, step_id, _fn in rules.scoring)
