"""The game logs of conformance/games: every one audits clean with baloot_spec and replays, claim
for claim, with the independent oracle (tools/verify_games.py)."""

import importlib.util
import json
from pathlib import Path

import pytest

from baloot_spec.cli import main

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "conformance" / "games"
FILES = sorted(GAMES.rglob("*.json"))
LINES = sorted(GAMES.rglob("*.jsonl"))   # whole matches per preset (tools/grow_games.py), one a line
DOCUMENTS = len(FILES) + sum(1 for f in LINES for line in f.read_text(encoding="utf-8").splitlines() if line.strip())


def _verify_games():
    spec = importlib.util.spec_from_file_location("verify_games", ROOT / "tools" / "verify_games.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_corpus_has_enough_games():
    names = [f.name for f in FILES]
    assert sum(n.startswith("hand-") for n in names) >= 30
    assert sum(n.startswith("match-") for n in names) >= 10


def test_every_preset_has_a_hundred_hands_of_whole_matches():
    from baloot_spec.rules.loader import load_presets
    for preset in load_presets():
        hands = sum(len(json.loads(f.read_text(encoding="utf-8"))["hands"]) for f in (GAMES / preset).glob("*.json"))
        for f in (GAMES / preset).glob("*.jsonl"):
            hands += sum(len(json.loads(line)["hands"]) for line in f.read_text(encoding="utf-8").splitlines() if line.strip())
        assert hands >= 100, preset


def test_the_preset_matches_are_what_the_tool_chooses():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "grow_games.py"), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_game_is_described_in_the_readme():
    readme = (GAMES / "README.md").read_text(encoding="utf-8")
    missing = [f.name for f in FILES if f.name not in readme]
    assert not missing, missing


def test_every_game_is_complete():
    for f in FILES:
        document = json.loads(f.read_text(encoding="utf-8"))
        assert document["hands"], f
        assert all("claimed" in hand for hand in document["hands"]), f
        assert "claimed" in document, f


def test_every_game_audits_clean(capsys):
    code = main(["audit", "--json", str(GAMES)])
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["documents"] == DOCUMENTS
    bad = [(d["file"], d["violations"], d["errors"]) for d in report["documents"] if d["violations"] or d["errors"]]
    assert code == 0 and not bad, bad


def test_the_oracle_replays_every_game(capsys):
    verify = _verify_games()
    diffs, count, totals = verify.verify([str(GAMES)])
    assert count == DOCUMENTS and totals["hands"] > count
    assert diffs == []
    assert verify.main([str(GAMES)]) == 0


@pytest.mark.parametrize("key, value", [("written", {"NS": 0, "EW": 0}), ("winner", "NS")])
def test_verify_games_finds_a_wrong_claim(tmp_path, key, value, capsys):
    document = json.loads((GAMES / "default" / "hand-hokum-buyers-lose.json").read_text(encoding="utf-8"))
    document["hands"][0]["claimed"][key] = value
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert _verify_games().main([str(path)]) == 1
    assert "$.hands[0].claimed." + key in capsys.readouterr().out


def test_the_audit_cases_agree_with_the_oracle(capsys):
    """tools/verify_audit_cases.py: every planted fault of conformance/cases/audit is refused by the
    oracle with the expected rule, and an oracle-based referee reports exactly the expected violations."""
    spec = importlib.util.spec_from_file_location("verify_audit_cases", ROOT / "tools" / "verify_audit_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    code = module.main([])
    out = capsys.readouterr().out
    assert code == 0, out
