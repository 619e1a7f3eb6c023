"""Hostile engines and CLI misuse (issue 29, Build 4): every blocking operation bounded, no
process left behind, outputs whole or not at all, one-line errors with the right exit code."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from baloot_spec.cli import main
from baloot_spec.conformance.process import EngineFailure, EngineProcess

ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def _dead(pid: int) -> bool:
    """Gone, or a zombie nobody reaped yet (a container's init may not reap)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stream:
            return stream.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def _wait_dead(pids, seconds=10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if all(_dead(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _script(tmp_path, name, body) -> list:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return [sys.executable, str(path)]


def test_a_write_to_an_engine_that_never_reads_is_bounded_by_the_timeout(tmp_path):
    command = _script(tmp_path, "deaf", """
        import time
        time.sleep(60)
    """)
    engine = EngineProcess(command, timeout=1.0)
    engine.start()
    started = time.monotonic()
    with pytest.raises(EngineFailure) as info:
        engine.request({"cmd": "apply", "events": ["x" * 4_000_000]})
    assert time.monotonic() - started < 5
    assert info.value.kind == "timeout" and "did not read" in info.value.message
    engine.kill()


def test_an_engines_child_dies_with_the_run_even_when_the_engine_has_exited(tmp_path):
    pid_file = tmp_path / "child.pid"
    command = _script(tmp_path, "parent", f"""
        import subprocess, sys
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        open({str(pid_file)!r}, "w").write(str(child.pid))
        sys.stdin.readline()
        print('{{"seq": 0, "ok": true}}', flush=True)
    """)
    engine = EngineProcess(command, timeout=5.0)
    engine.start()
    assert engine.request({"cmd": "hello"})["seq"] == 0
    deadline = time.monotonic() + 5
    while engine.alive and time.monotonic() < deadline:   # the engine exits; its child lives on
        time.sleep(0.02)
    child = int(pid_file.read_text())
    assert not _dead(child)
    engine.close()
    assert _wait_dead([child])


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0", "1e300"])
def test_unrepresentable_timeouts_are_usage_errors(value, capsys):
    assert main(["conformance", "run", "--engine", "true", "--timeout", value, "--id", "match.*"]) == 2
    err = capsys.readouterr().err
    assert "--timeout" in err and "Traceback" not in err


def test_jobs_is_capped_at_the_core_count_with_a_note(tmp_path, capsys):
    path = tmp_path / "one.jsonl"
    assert main(["simulate", "--hands", "3", "--out", str(path)]) == 0
    capsys.readouterr()
    assert main(["audit", str(path), "--jobs", "99999999999"]) == 0
    assert "more than the" in capsys.readouterr().err
    assert main(["conformance", "run", "--id", "play.ekka.*", "--jobs", "99999999999", "--quiet"]) == 0
    assert "cores" in capsys.readouterr().err


def _children(pid: int) -> list:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are found through /proc")
def test_audit_jobs_workers_die_with_their_parent():
    parent = subprocess.Popen([sys.executable, "-m", "baloot_spec", "audit", "--jobs", "2", "-"], cwd=ROOT, env=ENV,
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        workers = []
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.1)
            workers = _children(parent.pid)
        assert len(workers) >= 2, workers
        parent.kill()       # SIGKILL: no finally, no atexit in the parent
        parent.wait()
        assert _wait_dead(workers), [w for w in workers if not _dead(w)]
    finally:
        parent.kill()
        parent.stdin.close()


def test_stdout_on_a_full_disk_is_one_line_and_exit_2():
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "baloot_spec", "variants"], cwd=ROOT, env=ENV,
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["baloot: error: cannot write the output: No space left on device"]


def test_stdout_closed_early_is_one_line_and_a_non_zero_exit():
    process = subprocess.Popen([sys.executable, "-m", "baloot_spec", "simulate", "--hands", "200"], cwd=ROOT, env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.read(100)
    process.stdout.close()
    assert process.wait(60) == 2
    err = process.stderr.read()
    assert err.strip().splitlines() == ["baloot: error: cannot write the output: Broken pipe"]


def test_an_interrupted_simulate_keeps_the_old_output_file(tmp_path):
    out = tmp_path / "existing.jsonl"
    out.write_text("the old, good file\n", encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "baloot_spec", "simulate", "--hands", "1000000", "--out", str(out)],
                               cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not list(tmp_path.glob(".existing.jsonl.*")):
        time.sleep(0.05)
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    assert process.wait(30) == 130
    assert out.read_text(encoding="utf-8") == "the old, good file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing.jsonl"]


def test_simulate_replaces_the_file_when_it_completes(tmp_path):
    out = tmp_path / "existing.jsonl"
    out.write_text("old\n", encoding="utf-8")
    assert main(["simulate", "--hands", "2", "--out", str(out)]) == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2


def test_conformance_json_to_stdout_is_pure_json(capsys):
    assert main(["conformance", "run", "--id", "play.ekka.*", "--json", "-"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["totals"]["pass"] > 0


@pytest.mark.parametrize("argv", [
    ["rules", "check", "--json", "--preset", "nope"],
    ["audit", "--json", "--jobs", "x", "-"],
    ["variants", "--json", "--bogus"],
    ["conformance", "run", "--json", "-", "--select", "no-such-feature"],
])
def test_a_usage_error_with_json_is_json(argv, capsys):
    assert main(argv) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["exit"] == 2 and error["message"]


def test_a_run_where_no_case_applies_exits_2_with_a_reason(capsys):
    assert main(["conformance", "run", "--set", "closed_play=false", "--id", "play.closed.010", "--quiet"]) == 2
    assert "nothing was checked" in capsys.readouterr().err
