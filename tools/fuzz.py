"""Fuzz every reader with hostile input (issue 29): logs, rules overlays (YAML structure and the
expression grammar), case files, expected-failures files, engine replies, misbehaving engines.

    python tools/fuzz.py --minutes 5 [--seed S] [--targets logs,rules,...] [--json]
    python tools/fuzz.py --replay logs:SEED      (one finding's input again, its exception shown)

Each input must end as a located error or a verdict, in bounded time, with no process left
behind and no input file changed; anything else is a finding (a traceback, a hang, a leftover
process, a changed input, an error without a location). Prints, per reader: inputs tried,
outcomes, findings, and the peak memory of the process. Exit 1 if there is any finding.

The generators take a random.Random, so that tests/test_hostile_fuzz.py drives the same ones
from hypothesis (a bounded run in the test suite); this tool runs them for minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import resource
import sys
import tempfile
import textwrap
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from baloot_spec.errors import BalootError, CaseError, LocatedError, RulesError  # noqa: E402

HANG_SECONDS = {"engines": 30.0}   # per input; every other reader: 10 s
DEFAULT_HANG = 10.0


class Finding(Exception):
    """An input the reader did not handle as the policy says: kind is traceback, hang,
    leftover, changed or unlocated."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail


# ---- hostile fragments ---------------------------------------------------------------------------

def hostile_json_value(rng: random.Random) -> str:
    """A JSON value (or something close to one) of one of the attack's classes."""
    depth = rng.choice([3, 49, 51, 200, 5000, 100000])
    choices = [
        lambda: "9" * rng.choice([101, 4299, 4301, 20000]),            # huge integers
        lambda: "-" + "1" * rng.choice([50, 5000]),
        lambda: "[" * depth + "]" * depth,                               # depth
        lambda: '{"a":' * depth + "1" + "}" * depth,
        lambda: "[" * depth,                                             # truncated depth
        lambda: rng.choice(["NaN", "Infinity", "-Infinity", "1e999", "-0", "0.1e-999"]),
        lambda: '"' + rng.choice(["\\u0000", "\x00", "\x01", "\u2028", "\\ud800", "\\", "\x7f"]) + '"',
        lambda: '{"k": 1, "k": 2}',                                      # duplicate keys
        lambda: '"' + "x" * rng.choice([1000, 200000]) + '"',
        lambda: rng.choice(["true", "null", "{}", "[]", '""', "0", '"N"', '"7S"', "[1,2]", '{"type":"play"}']),
        lambda: rng.choice(["\ufeff", "é", "\u202e"]),
    ]
    return rng.choice(choices)()


def mutate_text(rng: random.Random, text: str, fragment=hostile_json_value) -> str:
    """One to three mutations of `text`: truncation, a hostile value in place of a value, an
    inserted fragment or control character, a duplicated key, deleted or swapped characters."""
    for _ in range(rng.randint(1, 3)):
        if not text:
            text = fragment(rng)
            continue
        at = rng.randrange(len(text) + 1)
        op = rng.randrange(8)
        if op == 0:
            text = text[:at]
        elif op == 1:   # replace the value after a random colon
            colon = text.find(":", at)
            if colon < 0:
                colon = text.rfind(":")
            if colon >= 0:
                end = colon + 1
                while end < len(text) and text[end] not in ",}]\n":
                    end += 1
                text = text[:colon + 1] + fragment(rng) + text[end:]
        elif op == 2:
            text = text[:at] + fragment(rng) + text[at:]
        elif op == 3:
            text = text[:at] + rng.choice(["\x00", "\x01", "\x1b", "\x7f", "\t", "\r", "\ufffe", "\n"]) + text[at:]
        elif op == 4:   # duplicate a key
            brace = text.find("{", at)
            quote = text.find('"', brace) if brace >= 0 else -1
            colon = text.find(":", quote) if quote >= 0 else -1
            if colon > 0:
                text = text[:brace + 1] + text[quote:colon + 1] + "0," + text[brace + 1:]
        elif op == 5:
            text = text[:at] + text[at + rng.randint(1, 20):]
        elif op == 6:
            text = text[:at] + text[at:at + 50] * rng.randint(2, 50) + text[at + 50:]
        else:
            text = text.replace(rng.choice(['"N"', '"S"', '"hokum"', '"sun"', "0", "1", "true"]),
                                rng.choice(['"X"', "1", "null", "[]", '"sun"', "-1", "9" * 120]), rng.randint(1, 3))
    return text


# ---- shared inputs ---------------------------------------------------------------------------------

_BASE: dict = {}


def base_logs() -> list[str]:
    """A few valid log documents (one-hand and a match), made once by the built-in engine."""
    if "logs" not in _BASE:
        from baloot_spec.rules import load_variant
        from baloot_spec.simulate import simulate_hands, simulate_matches
        rules = load_variant()
        documents = list(simulate_hands(rules, 4, 11)) + list(simulate_matches(rules, 1, 11, max_hands=6))
        _BASE["logs"] = [json.dumps(d, separators=(",", ":")) for d in documents]
    return _BASE["logs"]


def base_case_files() -> list[str]:
    if "cases" not in _BASE:
        folder = ROOT / "conformance" / "cases"
        files = sorted(folder.rglob("*.json"))
        _BASE["cases"] = [files[i].read_text(encoding="utf-8") for i in range(0, len(files), max(1, len(files) // 6))]
    return _BASE["cases"]


OVERLAYS = [
    "remove: [play.hokum.partner-led-exception]\n",
    "replace:\n  - id: play.hokum.partner-led-exception\n    phase: play\n"
    "    when: \"side_suit_led and void_in_led and partner_winning\"\n    only: \"{expr}\"\n"
    "    if_possible: true\n    source: \"choice: fuzz\"\n",
    "add:\n  functions:\n    - id: fn.fuzz\n      name: {name}\n      params: [x]\n      expr: \"{expr}\"\n"
    "      source: 'choice: fuzz'\n",
    "add:\n  rules:\n    - id: play.fuzz\n      phase: play\n      when: \"{expr}\"\n      only: \"true\"\n"
    "      source: 'choice: fuzz'\n",
]

NAMES = ["card", "hand", "trick", "trump", "led_suit", "mode", "actor", "partner_winning", "x", "len", "sum",
         "unknown_name", "param.first_lead", "const.trump_order", "is_trump(card)", "wins(card)"]


def hostile_expression(rng: random.Random, depth: int = 0) -> str:
    """An expression of the rule language, often hostile: very long, very deep, huge literals,
    unknown names, bad syntax, nested aggregates."""
    roll = rng.random()
    if roll < 0.04:
        return "not " * rng.choice([41, 600, 2000]) + "true"
    if roll < 0.08:
        return "true" + " and true" * rng.choice([39, 45, 1000, 50000])
    if roll < 0.11:
        return "1" + " + 1" * rng.choice([30, 1100, 100000])
    if roll < 0.14:
        return "1 if true else " * rng.choice([30, 5000]) + "2"
    if roll < 0.17:
        return "9" * rng.choice([99, 101, 5000])
    if roll < 0.20:
        return rng.choice(["(", ")", "1 +", "'unterminated", "a..b", "\x00", "true true", "[1, 2", "{a: }", "é"])
    if roll < 0.25:
        return "(" * rng.choice([10, 300]) + "1" + ")" * rng.choice([10, 300])
    if depth > 4 or roll < 0.45:
        return rng.choice(NAMES + ["1", "0", "'hokum'", "true", "none", "[]"])
    a, b = hostile_expression(rng, depth + 1), hostile_expression(rng, depth + 1)
    return rng.choice([
        f"{a} and {b}", f"{a} or {b}", f"not {a}", f"{a} + {b}", f"{a} == {b}", f"{a} in {b}",
        f"{a} if {b} else {a}", f"len({a})", f"any({a} for c in hand if {b})", f"count(1 for c in hand if {b})",
        f"[{a} for c in {b}]", f"{{k: {a}}}", f"{a}.suit", f"{a}[{b}]", f"sum({a}, {b})", f"({a})",
    ])


def hostile_overlay(rng: random.Random) -> str:
    """An overlay file's text: a valid shape filled with hostile expressions, often mutated,
    sometimes with YAML attacks (aliases, depth, NUL, tabs, huge integers)."""
    name = rng.choice(["fuzz_fn", "len", "sum", "any", "ok_name"])
    body = rng.choice(OVERLAYS).replace("{expr}", hostile_expression(rng).replace('"', "'")).replace("{name}", name)
    text = "overlay: fuzz\ntitle: fuzz\nsource: 'choice: fuzz'\n" + body
    roll = rng.random()
    if roll < 0.15:
        levels = rng.randint(2, 9)
        text += "x0: &l0 [lol]\n" + "".join(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]\n" for i in range(1, levels))
    elif roll < 0.2:
        text += "loop: &a [*a]\n"
    elif roll < 0.25:
        text += "deep: " + "[" * rng.choice([49, 60, 5000]) + "]" * rng.choice([49, 60, 5000]) + "\n"
    elif roll < 0.3:
        text += "deep:\n" + "".join("  " * i + "k:\n" for i in range(1, rng.choice([30, 60, 2000])))
    elif roll < 0.6:
        text = mutate_text(rng, text, lambda r: r.choice(["\x00", "*a", "&a", "\t", "- ", ": ", "'", '"', "9" * 5000,
                                                          "{", "[", "!!python/object:os.system", "<<: *a", "%YAML 9"]))
    return text


# ---- the targets ----------------------------------------------------------------------------------

def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def target_logs(rng: random.Random, work: Path) -> str:
    """A mutated log document, through the reader and the auditor (as text, or as a file)."""
    from baloot_spec.log.reader import read_raw
    from baloot_spec.cli.logs import _audit_item
    text = mutate_text(rng, rng.choice(base_logs())) if rng.random() < 0.9 else rng.choice(base_logs())
    if rng.random() < 0.5:
        path = work / rng.choice(["in.jsonl", "in.json"])
        data = text.encode("utf-8", "surrogatepass")
        if rng.random() < 0.1:
            data = data[:rng.randrange(len(data) + 1)] + bytes([rng.choice([0x80, 0xff, 0xc3, 0x00])]) + data
        path.write_bytes(data)
        before = _digest(path)
        items = list(read_raw([str(path)]))
        if _digest(path) != before:
            raise Finding("changed", "the auditor changed its input file")
    else:
        items = [("fuzz.jsonl", 1, text, None)]
    verdicts = Counter()
    for item in items:
        report = _audit_item(item, None)
        if not isinstance(report, dict):
            raise Finding("traceback", f"a report that is not a dict: {report!r}")
        for error in report["errors"]:
            if not error.get("path") or not error.get("message"):
                raise Finding("unlocated", f"an error without a path or message: {error}")
        verdicts["unreadable" if report["errors"] else "violations" if report["violations"] else "clean"] += 1
        json.dumps(report)   # the report is JSON (a huge number would fail here)
    return "+".join(sorted(verdicts)) or "empty"


def target_rules(rng: random.Random, work: Path) -> str:
    """A hostile overlay given with --overlay: loads, or a RulesError located in that file."""
    from baloot_spec.expr import parser
    from baloot_spec.rules import load_variant
    from baloot_spec.rules import loader
    path = work / "fuzz.yaml"
    path.write_bytes(hostile_overlay(rng).encode("utf-8", "surrogatepass"))
    before = _digest(path)
    try:
        load_variant("default", {}, [str(path)])
        outcome = "loaded"
    except RulesError as exc:
        if not exc.message or not (exc.location.file == str(path) or exc.location.file.startswith("rules/")
                                   or exc.location.file == "overlays"):
            raise Finding("unlocated", f"{exc.render()[:300]}") from None
        outcome = "located-error"
    finally:   # (the caches keep every text seen: a long run would grow)
        _forget(loader, path)
        parser.TREES.clear()
    if _digest(path) != before:
        raise Finding("changed", "loading changed the overlay file")
    return outcome


def _forget(loader, path: Path) -> None:
    """Drop the loader's cached copies of the fuzzed file (the rules files' stay: re-checking
    them costs a second an input)."""
    for key in [k for k in loader._CHECKED if k[0] == str(path)]:
        del loader._CHECKED[key]


def target_overlays(rng: random.Random, work: Path) -> str:
    """A hostile overlay resolved (YAML, schema, ids) without compiling: many more inputs a
    second than `rules`, for the YAML attacks."""
    from baloot_spec.rules import loader
    from baloot_spec.rules.loader import resolve_variant
    path = work / "fuzz.yaml"
    path.write_bytes(hostile_overlay(rng).encode("utf-8", "surrogatepass"))
    try:
        resolve_variant("default", {}, [str(path)])
        return "resolved"
    except RulesError as exc:
        if not exc.message or exc.location.file not in (str(path), "overlays"):
            raise Finding("unlocated", exc.render()[:300]) from None
        return "located-error"
    finally:
        _forget(loader, path)


def target_cases(rng: random.Random, work: Path) -> str:
    from baloot_spec.conformance.corpus import load_case_file
    path = work / "cases.json"
    path.write_bytes(mutate_text(rng, rng.choice(base_case_files())).encode("utf-8", "surrogatepass"))
    before = _digest(path)
    try:
        load_case_file(path)
        outcome = "loaded"
    except CaseError as exc:
        if exc.location.file != str(path) or not exc.message:
            raise Finding("unlocated", exc.render()[:300]) from None
        outcome = "located-error"
    if _digest(path) != before:
        raise Finding("changed", "loading changed the case file")
    return outcome


def target_expected(rng: random.Random, work: Path) -> str:
    from baloot_spec.conformance.expectations import load_expected_failures
    path = work / "xf.json"
    path.write_bytes(mutate_text(rng, '{"play.ekka.one": "known", "score.two": "a reason"}').encode("utf-8", "surrogatepass"))
    try:
        load_expected_failures(str(path))
        return "loaded"
    except CaseError as exc:
        if exc.location.file != str(path):
            raise Finding("unlocated", exc.render()[:300]) from None
        return "located-error"


REPLIES = ['{"seq":0,"ok":true}', '{"seq":3,"turn":"N","phase":"play","legal":["{\\"type\\":\\"play\\",\\"card\\":\\"7S\\"}"]}',
           '{"seq":1,"errored":"no"}', '{"seq":2,"skipped":"not supported"}', '{"seq":5,"result":{"NS":10,"EW":0}}']


def target_replies(rng: random.Random, work: Path) -> str:
    """An engine's response line: decoded and checked, or a ProtocolError."""
    from baloot_spec.conformance.protocol import ProtocolError, check_response, decode
    text = mutate_text(rng, rng.choice(REPLIES))
    line = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.1:
        line += bytes([rng.choice([0x80, 0xff, 0xfe])])
    try:
        value = decode(line)
        check_response(rng.choice(["query", "apply", "score", "hello", "match"]), value)
        return "valid"
    except ProtocolError:
        return "protocol-error"


ENGINE_MISBEHAVIOURS = {
    "not-reading": "time.sleep(60)",
    "garbage": "sys.stdin.readline(); sys.stdout.buffer.write(os.urandom(3000) + b'\\n'); sys.stdout.flush(); time.sleep(60)",
    "huge-line": "sys.stdin.readline(); sys.stdout.write('x' * 3000000); sys.stdout.flush(); time.sleep(60)",
    "flood-no-newline": "sys.stdin.readline()\nwhile True: sys.stdout.write('y' * 65536)",
    "child-then-exit": "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); sys.stdin.readline(); sys.exit(3)",
    "child-holding-pipes": "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], stdout=sys.stdout); sys.exit(0)",
    "stderr-flood": "sys.stdin.readline()\nfor _ in range(300): sys.stderr.write('z' * 100000)",
    "huge-int": "line = sys.stdin.readline(); seq = json.loads(line)['seq']; print('{\"seq\": %d, \"n\": %s}' % (seq, '9' * 5000), flush=True); time.sleep(60)",
    "deep": "line = sys.stdin.readline(); seq = json.loads(line)['seq']; print('{\"seq\": %d, \"n\": %s}' % (seq, '[' * 100000 + ']' * 100000), flush=True); time.sleep(60)",
    "dup-keys": "line = sys.stdin.readline(); print('{\"seq\": 0, \"seq\": 0}', flush=True); time.sleep(60)",
    "ignores-sigterm": "signal.signal(signal.SIGTERM, signal.SIG_IGN); sys.stdin.readline(); time.sleep(60)",
    "fork-bomb-lite": "[subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']) for _ in range(5)]; time.sleep(60)",
}


def _pids_alive(pids) -> list:
    alive = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as stream:
                if stream.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
                    alive.append(pid)
        except OSError:
            pass
    return alive


def _group_members(pgid: int) -> list:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                members.append(int(entry.name))
    return members


def target_engines(rng: random.Random, work: Path) -> str:
    """A misbehaving engine program run against two cases with --timeout 1: the run ends with
    each case an error (or the engine unusable), and no process of the engine's group is left."""
    from baloot_spec.conformance.corpus import load_case_file
    from baloot_spec.conformance.harness import EngineUnavailable, run_engine
    kind = rng.choice(sorted(ENGINE_MISBEHAVIOURS))
    script = work / f"engine_{kind}.py"
    pids = work / "pids.txt"
    pids.write_text("", encoding="utf-8")
    correct = rng.choice([0, 0, 1, 2, 3])   # requests answered correctly before misbehaving
    script.write_text("import json, os, signal, subprocess, sys, time\n"
                      f"open({str(pids)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
                      f"sys.path.insert(0, {str(ROOT)!r})\n"
                      "from baloot_spec.conformance.serve import BuiltinEngine\n"
                      "engine = BuiltinEngine()\n"
                      f"for _ in range({correct}):\n"
                      "    line = sys.stdin.readline()\n"
                      "    if not line: sys.exit(0)\n"
                      "    print(json.dumps(engine.handle(json.loads(line))), flush=True)\n"
                      + textwrap.dedent(ENGINE_MISBEHAVIOURS[kind]) + "\n", encoding="utf-8")
    kind = f"{kind}@{correct}"
    if "corpus" not in _BASE:   # (two match cases: one file, not the whole corpus, is read)
        _BASE["corpus"] = load_case_file(ROOT / "conformance" / "cases" / "match" / "end.json")[:2]
    cases = _BASE["corpus"]
    try:
        run = run_engine(cases, [sys.executable, str(script)], timeout=1.0, hello_timeout=1.0)
        outcome = "ran:" + ",".join(sorted({o.status for o in run.outcomes}))
    except EngineUnavailable:
        outcome = "unavailable"
    engines = [int(p) for p in pids.read_text().split()]
    deadline = time.monotonic() + 5
    left = []
    while time.monotonic() < deadline:
        left = [m for pid in engines for m in _group_members(pid)]
        if not left:
            break
        time.sleep(0.05)
    if left:
        raise Finding("leftover", f"{kind}: processes {left} of the engine's group outlived the run")
    return f"{kind}:{outcome}"


TARGETS = {"logs": target_logs, "overlays": target_overlays, "rules": target_rules, "cases": target_cases, "expected": target_expected,
           "replies": target_replies, "engines": target_engines}


def run_one(name: str, rng: random.Random, work: Path) -> tuple[str, Finding | None, float]:
    """(outcome, finding or None, seconds) of one input to one target."""
    started = time.monotonic()
    try:
        outcome = TARGETS[name](rng, work)
        finding = None
    except Finding as exc:
        outcome, finding = "finding", exc
    except (LocatedError, BalootError) as exc:
        outcome, finding = "finding", Finding("unlocated", f"{type(exc).__name__} escaped: {str(exc)[:300]}")
    except Exception:   # (the whole point: any other exception is a traceback a user would see)
        outcome, finding = "finding", Finding("traceback", traceback.format_exc(limit=6)[-1500:])
    seconds = time.monotonic() - started
    if finding is None and seconds > HANG_SECONDS.get(name, DEFAULT_HANG):
        finding = Finding("hang", f"{seconds:.1f} s for one input")
    return outcome, finding, seconds


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Exit codes: 0 no finding, 1 findings, 2 usage error.")
    parser.add_argument("--minutes", type=float, default=1.0, help="how long to run (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default %(default)s)")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated readers (default: all)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--replay", metavar="TARGET:SEED", help="run one finding's input again, showing any exception")
    args = parser.parse_args(argv)
    if args.replay:
        target, _, seed = args.replay.partition(":")
        if target not in TARGETS or not seed.isdigit():
            print(f"fuzz: error: --replay takes TARGET:SEED (targets: {', '.join(TARGETS)})", file=sys.stderr)
            return 2
        replay_seed(target, int(seed))
        return 0
    names = [n for n in args.targets.split(",") if n]
    unknown = [n for n in names if n not in TARGETS]
    if unknown or not names or not 0 < args.minutes < 10000:
        print(f"fuzz: error: unknown targets {unknown} (known: {', '.join(TARGETS)}) or bad --minutes", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    stats = {n: {"inputs": 0, "outcomes": Counter(), "findings": Counter(), "seconds": 0.0, "slowest": 0.0} for n in names}
    examples: list = []
    deadline = time.monotonic() + args.minutes * 60
    with tempfile.TemporaryDirectory(prefix="baloot-fuzz-") as folder:
        work = Path(folder)
        while time.monotonic() < deadline:
            # each reader gets an equal share of the time (the engines, a process per input, a
            # half share), so that a slow reader does not starve the fast ones of inputs
            name = min(names, key=lambda n: stats[n]["seconds"] * (2 if n == "engines" else 1))
            seed = rng.randrange(1 << 62)
            outcome, finding, seconds = run_one(name, random.Random(seed), work)
            entry = stats[name]
            entry["inputs"] += 1
            entry["seconds"] += seconds
            entry["slowest"] = max(entry["slowest"], seconds)
            entry["outcomes"][outcome if name != "engines" or outcome == "finding" else outcome.split(":", 1)[1]] += 1
            if finding is not None:
                entry["findings"][finding.kind] += 1
                if len(examples) < 20:
                    examples.append({"target": name, "seed": seed, "kind": finding.kind, "detail": finding.detail})
    figures = {"minutes": args.minutes, "seed": args.seed, "peak_rss_mb": round(peak_rss_mb(), 1),
               "targets": {n: {"inputs": s["inputs"], "outcomes": dict(s["outcomes"]), "findings": dict(s["findings"]),
                               "mean_ms": round(1000 * s["seconds"] / s["inputs"], 1) if s["inputs"] else None,
                               "slowest_s": round(s["slowest"], 2)} for n, s in stats.items()},
               "findings": examples}
    total = sum(sum(s["findings"].values()) for s in stats.values())
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"fuzz: {args.minutes:g} min, seed {args.seed}, peak memory {figures['peak_rss_mb']} MB")
        for name, entry in figures["targets"].items():
            outcomes = ", ".join(f"{k} {v}" for k, v in sorted(entry["outcomes"].items()))
            findings = ", ".join(f"{k} {v}" for k, v in sorted(entry["findings"].items())) or "none"
            print(f"  {name:9} {entry['inputs']:6} inputs ({entry['mean_ms']} ms each, slowest {entry['slowest_s']} s): "
                  f"{outcomes}; findings: {findings}")
        for example in examples:
            print(f"  FINDING {example['target']} seed {example['seed']} {example['kind']}: {example['detail'][:500]}")
        print(f"findings: {total} (tracebacks, hangs, leftovers, changed inputs, unlocated errors)")
    return 1 if total else 0


def replay_seed(target: str, seed: int) -> None:
    """Run one input again (a finding's target and seed), letting any exception show."""
    with tempfile.TemporaryDirectory(prefix="baloot-fuzz-") as folder:
        print(TARGETS[target](random.Random(seed), Path(folder)))


if __name__ == "__main__":
    sys.exit(main())
