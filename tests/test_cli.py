"""The command line: help, version, JSON output, exit codes."""

import json

from baloot_spec import __version__
from baloot_spec.cli import main


def test_help_and_version(capsys):
    assert main(["--help"]) == 0
    assert "conformance" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert __version__ in capsys.readouterr().out


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2


def test_a_command_family_without_its_subcommand_prints_its_own_help(capsys):
    assert main(["rules"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: baloot rules") and "names" in out and "simulate" not in out
    assert main(["conformance"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: baloot conformance") and "derive" in out


def test_rules_check_json_gives_the_resolved_variant(capsys):
    assert main(["rules", "check", "--preset", "riyadh", "--set", "kawesh=true", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["preset"] == "riyadh"
    assert data["params"]["ashkal_round_two"] is True and data["params"]["kawesh"] is True
    assert data["set"] == {"kawesh": True}
    assert len(data["hash"]) == 16


def test_variants_lists_the_presets_with_sources(capsys):
    assert main(["variants", "--json"]) == 0
    data = {p["preset"]: p for p in json.loads(capsys.readouterr().out)}
    assert {"default", "nl-rulebook", "saudi-federation", "riyadh", "online-apps"} <= set(data)
    assert all(p["sources"] for p in data.values())


def test_conformance_run_selection_and_json_report(tmp_path, capsys):
    report = tmp_path / "report.json"
    assert main(["conformance", "run", "--id", "play.ekka.*", "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "play.ekka" in out and "passed" in out
    data = json.loads(report.read_text())
    assert data["totals"]["fail"] == 0 and data["totals"]["total"] == len(data["cases"]) > 0
    assert all(c["id"].startswith("play.ekka.") for c in data["cases"])


def test_conformance_run_with_nothing_selected_is_a_usage_error(capsys):
    assert main(["conformance", "run", "--id", "no.such.*"]) == 2


def test_ctrl_c_is_one_line_and_exit_130_not_a_traceback(capsys, monkeypatch):
    import baloot_spec.cli.logs as log_commands

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(log_commands, "audit", interrupted)
    assert main(["audit", "x.jsonl"]) == 130
    err = capsys.readouterr().err
    assert err == "baloot: interrupted\n"


def test_the_command_exits_with_mains_code_and_its_whole_output(tmp_path):
    # `python -m baloot_spec` (what the `baloot` script runs: console()) freezes the run's
    # objects before exiting; what it printed and wrote must all be there, with main's code
    import subprocess
    import sys
    out = tmp_path / "hands.jsonl"
    made = subprocess.run([sys.executable, "-m", "baloot_spec", "simulate", "--hands", "30", "--seed", "3", "--out", str(out)],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    assert len(out.read_text().splitlines()) == 30
    audited = subprocess.run([sys.executable, "-m", "baloot_spec", "audit", "--json", str(out)], capture_output=True, text=True)
    assert audited.returncode == 0, audited.stderr
    report = json.loads(audited.stdout)
    assert report["summary"]["hands"] == 30 and len(report["documents"]) == 30
    refused = subprocess.run([sys.executable, "-m", "baloot_spec", "audit", str(tmp_path / "missing.jsonl")],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "missing.jsonl" in refused.stdout and "unreadable" in refused.stdout
