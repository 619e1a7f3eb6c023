"""`audit --jsonl FILE` (any mode) and `audit merge`: a line per finding in input order, a line
per input and one for the run; shards merged give the totals of one audit of all of them; a bad
report is a located error (exit 2)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from baloot_spec.cli import main

TOOLS = Path(__file__).resolve().parent.parent / "tools"


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    root = tmp_path_factory.mktemp("shards")
    assert main(["simulate", "--hands", "60", "--seed", "21", "--out", str(root / "all.jsonl")]) == 0
    subprocess.run([sys.executable, str(TOOLS / "plant_faults.py"), str(root / "all.jsonl"), str(root / "planted.jsonl"),
                    "--seed", "2", "--every", "5"], check=True, capture_output=True)
    lines = (root / "planted.jsonl").read_text().splitlines()
    lines[3] = "{not json"
    (root / "a.jsonl").write_text("\n".join(lines[:30]) + "\n")
    (root / "b.jsonl").write_text("\n".join(lines[30:]) + "\n")
    return root


def records(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


@pytest.mark.parametrize("mode", [[], ["--jobs", "2"]])
def test_report_lines_in_input_order_with_summaries(shards, tmp_path, capsys, mode):
    report = tmp_path / "r.jsonl"
    code = main(["audit", "--json", *mode, "--jsonl", str(report), str(shards / "a.jsonl"), str(shards / "b.jsonl")])
    whole = json.loads(capsys.readouterr().out)
    assert code == 2   # (one unreadable line)
    lines = records(report)
    assert lines[0] == {"kind": "report", "format": "baloot-audit-jsonl/1", "logs": [str(shards / "a.jsonl"), str(shards / "b.jsonl")]}
    assert lines[-1]["kind"] == "summary"
    for key in ("documents", "hands", "violations", "unreadable", "by_rule"):
        assert lines[-1][key] == whole["summary"][key]
    findings = [r for r in lines if r["kind"] == "violation"]
    assert findings == [{"kind": "violation", **v} for d in whole["documents"] for v in d["violations"]]
    assert [(r["file"], r["line"]) for r in findings] == sorted((r["file"], r["line"]) for r in findings)
    unreadable = [r for r in lines if r["kind"] == "unreadable"]
    assert [(r["file"], r["line"]) for r in unreadable] == [(str(shards / "a.jsonl"), 4)]
    inputs = [r for r in lines if r["kind"] == "input"]
    assert [r["file"] for r in inputs] == [str(shards / "a.jsonl"), str(shards / "b.jsonl")]
    assert sum(r["hands"] for r in inputs) == whole["summary"]["hands"]
    # each input's line comes after its own findings and before the next input's
    positions = {r["file"]: k for k, r in enumerate(lines) if r["kind"] == "input"}
    assert all(k < positions[r["file"]] for k, r in enumerate(lines) if r["kind"] == "violation")


def test_merged_shards_give_the_totals_of_one_audit(shards, tmp_path, capsys):
    for name in ("a", "b"):
        main(["audit", "--jsonl", str(tmp_path / f"{name}.report.jsonl"), str(shards / f"{name}.jsonl")])
    capsys.readouterr()
    main(["audit", "--json", str(shards / "a.jsonl"), str(shards / "b.jsonl")])
    whole = json.loads(capsys.readouterr().out)["summary"]
    code = main(["audit", "merge", "--json", str(tmp_path / "a.report.jsonl"), str(tmp_path / "b.report.jsonl")])
    merged = json.loads(capsys.readouterr().out)
    assert code == 2
    for key in ("documents", "hands", "violations", "unreadable", "by_rule"):
        assert merged[key] == whole[key]
    assert merged["reports"] == 2 and merged["inputs"] == 2
    assert merged["by_file"][str(shards / "b.jsonl")]["hands"] == 30
    assert sum(f["violations"] for f in merged["by_file"].values()) == whole["violations"] > 0


def test_bad_reports_are_located_errors(shards, tmp_path, capsys):
    good = tmp_path / "good.jsonl"
    main(["audit", "--jsonl", str(good), str(shards / "b.jsonl")])
    capsys.readouterr()
    lines = good.read_text().splitlines()
    cases = {
        "truncated": ("\n".join(lines[:-1]), "ends without its summary line"),
        "not json": ("\n".join(lines[:2] + ["{oops"] + lines[2:]), ":3: not JSON"),
        "not a report": (lines[1], ":1: not a baloot-audit-jsonl/1 report"),
        "unknown kind": ("\n".join(lines[:1] + ['{"kind": "mystery"}'] + lines[1:]), ":2: unknown kind 'mystery'"),
        "counts": ("\n".join(lines[:-1] + [lines[-1].replace('"hands": 30', '"hands": 31')]), "input lines add up to"),
        "negative": ("\n".join(lines[:-2] + [lines[-2].replace('"hands": 30', '"hands": -1')] + lines[-1:]),
                     "whole numbers of at least 0"),
    }
    for name, (text, message) in cases.items():
        bad = tmp_path / f"{name.replace(' ', '_')}.jsonl"
        bad.write_text(text + "\n")
        assert main(["audit", "merge", str(bad)]) == 2, name
        err = capsys.readouterr().err
        assert message in err and str(bad) in err, (name, err)
    assert main(["audit", "merge", str(good), str(good)]) == 2
    assert "given twice" in capsys.readouterr().err
    copy = tmp_path / "copy.jsonl"
    copy.write_text(good.read_text())
    assert main(["audit", "merge", str(good), str(copy)]) == 2
    assert "would count twice" in capsys.readouterr().err
    assert main(["audit", "merge", str(tmp_path / "absent.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
