#!/usr/bin/env python3
"""Benchmarks of baloot-spec, measured as ratios against a baseline in one run.

    python tools/bench.py [--hands N] [--audit-hands N] [--seed S] [--repeat R] [--json]

The workload is the same seeded hands for both engines: random legal hands are recorded once
(with their announcements), then replayed through the DSL engine and through the independent
oracle, each computing the legal set before every action (deal, bidding, doubling, 32 plays,
projects, scoring), alternately R times; each engine's best CPU time counts, so that other load on
a shared machine does not tilt the ratio (the median of the rounds' own ratios is given too,
`dsl_oracle_time_ratio_paired`, which a change of the host's speed between rounds does not
move); Python calls and bytecodes per hand (counted, not timed) give the same comparison
without any noise. Also measured: legal-set queries, audit throughput (one process, and
`--jobs 2` against it; on the simulated file and on it four times over, where start-up weighs
less; and two independent audits at once, the most two processes can gain here), random play as
`baloot simulate` does it (`simulate_hands_per_s`: its loop in process, seeded, the same hands
each run, every allowed announcement asked and the JSON Lines written), cold rules load in a
fresh process (with the disk cache, and without it: then also the first hand of each contract), the whole conformance corpus run, and the peak memory of auditing a JSONL file at
two sizes (it must not grow with the input). `--quick` measures only the replay and simulate;
`--by-part` only the replay, timed by part (the setup, the calls, the plays, the event that ends
the hand with the scoring, the result) for both engines: where their times differ.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from baloot_spec.engine.hand import Hand  # noqa: E402
from baloot_spec.engine.random_play import play_random_hand  # noqa: E402
from baloot_spec.rules import load_variant  # noqa: E402


def record_hands(rules, count: int, seed: int) -> list:
    hands = []
    for number in range(count):
        rng = random.Random(f"{seed}:{number}")
        dealer = rng.choice(rules.table.seats)
        scores = {"NS": rng.choice([0, 99, 101]), "EW": rng.choice([0, 99, 101])}
        hand = play_random_hand(rules, rng, dealer, scores)
        # (plain dicts, as a log read from JSON gives: the hand's own log holds shared
        # read-only events, a dict subclass, which neither engine sees in an audit)
        hands.append((dealer, hand.deal_spec, scores, [dict(e) for e in hand.events]))
    return hands


def replay(make_hand, hands) -> None:
    """Replay recorded hands: the legal set before every event, then the event; the result."""
    for dealer, deal, scores, events in hands:
        hand = make_hand(dealer, deal, scores)
        for event in events:
            hand.legal()
            hand.apply(event)
        hand.result()


PARTS = ("setup", "calls", "plays", "last", "result")


def split_times(make_hand, hands) -> dict:
    """CPU time by what is done: making the hand (the deal), the calls (bidding, doubling, with
    the phase changes and the projects they bring), the plays, the event that ends the hand
    ("last": for a played hand its last card, the last trick and the whole scoring), the result.
    The clock is read around every event, which adds the same cost to both engines: the wall
    clock (vDSO, ~30 ns), not the process's CPU clock, a system call of ~0.7 µs whose cost moved
    the parts' split between two trees (BENCHMARKS.md, step 95); best-of rounds take the noise."""
    spent = dict.fromkeys(PARTS, 0.0)
    clock = time.perf_counter
    for dealer, deal, scores, events in hands:
        started = clock()
        hand = make_hand(dealer, deal, scores)
        spent["setup"] += clock() - started
        last = len(events) - 1
        for at, event in enumerate(events):
            started = clock()
            hand.legal()
            hand.apply(event)
            part = "last" if at == last else "plays" if event["type"] == "play" else "calls"
            spent[part] += clock() - started
        started = clock()
        hand.result()
        spent["result"] += clock() - started
    return spent


def by_part(rules, hands, repeat: int) -> dict:
    """µs a hand by part (split_times), the best of `repeat` alternating rounds for each engine
    and part, and the DSL/oracle ratio of each: where the two engines' times differ."""
    from oracle.oracle import Hand as OracleHand
    best = {"dsl": dict.fromkeys(PARTS, float("inf")), "oracle": dict.fromkeys(PARTS, float("inf"))}
    for _ in range(max(1, repeat)):
        for name, make in (("dsl", lambda *setup: Hand(rules, *setup)), ("oracle", OracleHand)):
            for part, spent in split_times(make, hands).items():
                best[name][part] = min(best[name][part], spent)
    per_hand = 1e6 / len(hands)
    return {part: {"dsl_us": round(best["dsl"][part] * per_hand, 2), "oracle_us": round(best["oracle"][part] * per_hand, 2),
                   "ratio": round(best["dsl"][part] / best["oracle"][part], 2) if best["oracle"][part] > 0 else None}
            for part in PARTS}


def cpu_time(make_hand, hands) -> float:
    started = time.process_time()
    replay(make_hand, hands)
    return time.process_time() - started


def replay_dsl(rules, hands) -> float:
    return cpu_time(lambda *setup: Hand(rules, *setup), hands)


def replay_oracle(hands) -> float:
    from oracle.oracle import Hand as OracleHand
    return cpu_time(OracleHand, hands)


def traced_replay(make_hand, hands, on_event) -> None:
    """Replay under sys.settrace: on_event(frame, event) for every Python call ("call") and every
    bytecode instruction ("opcode") the replay runs. Exact counts, not times."""
    def trace(frame, event, arg):
        if event == "call":
            frame.f_trace_opcodes, frame.f_trace_lines = True, False
        on_event(frame, event)
        return trace

    sys.settrace(trace)
    try:
        replay(make_hand, hands)
    finally:
        sys.settrace(None)


def traced_costs(make_hand, hands) -> tuple[float, float]:
    """(Python function calls, bytecode instructions) per hand, counted with sys.settrace: a
    machine-independent measure, for when timings on a shared machine drift."""
    counts = {"call": 0, "opcode": 0}

    def count(frame, event):
        if event in counts:
            counts[event] += 1

    traced_replay(make_hand, hands, count)
    return counts["call"] / len(hands), counts["opcode"] / len(hands)


def one_round(number: int, dsl, oracle) -> tuple:
    """(DSL time, oracle time) of round `number`, each replay run right after the other; which goes
    first alternates from round to round (in one twenty-fourth-session run, rounds with the oracle
    first read about 1 % above rounds with the DSL first: alternating weighs that on both)."""
    if number % 2:
        oracle_s = oracle()
        return dsl(), oracle_s
    dsl_s = dsl()
    return dsl_s, oracle()


def simulate_time(rules, count: int, seed: int) -> float:
    """CPU time of `baloot simulate --hands count --seed seed` in process: random legal hands,
    each action chosen by the random player with every announcement it may make, each hand
    written as a JSON Lines log document (to a stream that keeps nothing)."""
    from baloot_spec.simulate import hand_lines, write_jsonl   # (what the command writes)
    with open(os.devnull, "w") as sink:
        started = time.process_time()
        write_jsonl(hand_lines(rules, count, seed), sink)
        return time.process_time() - started


def legal_queries(rules, hands) -> float:
    """Legal-set queries per second: each position's first query (no cache can help)."""
    spent, count = 0.0, 0
    for dealer, deal, scores, events in hands:
        hand = Hand(rules, dealer, deal, scores)
        for event in events:
            started = time.perf_counter()
            hand.legal()
            spent += time.perf_counter() - started
            count += 1
            hand.apply(event)
    return count / spent


def run(command: list, **kwargs) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, **kwargs)
    return time.perf_counter() - started, done


def audit_times(baloot: list, path: Path, repeat: int) -> tuple[float, float, float]:
    """Best wall times, run alternately, of: `audit` on `path`; `audit --jobs 2` on it; and two
    independent `audit` processes on it at once. Twice the first over the third is what two
    processes can gain at all on this machine (its ceiling for --jobs 2): on a shared VM whose
    two cores slow each other down, it is well below 2."""
    one_s = two_s = both_s = float("inf")
    for _ in range(max(1, repeat)):
        elapsed, done = run(baloot + ["audit", str(path)])
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        one_s = min(one_s, elapsed)
        elapsed, done = run(baloot + ["audit", "--jobs", "2", str(path)])
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        two_s = min(two_s, elapsed)
        started = time.perf_counter()
        pair = [subprocess.Popen(baloot + ["audit", str(path)], stdout=subprocess.DEVNULL, cwd=ROOT) for _ in range(2)]
        assert [p.wait() for p in pair] == [0, 0]
        both_s = min(both_s, time.perf_counter() - started)
    return one_s, two_s, both_s


def peak_rss_mb(command: list) -> float:
    """Peak resident memory of a child process, in MB (getrusage of the child)."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", code, *command], capture_output=True, text=True, cwd=ROOT)
    return int(done.stdout.strip().splitlines()[-1]) / 1024


def compile_package() -> bool:
    """Write the package's bytecode (__pycache__, ignored by git) before any process is timed,
    so that a process starts as an installed `baloot` does: `pip install` compiles it. A
    machine with PYTHONDONTWRITEBYTECODE set (this one) otherwise compiles all 45 modules from
    source in every process: 36 ms of each start, a tenth of auditing 3000 hands, and serial,
    so `--jobs 2` was measured against a start-up no user pays. True if it compiled cleanly."""
    import compileall
    return bool(compileall.compile_dir(str(ROOT / "baloot_spec"), quiet=1))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands replayed through both engines")
    parser.add_argument("--audit-hands", type=int, default=2000, help="hands in the audited JSONL file")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3,
                        help="engine replays (and the simulate/audit runs) alternate this many times; the best time of each counts")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true",
                        help="only the replay (DSL against oracle) and the simulate figures: no traces, audits or corpus")
    parser.add_argument("--by-part", action="store_true",
                        help="only the replay's time split by part (setup, calls, plays, the last event with the "
                        "scoring, result) for both engines: µs a hand, best of --repeat rounds, and the ratio")
    parser.add_argument("--audit-dask", metavar="FILE", help="only the audit on a LocalCluster(2) against --jobs 2 and "
                        "one process, on this JSON Lines file (tools/bench_dask.py)")
    args = parser.parse_args(argv)
    if args.audit_dask:
        from bench_dask import main as bench_dask
        return bench_dask(args.audit_dask, args.repeat, args.json)
    if args.by_part:
        rules = load_variant()
        return _print_parts(by_part(rules, record_hands(rules, args.hands, args.seed), args.repeat), args.json)
    baloot = [sys.executable, "-m", "baloot_spec"]
    out = {}
    out["bytecode_compiled"] = compile_package()

    cold = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); "
                           "from baloot_spec.rules import load_variant; load_variant(); print(time.perf_counter() - t)"],
                          capture_output=True, text=True, cwd=ROOT)
    out["rules_load_cold_s"] = round(float(cold.stdout.strip()), 3)
    # The same with no disk cache (a fresh install, a rules file just edited, an overlay), and
    # the first hand of each contract then, which specialises its phases (tools/bench_nocache.py)
    from bench_nocache import nocache_figures
    out.update(nocache_figures(seed=args.seed))
    rules = load_variant()
    # Another variant in a warm process: compiled from its checked expressions (what a variant
    # no process has compiled before costs), and read back from the disk cache (what it costs
    # from then on, in any process).
    from baloot_spec.rules import compile_variant, resolve_variant
    variant = resolve_variant("default", {"kawesh": "true"})
    started = time.perf_counter()
    compile_variant(variant)
    out["rules_compile_variant_s"] = round(time.perf_counter() - started, 3)
    load_variant("default", {"kawesh": "true"})
    import baloot_spec.rules as rules_package
    rules_package._CACHE.clear(), rules_package._REQUESTS.clear()
    started = time.perf_counter()
    load_variant("default", {"kawesh": "true"})
    out["rules_load_variant_cached_s"] = round(time.perf_counter() - started, 3)
    rules = load_variant()

    hands = record_hands(rules, args.hands, args.seed)
    # CPU time, best of alternating runs: on a shared machine, load hits both engines alike.
    dsl = oracle = simulate = float("inf")
    rounds = []   # (DSL, oracle) of one round: run one right after the other
    for number in range(max(1, args.repeat)):
        rounds.append(one_round(number, lambda: replay_dsl(rules, hands), lambda: replay_oracle(hands)))
        dsl, oracle = min(dsl, rounds[-1][0]), min(oracle, rounds[-1][1])
        # the simulate loop in the same rounds, so that its ratio to the replay shares the host's state
        simulate = min(simulate, simulate_time(rules, len(hands), args.seed))
    out["hands"] = len(hands)
    out["dsl_hands_per_s"] = round(len(hands) / dsl, 1)
    out["oracle_hands_per_s"] = round(len(hands) / oracle, 1)
    out["dsl_oracle_time_ratio"] = round(dsl / oracle, 2)
    # The same ratio taken round by round, the median: when the host's speed changes between
    # the DSL's best round and the oracle's, best over best moves with it (one tenth-session
    # run gave 1.82 among runs of 1.5-1.6); two replays a second apart share the host's state.
    out["dsl_oracle_time_ratio_paired"] = round(statistics.median(d / o for d, o in rounds), 2)
    # (and how far the rounds' own ratios spread: a median of 0.99 from 0.97-1.01 is not under 1.0
    # the way one from 0.95-0.98 is)
    out["dsl_oracle_time_ratio_paired_range"] = [round(min(d / o for d, o in rounds), 3), round(max(d / o for d, o in rounds), 3)]
    out["simulate_hands_per_s"] = round(len(hands) / simulate, 1)
    # (issue 28: at least 0.7; the simulated hands are other hands than the replayed ones, as many)
    out["simulate_replay_ratio"] = round(dsl / simulate, 2)
    if args.quick:
        return _print(out, args.json)
    out["legal_queries_per_s"] = round(legal_queries(rules, hands[:300]), 1)
    from oracle.oracle import Hand as OracleHand
    out["dsl_oracle_time_ratio_by_part"] = {part: row["ratio"] for part, row in by_part(rules, hands, 1).items()}
    traced = hands[:60]
    dsl_calls, dsl_ops = traced_costs(lambda *a: Hand(rules, *a), traced)
    oracle_calls, oracle_ops = traced_costs(OracleHand, traced)
    out["python_calls_per_hand"] = {"dsl": round(dsl_calls), "oracle": round(oracle_calls)}
    out["bytecodes_per_hand"] = {"dsl": round(dsl_ops), "oracle": round(oracle_ops)}

    with tempfile.TemporaryDirectory() as tmp:
        small, large = Path(tmp) / "small.jsonl", Path(tmp) / "large.jsonl"
        run(baloot + ["simulate", "--hands", str(args.audit_hands), "--seed", str(args.seed), "--out", str(small)])
        simulate_s = float("inf")
        for _ in range(max(1, args.repeat)):
            elapsed, _ = run(baloot + ["simulate", "--hands", str(args.audit_hands), "--seed", str(args.seed), "--out", os.devnull])
            simulate_s = min(simulate_s, elapsed)
        one_s, two_s, both_s = audit_times(baloot, small, args.repeat)
        out["audit_hands_per_s"] = round(args.audit_hands / one_s, 1)
        out["audit_jobs2_speedup"] = round(one_s / two_s, 2)
        out["two_processes_speedup"] = round(2 * one_s / both_s, 2)
        out["audit_simulate_time_ratio"] = round(one_s / simulate_s, 2)
        with large.open("w") as handle:
            text = small.read_text()
            for _ in range(4):
                handle.write(text)
        out["audit_input_mb"] = {"small": round(small.stat().st_size / 1e6, 1), "large": round(large.stat().st_size / 1e6, 1)}
        # The same on the large file: the fixed start-up (one process, ~0.35 s) weighs less, so
        # this is how throughput and the --jobs speed-up scale with the hands.
        one_s, two_s, both_s = audit_times(baloot, large, min(3, args.repeat))
        out["audit_large_hands_per_s"] = round(4 * args.audit_hands / one_s, 1)
        out["audit_large_jobs2_speedup"] = round(one_s / two_s, 2)
        out["two_processes_large_speedup"] = round(2 * one_s / both_s, 2)
        out["audit_peak_rss_mb"] = round(peak_rss_mb(baloot + ["audit", str(large)]), 1)
        out["audit_peak_rss_small_mb"] = round(peak_rss_mb(baloot + ["audit", str(small)]), 1)

    corpus_s, done = run(baloot + ["conformance", "run", "--quiet"])
    out["corpus_run_s"] = round(corpus_s, 2)
    out["corpus_summary"] = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]

    return _print(out, args.json)


def _print(out: dict, as_json: bool) -> int:
    if as_json:
        print(json.dumps(out, indent=2))
    else:
        for key, value in out.items():
            print(f"{key:>28}: {value}")
    return 0


def _print_parts(parts: dict, as_json: bool) -> int:
    if as_json:
        print(json.dumps(parts, indent=2))
        return 0
    print(f"{'part':>8} {'DSL µs':>9} {'oracle µs':>10} {'ratio':>6}")
    for part, row in parts.items():
        print(f"{part:>8} {row['dsl_us']:>9.2f} {row['oracle_us']:>10.2f} {row['ratio'] or '-':>6}")
    dsl, oracle = (sum(row[key] for row in parts.values()) for key in ("dsl_us", "oracle_us"))
    print(f"{'total':>8} {dsl:>9.2f} {oracle:>10.2f} {round(dsl / oracle, 2):>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
