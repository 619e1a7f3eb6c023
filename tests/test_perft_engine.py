"""`baloot perft --engine CMD`: the recorded perft counts checked against an engine program over
the protocol's `perft` command (before, --engine took only dsl or oracle)."""

import json
import sys
import textwrap
from pathlib import Path

from baloot_spec.cli.perft import run_perft_cli

ROOT = Path(__file__).resolve().parent.parent
BUILTIN = f"'{sys.executable}' '{ROOT / 'conformance' / 'engines' / 'builtin_adapter.py'}'"
PLAY = ROOT / "conformance" / "perft" / "default" / "play.json"


def test_the_built_in_engine_over_the_protocol_matches_every_recorded_count(capsys):
    assert run_perft_cli(["--engine", BUILTIN, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["totals"] == {"pass": len(data["positions"])} and len(data["positions"]) >= 50
    every = [v for p in data["positions"] for v in p["depths"].values()]
    assert every and all(v["nodes"] == v["expected"] for v in every)


def test_a_wrong_count_fails_and_an_unclaimed_position_is_unsupported(tmp_path, capsys):
    script = tmp_path / "off_by_one.py"
    script.write_text(textwrap.dedent(f'''
        import json, sys
        sys.path.insert(0, {str(ROOT)!r})
        from baloot_spec.conformance.serve import BuiltinEngine
        engine = BuiltinEngine()
        for line in sys.stdin:
            request = json.loads(line)
            answer = engine.handle(request)
            if request["cmd"] == "hello":
                answer["presets"] = ["default"]
            if request["cmd"] == "perft" and request["depth"] == 3:
                answer["nodes"] += 1
            print(json.dumps(answer), flush=True)
            if request["cmd"] == "stop":
                break
    '''))
    command = f"'{sys.executable}' '{script}'"
    assert run_perft_cli(["--engine", command, "--position", str(PLAY), "--id", "default.play.overtrump"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "perft(3) = 42, recorded 41" in out
    assert run_perft_cli(["--engine", command, "--position", str(PLAY), "--id", "default.play.overtrump", "--depth", "2"]) == 0
    capsys.readouterr()
    assert run_perft_cli(["--engine", command, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    statuses = {p["id"].split(".")[0]: p["status"] for p in data["positions"] if p["status"] == "unsupported"}
    assert set(statuses) == {"nl-rulebook", "online-apps", "riyadh", "saudi-federation"}
    assert data["totals"]["fail"] >= 1 and "default" not in statuses


def test_usage_errors_exit_2(capsys):
    assert run_perft_cli(["--engine", "/no/such/engine"]) == 2
    assert "cannot be used" in capsys.readouterr().err
    assert run_perft_cli(["--engine", "dsl"]) == 2
    assert "--position is required" in capsys.readouterr().err
    assert run_perft_cli(["--engine", BUILTIN, "--divide"]) == 2
    assert run_perft_cli(["--engine", BUILTIN, "--position", str(PLAY), "--id", "nope"]) == 2
    assert "no position with id" in capsys.readouterr().err
