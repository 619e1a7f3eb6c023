"""The harness against misbehaving engines: each fake engine below (a Python script written into
tmp_path) answers correctly through the oracle adapter, except once, where it crashes, hangs,
prints garbage, answers another seq, writes megabytes on a line, exits early... The run must
report exactly that case as an error, with the engine's stderr, restart the engine and go on."""

import json
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest
from corpus_cache import corpus

from baloot_spec.cli import main
from baloot_spec.conformance.harness import EngineUnavailable, run_engine
from baloot_spec.conformance.runner import ERROR, FAIL, PASS
from baloot_spec.conformance.status import NOT_APPLICABLE, SKIPPED, UNSUPPORTED

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "conformance" / "engines"
CASES = list(corpus())
MATCH = [c for c in CASES if c.kind == "match"][:7]     # fast to answer, all passed by the oracle
TRIGGER = 3                                             # the third match request misbehaves

FAKE = textwrap.dedent('''
    """A fake engine: the oracle adapter, misbehaving once (mode in argv[1])."""
    import json, os, sys, time
    sys.path.insert(0, {engines!r})
    from oracle_adapter import Adapter, Skip

    mode, flag, pids = sys.argv[1], sys.argv[2], sys.argv[3]
    trigger = {trigger}
    with open(pids, "a") as fh:
        fh.write(f"{{os.getpid()}}\\n")
    if mode == "dead-on-restart" and os.path.exists(flag):
        sys.stderr.write("cannot start twice\\n")
        sys.exit(5)
    if mode == "bad-hello":
        sys.stdin.readline(); print("hello yourself", flush=True); time.sleep(5); sys.exit(0)
    if mode == "old-protocol":
        req = json.loads(sys.stdin.readline())
        print(json.dumps({{"seq": req["seq"], "protocol": "baloot-protocol/0", "engine": {{"name": "old", "version": "0"}},
                          "presets": [], "knobs": {{}}, "features": [], "commands": []}}), flush=True)
        sys.exit(0)
    if mode == "silent":
        time.sleep(30); sys.exit(0)

    adapter, seen = Adapter(), 0
    out = sys.stdout

    def reply(obj):
        out.write(json.dumps(obj) + "\\n"); out.flush()

    for line in sys.stdin:
        req = json.loads(line)
        cmd, seq = req["cmd"], req["seq"]
        if mode == "stderr-flood":
            sys.stderr.write("x" * 200000 + "\\n"); sys.stderr.flush()
        if mode == "slow":
            time.sleep(0.05)
        if cmd == "stop":
            reply({{"seq": seq, "ok": True}}); break
        if cmd == "match":
            seen += 1
        if cmd == "match" and seen == trigger and not os.path.exists(flag):
            open(flag, "w").close()
            sys.stderr.write(f"fake engine: misbehaving ({{mode}}) at seq {{seq}}\\n"); sys.stderr.flush()
            if mode in ("crash", "dead-on-restart"):
                sys.stderr.write("Traceback: boom, crashing on purpose\\n"); sys.stderr.flush()
                os._exit(3)
            if mode == "hang":
                time.sleep(120)
            if mode == "garbage":
                out.write("this is not json\\n"); out.flush(); continue
            if mode == "binary":
                out.buffer.write(b"\\xff\\xfe\\x00 not text\\n"); out.flush(); continue
            if mode == "wrong-seq":
                seq += 5
            if mode == "huge":
                out.write('{{"seq": %d, "pad": "' % seq + "x" * 3000000 + '"}}\\n'); out.flush(); continue
            if mode == "exit":
                sys.exit(0)
            if mode == "invalid":
                reply({{"seq": seq, "match": {{"winner": 5}}}}); continue
            if mode == "skip":
                reply({{"seq": seq, "skipped": "matches are not my thing"}}); continue
            if mode == "errored":
                reply({{"seq": seq, "errored": {{"exception": "IndexError", "at": "Match.kt:12"}}}}); continue
            if mode == "lie":
                answer = adapter.match(req)
                answer["match"]["scores"]["NS"] += 1
                reply(dict({{"seq": seq}}, **answer)); continue
        try:
            handler = getattr(adapter, cmd)
            reply(dict({{"seq": seq}}, **handler(req)))
        except Skip as exc:
            reply({{"seq": seq, "skipped": str(exc)}})
''')


@pytest.fixture
def fake(tmp_path):
    """fake(mode) -> (command, pid file): a fake engine that misbehaves once in that mode."""
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE.format(engines=str(ENGINES), trigger=TRIGGER))

    def make(mode):
        pids = tmp_path / f"{mode}.pids"
        return [sys.executable, str(script), mode, str(tmp_path / f"{mode}.flag"), str(pids)], pids
    return make


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie still answers kill(0): look at its state
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return True


def _check_once(run, failure_kind, message_part, stderr_part="misbehaving"):
    """Exactly the trigger case errored, with this failure; every other case passed."""
    statuses = [o.status for o in run.outcomes]
    bad = run.outcomes[TRIGGER - 1]
    assert statuses == [PASS] * (TRIGGER - 1) + [ERROR] + [PASS] * (len(MATCH) - TRIGGER), [o.message for o in run.outcomes]
    assert bad.details.get("failure") == failure_kind, bad.message
    assert message_part in bad.message
    if stderr_part:
        assert stderr_part in bad.details.get("stderr", ""), bad.details
    return bad


@pytest.mark.parametrize("mode, kind, text", [
    ("crash", "exited", "exit code 3"),
    ("exit", "exited", "exited before answering"),
    ("garbage", "garbage", "not JSON"),
    ("binary", "garbage", "not UTF-8"),
    ("wrong-seq", "wrong-seq", "seq"),
    ("huge", "oversized", "longer than"),
])
def test_a_misbehaving_engine_errors_that_case_and_is_restarted(fake, mode, kind, text):
    command, pids = fake(mode)
    run = run_engine(MATCH, command, timeout=20)
    bad = _check_once(run, kind, text)
    assert run.restarts == 1
    if mode == "crash":
        assert "crashing on purpose" in bad.details["stderr"]
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 2 and not any(_alive(pid) for pid in started)


def test_a_hanging_engine_times_out_is_killed_and_the_run_goes_on(fake):
    command, pids = fake("hang")
    began = time.monotonic()
    run = run_engine(MATCH, command, timeout=1.0)
    elapsed = time.monotonic() - began
    _check_once(run, "timeout", "within 1 s")
    assert elapsed < 15, elapsed
    first = int(pids.read_text().split()[0])
    assert not _alive(first), "the hung engine was not killed"


def test_responses_that_break_the_schema_skipped_and_errored_need_no_restart(fake):
    for mode, status, text in (("invalid", ERROR, "protocol: invalid response to match"),
                               ("skip", SKIPPED, "matches are not my thing"),
                               ("errored", ERROR, "Match.kt:12")):
        command, _ = fake(mode)
        run = run_engine(MATCH, command, timeout=20)
        assert [o.status for o in run.outcomes].count(PASS) == len(MATCH) - 1, mode
        assert run.outcomes[TRIGGER - 1].status == status and text in run.outcomes[TRIGGER - 1].message, mode
        assert run.restarts == 0, mode


def test_a_wrong_answer_is_a_fail_with_expected_and_actual(fake):
    command, _ = fake("lie")
    run = run_engine(MATCH, command, timeout=20)
    bad = run.outcomes[TRIGGER - 1]
    expected_scores = MATCH[TRIGGER - 1].data["expect"]["scores"]
    assert bad.status == FAIL and bad.expected["scores"] == expected_scores
    assert bad.actual["scores"]["NS"] == expected_scores["NS"] + 1
    assert [o.status for o in run.outcomes].count(PASS) == len(MATCH) - 1


def test_an_engine_that_cannot_be_restarted_errors_the_rest_quickly(fake):
    command, pids = fake("dead-on-restart")
    began = time.monotonic()
    run = run_engine(MATCH, command, timeout=5)
    assert time.monotonic() - began < 10
    statuses = [o.status for o in run.outcomes]
    assert statuses[:TRIGGER - 1] == [PASS] * (TRIGGER - 1) and set(statuses[TRIGGER - 1:]) == {ERROR}
    assert "cannot start twice" in run.outcomes[TRIGGER].details.get("stderr", "")
    assert "could not be restarted" in run.outcomes[-1].message
    assert len(pids.read_text().split()) == 3      # the first start and two restart attempts


def test_a_slow_engine_and_a_stderr_flood_still_pass_and_jobs_give_the_same_verdicts(fake):
    slow, _ = fake("slow")
    cases = MATCH + [c for c in CASES if c.kind == "legal"][:5]
    one = run_engine(cases, slow, timeout=5)
    assert [o.status for o in one.outcomes] == [PASS] * len(cases)
    flood, _ = fake("stderr-flood")
    two = run_engine(cases, flood, timeout=5, jobs=2)
    assert [o.status for o in two.outcomes] == [PASS] * len(cases)


@pytest.mark.parametrize("mode, text", [("bad-hello", "not JSON"), ("old-protocol", "baloot-protocol/1"),
                                        ("silent", "no response to hello (seq 0) within 1 s")])
def test_an_engine_without_a_proper_hello_is_unusable(fake, mode, text):
    command, _ = fake(mode)
    with pytest.raises(EngineUnavailable) as info:
        run_engine(MATCH, command, timeout=1.0, hello_timeout=1.0)
    assert text in str(info.value)


# ---- the command line ------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _corpus_once(monkeypatch):
    """The CLI loads the corpus on every call; here it gets the session's copy."""
    import baloot_spec.conformance.corpus as corpus_module
    monkeypatch.setattr(corpus_module, "load_corpus", lambda root=None: list(CASES))


def _cli(args, capsys):
    code = main(["conformance", "run"] + args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _engine_arg(command):
    return " ".join(f"'{part}'" for part in command)


def test_cli_engine_that_cannot_start_or_greet_exits_2(fake, capsys):
    code, _, err = _cli(["--engine", "/no/such/engine --flag", "--id", "match.*"], capsys)
    assert code == 2 and "cannot start" in err and "Traceback" not in err
    command, _ = fake("bad-hello")
    code, _, err = _cli(["--engine", _engine_arg(command), "--timeout", "1", "--id", "match.*"], capsys)
    assert code == 2 and "not JSON" in err


def test_cli_reports_a_crash_with_the_stderr_tail_in_every_format(fake, tmp_path, capsys):
    command, _ = fake("crash")
    report, junit, md = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.md"
    code, out, _ = _cli(["--engine", _engine_arg(command), "--id", "match.*", "--json", str(report),
                         "--junit", str(junit), "--markdown", str(md)], capsys)
    assert code == 1
    crashed = [c for c in CASES if c.kind == "match"][TRIGGER - 1].id
    assert f"ERROR {crashed}" in out and "stderr| Traceback: boom" in out
    text = report.read_text()
    data = json.loads(text)
    lines = [json.loads(line.rstrip(",")) for line in text.splitlines() if line.startswith('    {"id"')]
    assert len(lines) == len(data["cases"]) == data["totals"]["total"]
    row = next(c for c in data["cases"] if c["id"] == crashed)
    assert row["status"] == "error" and "crashing on purpose" in row["stderr"] and row["failure"] == "exited"
    assert data["engine"]["name"] == "baloot-spec oracle" and data["run"]["engine_restarts"] == 1
    assert data["corpus"]["hash"] and data["corpus"]["cases"] == len(CASES)
    assert "crashing on purpose" in junit.read_text() and f'name="{crashed}"' in junit.read_text()
    assert f"### `{crashed}`" in md.read_text() and "- **error**: engine exited" in md.read_text()


def test_cli_expected_failures_accept_known_failures_and_cannot_go_stale(fake, tmp_path, capsys):
    command, _ = fake("lie")
    lied = [c for c in CASES if c.kind == "match"][TRIGGER - 1].id
    passing = [c for c in CASES if c.kind == "match"][0].id
    base = ["--engine", _engine_arg(command), "--id", "match.*", "--quiet"]
    xf = tmp_path / "xf.json"

    xf.write_text(json.dumps({lied: "we add a point"}))
    code, out, _ = _cli(base + ["--expected-failures", str(xf)], capsys)
    assert code == 0 and "1 expected failures" in out

    (tmp_path / "lie.flag").unlink()
    xf.write_text(json.dumps({lied: "we add a point", passing: "thought it failed"}))
    report = tmp_path / "r.json"
    code, out, _ = _cli(base + ["--expected-failures", str(xf), "--json", str(report)], capsys)
    assert code == 1 and f"ERROR {passing}" in out and "remove the entry" in out
    row = next(c for c in json.loads(report.read_text())["cases"] if c["id"] == lied)
    assert row["status"] == "fail" and row["expected_failure"] == "we add a point"

    (tmp_path / "lie.flag").unlink()
    xf.write_text(json.dumps({lied: "we add a point", "match.gone.999": "renamed long ago"}))
    code, out, _ = _cli(base + ["--expected-failures", str(xf), "--json", str(report)], capsys)
    assert code == 1 and "STALE" in out and "match.gone.999" in out
    assert json.loads(report.read_text())["expected_failures"]["stale"][0]["id"] == "match.gone.999"


@pytest.mark.parametrize("content, text", [("{not json", "not valid JSON"), ('["a"]', "JSON object"),
                                           ('{"play.turn.001": 3}', "non-empty string")])
def test_cli_unreadable_expected_failures_exit_2_located(tmp_path, capsys, content, text):
    xf = tmp_path / "xf.json"
    xf.write_text(content)
    code, _, err = _cli(["--id", "match.end.001", "--expected-failures", str(xf)], capsys)
    assert code == 2 and str(xf) in err and text in err and "Traceback" not in err


@pytest.mark.parametrize("args, text", [(["--select", "play.nonsense"], "names no feature"),
                                        (["--exclude", "zzz"], "names no feature"),
                                        (["--preset", "atlantis"], "not a preset"),
                                        (["--timeout", "0"], "above 0"),
                                        (["--jobs", "0"], "at least 1"),
                                        (["--engine", ""], "--engine"),
                                        (["--junit", "/no/such/dir/x.xml"], "does not exist")])
def test_cli_usage_errors_exit_2(capsys, args, text):
    code, _, err = _cli(args + ["--id", "match.end.001"], capsys)
    assert code == 2 and text in err, err


def test_cli_preset_marks_other_cases_not_applicable_and_select_takes_lists(tmp_path, capsys):
    report = tmp_path / "r.json"
    code, out, _ = _cli(["--preset", "saudi-federation", "--select", "match.end,scoring.tie", "--json", str(report),
                         "--quiet"], capsys)
    assert code == 0
    data = json.loads(report.read_text())
    statuses = {c["id"]: c["status"] for c in data["cases"]}
    chosen = [c for c in CASES if {"match.end", "scoring.tie"} & set(c.features)]
    assert set(statuses) == {c.id for c in chosen}
    from baloot_spec.conformance.harness import target_of
    from baloot_spec.conformance.retarget import knobs_agree
    target = target_of("saudi-federation")
    for case in chosen:     # a case applies when it agrees with the preset on the knobs it depends on
        applies = knobs_agree(case, target.knobs, target.overlays)
        assert statuses[case.id] == (PASS if applies else NOT_APPLICABLE), case.id
    assert data["totals"]["not_applicable"] > 0 and data["totals"]["pass"] > 0


def test_cli_set_narrows_the_selected_rules(tmp_path, capsys):
    """--preset default --set K=V selects exactly the cases written for those rules."""
    report = tmp_path / "r.json"
    code, out, _ = _cli(["--preset", "default", "--set", "first_lead=buyer", "--json", str(report), "--quiet"], capsys)
    assert code == 0
    data = json.loads(report.read_text())
    ran = {c["id"] for c in data["cases"] if c["status"] == PASS}
    expected = {c.id for c in CASES if c.data["variant"].get("set") == {"first_lead": "buyer"}
                and c.data["variant"]["preset"] == "default"}
    assert ran >= expected and expected
    assert all(c["status"] in (PASS, NOT_APPLICABLE) for c in data["cases"])


def test_unsupported_cases_are_not_sent(fake, tmp_path):
    """The claims decide: a hello without `match` makes every match case unsupported, unsent."""
    script = tmp_path / "narrow.py"
    script.write_text(textwrap.dedent(f'''
        import json, sys
        sys.path.insert(0, {str(ENGINES)!r})
        from oracle_adapter import Adapter
        adapter = Adapter()
        for line in sys.stdin:
            req = json.loads(line)
            if req["cmd"] == "hello":
                hello = adapter.hello(req)
                hello["commands"] = ["score"]
                hello["features"] = [f for f in hello["features"] if f != "scoring.kaboot"]
                print(json.dumps(dict(seq=req["seq"], **hello)), flush=True)
            elif req["cmd"] == "stop":
                print(json.dumps({{"seq": req["seq"], "ok": True}}), flush=True)
                break
            else:
                assert req["cmd"] == "score", req
                print(json.dumps(dict(seq=req["seq"], **adapter.score(req))), flush=True)
    '''))
    cases = MATCH + [c for c in CASES if c.kind == "score"][:40]
    run = run_engine(cases, [sys.executable, str(script)], timeout=20)
    for case, outcome in zip(cases, run.outcomes):
        if case.kind == "match":
            assert outcome.status == UNSUPPORTED and "command match" in outcome.message
        elif "scoring.kaboot" in case.features:
            assert outcome.status == UNSUPPORTED and "feature scoring.kaboot" in outcome.message
        else:
            assert outcome.status == PASS, (case.id, outcome.message)
