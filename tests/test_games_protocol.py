"""Recorded games as conformance (baloot conformance games): the game logs of conformance/games/
replayed through an engine over the protocol, step by step; the first divergence of each game
is reported with its rule."""

import json
import sys
from pathlib import Path

import pytest

from baloot_spec.cli import main
from baloot_spec.conformance.games import AGREES, DIVERGES, ERROR, UNSUPPORTED, run_games

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "conformance" / "games" / "default"
ENGINES = ROOT / "conformance" / "engines"
FAULTY = ROOT / "tests" / "data" / "faulty_engine.py"
SOME = [str(GAMES / name) for name in ("hand-hokum-doubled.json", "hand-hokum-ekka.json", "match-long.json",
                                        "hand-sun-doubled.json", "hand-thrown-in.json", "hand-round-two-hokum.json")]


def _overlay(tmp_path, name, body):
    path = tmp_path / f"{name}.yaml"
    path.write_text(f'overlay: {name}\ntitle: "test"\nsource: "choice: test"\n{body}', encoding="utf-8")
    return str(path)


def test_the_oracle_agrees_with_every_recorded_game_step_by_step():
    outcomes, hello = run_games([str(GAMES)], [sys.executable, str(ENGINES / "oracle_adapter.py")], timeout=60)
    assert len(outcomes) == len(list(GAMES.glob("*.json"))) >= 40
    assert {o.status for o in outcomes} == {AGREES}, [(o.game, o.message) for o in outcomes if o.status != AGREES][:3]
    assert sum(o.steps for o in outcomes) > 3000 and all(not o.not_compared for o in outcomes)


def test_an_engine_taking_positions_only_is_given_each_hand_at_the_start_of_its_play():
    outcomes, _ = run_games(SOME, [sys.executable, str(ROOT / "tests" / "data" / "position_only_engine.py")], timeout=60)
    assert {o.status for o in outcomes} == {AGREES}
    thrown_in = next(o for o in outcomes if o.game.endswith("hand-thrown-in.json"))
    assert thrown_in.steps == 0 and thrown_in.not_compared


def test_a_wrong_legal_set_is_the_first_divergence_with_the_rule_that_refuses_what_is_offered(tmp_path):
    overlay = _overlay(tmp_path, "no-follow", "remove: [play.follow-suit]\n")
    outcomes, _ = run_games(SOME, [sys.executable, str(FAULTY), overlay], timeout=60)
    diverging = [o for o in outcomes if o.status == DIVERGES]
    assert len(diverging) >= 4
    for outcome in diverging:
        divergence = outcome.divergence
        assert divergence["kind"] == "legal" and divergence["rule"] == "play.follow-suit"
        assert divergence["path"].startswith("$.hands[") and ".events[" in divergence["path"]
        assert all(item["rule"] == "play.follow-suit" for item in divergence["offered_but_refused"])
        assert not divergence["legal_but_not_offered"]


def test_a_doubling_that_ends_on_one_pass_diverges_on_the_turn(tmp_path):
    overlay = _overlay(tmp_path, "one-pass", "replace:\n  - id: doubling.pass\n    phase: doubling\n    when: \"call == 'pass'\"\n"
                                             "    set: {asked: \"none\"}\n    source: \"choice: test\"\n")
    outcomes, _ = run_games(SOME, [sys.executable, str(FAULTY), overlay], timeout=60)
    turns = [o.divergence for o in outcomes if o.status == DIVERGES]
    assert turns and all(d["kind"] == "turn" and d["rule"] == "phase.doubling" for d in turns)


def test_a_wrong_claimed_result_names_its_scoring_step(tmp_path):
    overlay = _overlay(tmp_path, "baloot-four", "replace:\n  - id: score.baloot-points\n    name: baloot_points\n"
                                                "    expr: \"map((4 if baloot[t] else 0) for t in const.teams)\"\n"
                                                "    source: \"choice: test\"\n")
    outcomes, _ = run_games([str(GAMES / "hand-hokum-doubled.json")], [sys.executable, str(FAULTY), overlay], timeout=60)
    (outcome,) = outcomes
    assert outcome.status == DIVERGES
    assert outcome.divergence["kind"] == "result" and outcome.divergence["rule"] == "score.totals"
    assert outcome.divergence["path"] == "$.hands[0].claimed.totals"
    assert outcome.divergence["expected"] != outcome.divergence["actual"]


def test_a_wrong_match_winner_is_a_divergence_of_its_match_step(tmp_path):
    # match-long.json ends 164 to 132 (its claimed final: NS wins, de: Spielende "gewinnt die
    # Partei mit mehr Punkten"); the fake engine's match names the team behind
    overlay = _overlay(tmp_path, "lower-wins", "replace:\n  - id: match.winner\n    name: winner\n"
                                               "    expr: \"none if not ended else first(t for t in const.teams if new_scores[t] != top)\"\n"
                                               "    source: \"choice: test\"\n")
    outcomes, _ = run_games([str(GAMES / "match-long.json")], [sys.executable, str(FAULTY), overlay], timeout=60)
    (outcome,) = outcomes
    assert outcome.status == DIVERGES and outcome.hands == 11
    assert outcome.divergence["kind"] == "match" and outcome.divergence["rule"] == "match.winner"
    assert (outcome.divergence["expected"], outcome.divergence["actual"]) == ("NS", "EW")


def test_a_log_whose_claimed_final_scores_are_not_its_rules_is_not_a_clean_game(tmp_path):
    document = json.loads((GAMES / "match-long.json").read_text(encoding="utf-8"))
    document["claimed"]["scores"] = {"NS": 165, "EW": 132}
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    (outcome,) = run_games([str(path)], [sys.executable, str(ENGINES / "oracle_adapter.py")], timeout=60)[0]
    assert outcome.status == ERROR and "$.claimed.scores" in outcome.message and "not a clean game" in outcome.message


def test_an_engine_without_the_match_command_has_the_match_not_compared():
    (outcome,) = run_games([str(GAMES / "match-long.json")],
                           [sys.executable, str(ROOT / "tests" / "data" / "position_only_engine.py")], timeout=60)[0]
    assert outcome.status == AGREES and "the match (command match not claimed)" in outcome.not_compared


def test_an_engine_that_skips_the_match_keeps_its_hands_compared(tmp_path):
    fake = tmp_path / "no_match.py"
    fake.write_text(
        "import json, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from baloot_spec.conformance.serve import BuiltinEngine\n"
        "e = BuiltinEngine()\n"
        "for line in sys.stdin:\n"
        "    q = json.loads(line)\n"
        "    r = {'seq': q['seq'], 'skipped': 'no match here'} if q['cmd'] == 'match' else e.handle(q)\n"
        "    print(json.dumps(r), flush=True)\n"
        "    if e.stopped: break\n", encoding="utf-8")
    (outcome,) = run_games([str(GAMES / "match-long.json")], [sys.executable, str(fake)], timeout=60)[0]
    assert outcome.status == AGREES and outcome.hands == 11
    assert any(n.startswith("the match (skipped by the engine") for n in outcome.not_compared)


def test_games_outside_the_engines_claims_are_unsupported(tmp_path):
    fake = tmp_path / "narrow.py"
    fake.write_text(
        "import json, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from baloot_spec.conformance.serve import BuiltinEngine\n"
        "e = BuiltinEngine()\n"
        "for line in sys.stdin:\n"
        "    r = e.handle(json.loads(line))\n"
        "    if 'presets' in r: r['presets'] = ['riyadh']\n"
        "    print(json.dumps(r), flush=True)\n"
        "    if e.stopped: break\n", encoding="utf-8")
    outcomes, _ = run_games(SOME[:2], [sys.executable, str(fake)], timeout=60)
    assert {o.status for o in outcomes} == {UNSUPPORTED} and "preset default" in outcomes[0].message


def test_the_command_line(tmp_path, capsys):
    assert main(["conformance", "games", "--quiet", *SOME[:2]]) == 0
    assert "games: 2 agree, 0 diverge" in capsys.readouterr().out
    overlay = _overlay(tmp_path, "no-follow", "remove: [play.follow-suit]\n")
    report = tmp_path / "games.json"
    code = main(["conformance", "games", "--engine", f"{sys.executable} {FAULTY} {overlay}", "--json", str(report), *SOME[:3]])
    out = capsys.readouterr().out
    assert code == 1 and "DIVERGES" in out and "[rule play.follow-suit]" in out
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["totals"]["diverges"] >= 1 and document["games"][0]["divergence"]["rule"] == "play.follow-suit"
    assert main(["conformance", "games", "--engine", "no-such-program-xyz", *SOME[:1]]) == 2
    assert "cannot be used" in capsys.readouterr().err
    assert main(["conformance", "games", str(tmp_path / "nothing-here")]) == 1
    assert "ERROR" in capsys.readouterr().out


@pytest.mark.parametrize("args", [["--timeout", "0"]])
def test_usage_errors_exit_2(args, capsys):
    assert main(["conformance", "games", *args]) == 2
