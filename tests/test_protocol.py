"""baloot-protocol/1: the schemas, the messages the harness sends, and the verdicts through the
protocol, which must equal the in-process verdicts (through builtin_adapter.py, on the whole
corpus and on deliberately broken copies of cases)."""

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from corpus_cache import corpus

from baloot_spec.conformance import protocol
from baloot_spec.conformance.corpus import Case, feature_registry
from baloot_spec.conformance.harness import ProtocolEngine, drive_case, run_engine
from baloot_spec.conformance.protocol import PROTOCOL, ProtocolError, decode, encode, problem
from baloot_spec.conformance.runner import FAIL, PASS, run_case
from baloot_spec.conformance.serve import BuiltinEngine
from baloot_spec.conformance.status import UNSUPPORTED
from baloot_spec.rules.loader import load_presets

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "conformance" / "engines"
CASES = list(corpus())


# ---- the schemas ----------------------------------------------------------------------------------
def test_every_protocol_schema_is_a_valid_2020_12_schema_and_every_command_has_both():
    files = sorted(protocol.schema_dir().glob("*.schema.json"))
    names = {f.name.split(".schema.json")[0] for f in files}
    for path in files:
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))
    for command in protocol.COMMANDS:
        assert f"{command}.request" in names and f"{command}.response" in names, command
        protocol.validator(f"{command}.request")   # every $ref resolves
        protocol.validator(f"{command}.response")


def test_the_schemas_refuse_malformed_messages():
    assert problem("apply.response", {"seq": 1, "results": [{"accepted": False}]})          # no rule
    assert problem("query.response", {"seq": 1, "turn": "X"})                              # not a seat
    assert problem("hello.response", {"seq": 0, "protocol": "baloot-protocol/2", "engine": {"name": "x", "version": "1"},
                                      "presets": [], "knobs": {}, "features": [], "commands": []})
    assert problem("new_hand.request", {"seq": 1, "cmd": "new_hand", "variant": {"preset": "default"}, "dealer": "N",
                                        "deal": {"deck": ["AS"] * 31}, "match_scores": {"NS": 0, "EW": 0}})
    assert problem("score.response", {"seq": 1, "skipped": ""})                             # a reason is required
    assert problem("match.response", {"seq": 1, "match": {"winner": "NS", "scores": {"NS": 1}, "ended_after": 1}})
    assert problem("apply.response", {"seq": 1, "results": [{"accepted": True}, {"accepted": False, "rule": "x"}]}) is None
    assert problem("score.response", {"seq": 1, "errored": {"trace": "..."}}) is None


def test_lines_encode_and_decode():
    line = encode({"seq": 3, "cmd": "query", "what": ["turn"], "text": "a\nb"})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode(line) == {"seq": 3, "cmd": "query", "what": ["turn"], "text": "a\nb"}
    for bad in (b"not json", b"[1, 2]", b"\xff\xfe{}", b'{"seq": 1'):
        with pytest.raises(ProtocolError):
            decode(bad)


# ---- the built-in engine behind the protocol, in this process (every message checked) ------------
class Loopback:
    """Stands in for an engine process: checks each request and response against the schemas."""

    def __init__(self):
        self.engine = BuiltinEngine()
        self.seq = -1
        self.sent = []
        self.alive = True

    def request(self, message, timeout=None):
        self.seq += 1
        message = {"seq": self.seq, **message}
        if message["cmd"] not in {m["cmd"] for m in self.sent}:  # the any-request schema is slow: once per command
            assert problem("request", message) is None, (message, problem("request", message))
        assert problem(f"{message['cmd']}.request", message) is None, (message, problem(f"{message['cmd']}.request", message))
        self.sent.append(message)
        response = json.loads(json.dumps(self.engine.handle(json.loads(json.dumps(message)))))
        assert problem(f"{message['cmd']}.response", response) is None, (response, problem(f"{message['cmd']}.response", response))
        return response

    def set_mark(self):
        pass

    def stderr_tail(self, *args, **kwargs):
        return ""

    def kill(self):
        self.alive = False

    close = kill


def loopback_engine():
    engine = ProtocolEngine(["(in process)"])
    engine.process = Loopback()
    return engine


def test_every_request_and_response_follows_the_schemas_and_verdicts_match_on_a_slice():
    engine = loopback_engine()
    sample = CASES[::3] + [c for c in CASES if c.kind not in ("legal", "reject", "score")]
    kinds = set()
    for case in sample:
        outcome = drive_case(engine, case)
        assert outcome.status == run_case(case).status, case.id
        kinds.add(case.kind)
    assert {"legal", "reject", "hand", "score", "projects", "match"} <= kinds
    sent = {m["cmd"] for m in engine.process.sent}
    assert {"new_hand", "apply", "query", "score", "projects", "match"} <= sent


def test_the_builtin_hello_claims_every_feature_preset_and_command():
    hello = BuiltinEngine().handle({"seq": 0, "cmd": "hello", "protocol": PROTOCOL})
    assert problem("hello.response", hello) is None
    assert hello["features"] == list(feature_registry())
    assert set(hello["presets"]) == set(load_presets())
    assert set(hello["commands"]) == set(protocol.CLAIMABLE)
    assert hello["knobs"]["match_target"] == "any" and hello["knobs"]["kawesh"] == [False, True]


def test_apply_stops_at_the_first_refusal_and_changes_nothing():
    case = next(c for c in CASES if c.kind == "reject" and c.data["expect"]["reject"] == "play.follow-suit")
    engine = BuiltinEngine()
    setup = case.data["setup"]
    assert engine.handle({"seq": 1, "cmd": "new_hand", "variant": case.data["variant"], "dealer": setup["dealer"],
                          "deal": setup["deal"], "match_scores": {"NS": 0, "EW": 0}}) == {"seq": 1, "ok": True}
    before = engine.handle({"seq": 2, "cmd": "query", "what": ["turn", "legal"]})
    events = setup["events"] + [case.data["action"], case.data["action"]]
    response = engine.handle({"seq": 3, "cmd": "apply", "events": events})
    assert [r["accepted"] for r in response["results"]] == [True] * len(setup["events"]) + [False]
    assert response["results"][-1]["rule"] == "play.follow-suit"
    after = engine.handle({"seq": 4, "cmd": "query", "what": ["turn", "legal"]})
    assert after["turn"] == case.data["action"]["seat"] and after != before
    again = engine.handle({"seq": 5, "cmd": "apply", "events": [case.data["action"]]})
    assert again["results"] == [{"accepted": False, "rule": "play.follow-suit", "message": again["results"][0]["message"]}]


def test_unknown_commands_are_skipped_and_bad_deals_errored():
    engine = BuiltinEngine()
    assert engine.handle({"seq": 1, "cmd": "teleport"})["skipped"]
    bad = engine.handle({"seq": 2, "cmd": "new_hand", "variant": {"preset": "default"}, "dealer": "N",
                         "deal": {"hands": {"N": ["AS"], "E": [], "S": [], "W": []}, "public": "AH"},
                         "match_scores": {"NS": 0, "EW": 0}})
    assert "DealError" in bad["errored"]
    assert "no hand" in engine.handle({"seq": 3, "cmd": "query", "what": ["turn"]})["errored"]


# ---- the whole corpus through builtin_adapter.py (a subprocess) ----------------------------------
def _broken_copies(cases):
    """Copies of cases made to fail (a changed expectation) or to error (a refused setup event,
    a deal that cannot be dealt): both paths must agree on those verdicts too."""
    out = []
    for index, case in enumerate(cases[::9]):
        data = copy.deepcopy(case.data)
        expect = data["expect"]
        if case.kind == "legal":
            if index % 3 == 0 and data["setup"]["events"]:
                data["setup"]["events"].insert(0, dict(data["setup"]["events"][0]))   # the same seat twice
            elif index % 3 == 1:
                data["setup"]["deal"] = {"hands": {s: ["AS"] for s in "NESW"}, "public": "AH"}
            else:
                expect["turn"] = {"N": "E", "E": "S", "S": "W", "W": "N", None: "N"}[expect["turn"]]
        elif case.kind == "reject":
            expect["reject"] = "turn.out-of-turn" if expect["reject"] != "turn.out-of-turn" else "play.follow-suit"
        elif case.kind == "audit":
            expect["violations"].append({"path": "$.hands[0].events[0]", "rule": "turn.out-of-turn"})
        else:
            _nudge(expect)
        out.append(Case(data, case.file, case.index))
    return out


def _nudge(value):
    """Change the first number, boolean or team found in an expectation."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, bool):
                value[key] = not item
                return True
            if isinstance(item, int):
                value[key] = item + 1
                return True
            if item in ("NS", "EW"):
                value[key] = "EW" if item == "NS" else "NS"
                return True
            if _nudge(item):
                return True
    if isinstance(value, list):
        return any(_nudge(item) for item in value)
    return False


def _same(a, b):
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


@pytest.fixture(scope="session")
def adapter_run():
    cases = CASES + _broken_copies(CASES)
    run = run_engine(cases, [sys.executable, str(ENGINES / "builtin_adapter.py")], timeout=60, jobs=2)
    return cases, run


def test_the_builtin_adapter_gives_the_in_process_verdicts_on_the_whole_corpus(adapter_run):
    cases, run = adapter_run
    assert run.restarts == 0
    statuses = set()
    for case, outcome in zip(cases, run.outcomes):
        reference = run_case(case)
        assert outcome.status == reference.status, (case.id, outcome.message, reference.message)
        if reference.status == FAIL:
            assert _same(outcome.expected, reference.expected) and _same(outcome.actual, reference.actual), case.id
        statuses.add(outcome.status)
    assert statuses == {"pass", "fail", "error"}
    broken = run.outcomes[len(CASES):]
    assert sum(o.status != PASS for o in broken) >= len(broken) - 2


# ---- perft: two independent move generators agree ------------------------------------------------
def _perft(engine, case, depth):
    setup = case.data["setup"]
    engine.ask("new_hand", variant={"preset": "default", "set": {}}, dealer=setup["dealer"], deal=setup["deal"],
               match_scores=setup.get("match_scores") or {"NS": 0, "EW": 0})
    if setup["events"]:
        engine.ask("apply", events=setup["events"])
    return engine.ask("perft", depth=depth)["nodes"], len(engine.ask("query", what=["legal"])["legal"])


def test_perft_of_the_builtin_engine_and_the_oracle_agree():
    positions = [c for c in CASES if c.kind == "legal" and c.data["variant"] == {"preset": "default"}
                 and c.data["expect"]["turn"] is not None
                 and ("deck" in c.data["setup"]["deal"] or len(c.data["setup"]["deal"]["hands"]["N"]) == 8)]
    picked = [positions[0], positions[len(positions) // 2], positions[-1]]
    builtin = loopback_engine()
    oracle = ProtocolEngine([sys.executable, str(ENGINES / "oracle_adapter.py")], timeout=60)
    oracle.begin_case()
    try:
        for number, case in enumerate(picked):
            depth = 3 if number == 0 else 2
            nodes, width = _perft(builtin, case, depth)
            assert _perft(builtin, case, 1) == (width, width)
            assert _perft(builtin, case, 0) == (1, width)
            assert _perft(oracle, case, depth) == (nodes, width), case.id
            assert nodes >= width >= 1
    finally:
        oracle.close()


# ---- the oracle adapter: the same verdicts as the oracle's own case runner -----------------------
def test_the_oracle_adapter_agrees_with_the_oracles_own_runner():
    """tools/oracle/run_cases.py (the oracle's own reading of the cases) and the oracle behind the
    protocol must find the same cases failing."""
    own = subprocess.run([sys.executable, str(ROOT / "tools" / "oracle" / "run_cases.py")], capture_output=True,
                         text=True, timeout=300)
    assert own.returncode in (0, 1), own.stderr
    own_failing = {line.split()[1] for line in own.stdout.splitlines() if line.startswith("FAIL ")}
    run = run_engine(CASES, [sys.executable, str(ENGINES / "oracle_adapter.py")], timeout=60)
    assert run.restarts == 0
    ran = {c.id for c, o in zip(CASES, run.outcomes) if o.status != UNSUPPORTED}
    failing = {c.id for c, o in zip(CASES, run.outcomes) if o.status not in (PASS, UNSUPPORTED)}
    assert len(ran) > len(CASES) // 2
    assert failing == own_failing & ran


def test_the_example_engines_are_shipped_where_the_docs_say():
    for path in ("builtin_adapter.py", "oracle_adapter.py", "node-sun/engine.js", "node-sun/README.md"):
        assert (ENGINES / path).is_file(), path
    for doc in ("PROTOCOL.md", "ENGINES.md"):
        text = (ROOT / "conformance" / doc).read_text()
        assert "baloot-protocol/1" in text


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_node_engine_hello_follows_the_schema():
    reply = subprocess.run(["node", str(ENGINES / "node-sun" / "engine.js")], input=encode(
        {"seq": 0, "cmd": "hello", "protocol": PROTOCOL}) + encode({"seq": 1, "cmd": "stop"}), capture_output=True, timeout=30)
    lines = [decode(line) for line in reply.stdout.splitlines()]
    assert problem("hello.response", lines[0]) is None and lines[1] == {"seq": 1, "ok": True}
    assert set(lines[0]["features"]) <= set(feature_registry())
