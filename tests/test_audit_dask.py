"""`audit --dask`: on a LocalCluster of 2 workers the audit gives the one-process findings,
finding for finding, on a corpus with planted faults; a worker killed mid-run loses nothing and
counts nothing twice; a file gone mid-run is reported as unreadable and the run goes on."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baloot_spec import audit_dask
from baloot_spec.cli import main
from baloot_spec.log.reader import read_raw
from baloot_spec.cli.logs import _audit_item

distributed = pytest.importorskip("distributed")
TOOLS = Path(__file__).resolve().parent.parent / "tools"
RANGE = 20_000   # bytes per task: ~9 hands, so a small file is many tasks


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Planted faults (cards not held) in hands and in matches, a wrong claimed score, a bad
    JSON line, a document the schema refuses, a file that is not UTF-8, a single .json document."""
    root = tmp_path_factory.mktemp("corpus")
    logs = root / "logs"
    logs.mkdir()
    assert main(["simulate", "--hands", "150", "--seed", "11", "--out", str(root / "hands.jsonl")]) == 0
    assert main(["simulate", "--matches", "6", "--seed", "4", "--out", str(root / "matches.jsonl")]) == 0
    for name in ("hands", "matches"):
        subprocess.run([sys.executable, str(TOOLS / "plant_faults.py"), str(root / f"{name}.jsonl"),
                        str(logs / f"{name}.jsonl"), "--seed", "3", "--every", "7"], check=True, capture_output=True)
    planted = {json.loads(line)["line"] for line in (logs / "hands.jsonl.expected").read_text().splitlines()}
    for name in ("hands", "matches"):
        (logs / f"{name}.jsonl.expected").unlink()
    lines = (logs / "hands.jsonl").read_text().splitlines()
    k = next(k for k in range(20, 40) if k + 1 not in planted and not json.loads(lines[k])["hands"][0]["claimed"]["thrown_in"])
    doc = json.loads(lines[k])
    doc["hands"][0]["claimed"]["card_points"] = {"NS": 1, "EW": 2}   # a claimed-score difference
    lines[k] = json.dumps(doc)
    lines[33] = '{"format": "baloot-log/1", oops'                      # not JSON
    lines[47] = json.dumps({"format": "baloot-log/1"})                 # refused by the schema
    lines.insert(60, "")                                               # a blank line (counted, skipped)
    (logs / "hands.jsonl").write_text("\n".join(lines) + "\n")
    (logs / "single.json").write_text(json.dumps(json.loads(lines[5]), indent=2))
    # (not UTF-8 on its first line: one process decodes blocks of 8 KB, so of a file bad further on
    # it reads the documents up to that block, the cluster those up to the bad line; both then
    # report the file unreadable)
    (logs / "latin1.jsonl").write_bytes(b"\xe9t\xe9\n" + lines[7].encode() + b"\n")
    return logs


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=50)
    with distributed.Client(cluster) as connected:
        yield connected
    cluster.close()


def one_process(sources):
    return [_audit_item(item, None) for item in read_raw(sources)]


def test_cluster_findings_equal_one_process_on_planted_faults(corpus, client):
    sources = [str(corpus), str(corpus / "missing.jsonl")]
    expected = one_process(sources)
    got = list(audit_dask.reports(sources, None, _audit_item, client=client, range_bytes=RANGE))
    assert got == expected
    rules = {v["rule"] for r in expected for v in r["violations"]}
    assert "play.not-in-hand" in rules and len(rules) >= 2   # planted cards, and the claimed card points
    assert sum(len(r["violations"]) for r in expected) >= 20
    assert sum(1 for r in expected if r["errors"]) == 4   # bad JSON, schema, not UTF-8, missing
    assert len(audit_dask.plan([str(corpus)], RANGE)) > 20   # many ranges, so the cuts were exercised
    # compact (what the CLI asks for without --json): the same findings, the clean documents counted
    compact = list(audit_dask.reports(sources, None, _audit_item, client=client, range_bytes=RANGE, compact=True))
    assert [r for r in compact if "documents" not in r] == [r for r in expected if r["violations"] or r["errors"] or r["notes"]]
    assert sum(r.get("documents", 1) for r in compact) == len(expected)
    assert sum(r["hands"] for r in compact) == sum(r["hands"] for r in expected)


def test_a_worker_killed_mid_run_loses_nothing_and_counts_nothing_twice(corpus, client):
    sources = [str(corpus)]
    expected = one_process(sources)
    killed = []

    def kill_one(hands, done, total):
        if killed:
            return
        busy = [w for w, keys in client.processing().items() if keys]
        pids = client.run(os.getpid, workers=busy[:1])
        for address, pid in pids.items():
            os.kill(pid, signal.SIGKILL)
            killed.append(address)

    got = list(audit_dask.reports(sources, None, _audit_item, client=client, range_bytes=RANGE // 4, progress=kill_one))
    assert killed, "no worker was killed"
    assert got == expected
    # the nanny starts a new worker in its place; wait for it, for the tests after this one
    client.wait_for_workers(2, timeout=60)


def test_a_file_gone_mid_run_is_unreadable_and_the_run_goes_on(corpus, client, tmp_path):
    first, doomed, last = (tmp_path / n for n in ("a.jsonl", "b.jsonl", "c.jsonl"))
    hands = (corpus / "hands.jsonl").read_text().splitlines()
    first.write_text("\n".join(hands[:10]) + "\n")
    doomed.write_text("\n".join(hands[10:20]) + "\n")
    last.write_text("\n".join(hands[20:25]) + "\n")

    def remove(hands, done, total):
        if doomed.exists():
            doomed.unlink()

    sources = [str(first), str(doomed), str(last)]
    got = list(audit_dask.reports(sources, None, _audit_item, client=client, range_bytes=1 << 20, progress=remove, window=1))
    gone = [r for r in got if r["file"] == str(doomed)]
    assert gone == [{"file": str(doomed), "line": None, "hands": 0, "violations": [], "notes": [],
                     "errors": [{"path": "$", "message": "cannot read: No such file or directory"}]}]
    assert [r for r in got if r["file"] != str(doomed)] == one_process([str(first), str(last)])


def test_the_cli_on_a_local_cluster_gives_the_one_process_report(corpus, capsys, tmp_path):
    log = str(corpus / "hands.jsonl")
    one = main(["audit", "--json", log])
    expected = json.loads(capsys.readouterr().out)
    code = main(["audit", "--json", log, "--dask", "local:2", "--dask-range", str(RANGE), "--jsonl", str(tmp_path / "r.jsonl")])
    got = json.loads(capsys.readouterr().out)
    assert code == one == 2   # (unreadable documents: exit 2, as in one process)
    assert got["documents"] == expected["documents"]
    for key in ("documents", "hands", "violations", "unreadable", "by_rule"):
        assert got["summary"][key] == expected["summary"][key]
    assert main(["audit", "merge", "--json", str(tmp_path / "r.jsonl")]) == 2
    merged = json.loads(capsys.readouterr().out)
    assert merged["hands"] == expected["summary"]["hands"] and merged["by_rule"] == expected["summary"]["by_rule"]


def test_dask_missing_is_a_usage_error_naming_the_extra(corpus, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    assert main(["audit", str(corpus / "single.json"), "--dask", "local:1"]) == 2
    assert "pip install 'baloot-spec[dask]'" in capsys.readouterr().err


def test_bad_dask_arguments_are_usage_errors(corpus, capsys):
    assert main(["audit", str(corpus / "single.json"), "--dask", "local:zero"]) == 2
    assert "local:N" in capsys.readouterr().err
    assert main(["audit", "-", "--dask", "local:1"]) == 2
    assert "standard input" in capsys.readouterr().err
    assert main(["audit", str(corpus / "single.json"), "--dask", "local:1", "--jobs", "2"]) == 2
    assert "--jobs and --dask" in capsys.readouterr().err
    assert main(["audit", str(corpus / "single.json"), "--dask", "local:1", "--dask-range", "10"]) == 2
    assert "at least 1024" in capsys.readouterr().err
    assert main(["audit", str(corpus / "single.json"), "--dask", "nonsense://x"]) == 2
    assert "cannot reach the Dask scheduler at nonsense://x" in capsys.readouterr().err


def test_a_running_scheduler_by_its_address(corpus, client, capsys):
    log = str(corpus / "hands.jsonl")
    one = main(["audit", log])
    expected = capsys.readouterr().out.splitlines()
    assert main(["audit", log, "--dask", client.scheduler.address, "--dask-range", "4096"]) == one == 2
    got = capsys.readouterr().out.splitlines()
    timed = lambda lines: [line for line in lines if not line.startswith("audited ")]   # (the line with the time)
    assert timed(got) == timed(expected) and len(got) == len(expected) > 20


def test_a_url_is_read_by_the_workers_through_fsspec(corpus, client):
    """(file:// here; s3://, gs://... the same way, with their fsspec packages on the workers)"""
    expected = one_process([str(corpus)])
    got = list(audit_dask.reports([f"file://{corpus}"], None, _audit_item, client=client, range_bytes=RANGE))
    assert json.loads(json.dumps(got).replace(f"file://{corpus}", str(corpus))) == expected
    gone = list(audit_dask.reports([f"file://{corpus}/none.jsonl"], None, _audit_item, client=client))
    assert gone == [{"file": f"file://{corpus}/none.jsonl", "line": None, "hands": 0, "violations": [], "notes": [],
                     "errors": [{"path": "$", "message": "no such file or directory"}]}]
