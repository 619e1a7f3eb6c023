#!/usr/bin/env python3
"""A/B: the DSL engine of this work tree against another revision, with the oracle, in one run.

    python tools/ab.py [REV] [--hands N] [--rounds R] [--repeat K] [--preset P] [--json]
                       [--instructions | --cycles] [--layouts N] [--workload replay|simulate]

A speed step is judged by a paired comparison, not by two runs of tools/bench.py on a shared
machine whose speed drifts by 30% within a day. The hands are recorded once, by this tree, to a
JSON file; REV (default HEAD, i.e. the last commit against the uncommitted change) is checked
out in a temporary git work tree, and this tree (uncommitted changes included) is copied beside
it, so that both arms run from paths of the same length; then each round runs, one after the
other in fresh processes, REV's engine, this tree's engine and this tree's oracle over the same
hands (the legal set before every event, as bench.py replays). Each process keeps its best of K
replays (CPU time); each arm then keeps its best over the R rounds. Printed: microseconds a hand
for each arm, this tree against REV, and each engine against the oracle (the ratio issue 9 sets
a target for); then each ratio paired, the median (and min-max) of the rounds' own ratios. Each
round starts one arm later than the one before, so that no arm always runs first.

With --instructions, each arm instead runs under valgrind's callgrind, which counts the machine
instructions it executes: exact, and the same from one run to the next whatever else the machine
does. An arm runs twice, with one and with three replays; the difference, over two replays, is
the instructions a hand once the interpreter has warmed up. Instructions are not time (a dict
probe that misses the cache costs more than its count says), but on this shared machine, where
an A/A timing can differ by 3%, they tell a 1% step from noise.

With --cycles, callgrind also simulates the caches and the branch predictor, and each arm gives an
estimate of the cycles a hand: instructions + 10 x first-level cache misses + 200 x last-level
misses + 20 x mispredicted branches (the costs cachegrind's manual gives as typical: "an L1 miss
will typically cost around 10 cycles, an LL miss can cost as much as 200 cycles, and a
mispredicted branch costs in the region of 10 to 30 cycles"). Instructions tell what a change
did; the estimate tells why a timed ratio is above the instructions' one (the DSL engine's code
and data are spread over more objects than the oracle's: BENCHMARKS.md, "Why the timed ratio is
above the instructions'"). The misses and mispredictions a hand are printed with it.

With --instructions or --cycles, each arm is counted in --layouts N (default 3) layouts: each in
a fresh disk cache (BALOOT_CACHE_DIR) first warmed by the very command it then counts, run once
outside valgrind, and the n-th with its heap shifted by n small objects made first. The median
is the arm's figure; the min-max of each arm and of each ratio are printed with it. Why: a count
depends on what the disk cache held, and a little on where objects land. A cache warmed by fewer
hands than are counted lacks phases specialised for what those hands did not reach: the
one-replay run under valgrind then compiles them and the three-replay run reads them back, and
the difference loses the compile (a cache warmed by 3 hands gave -9 million instructions a hand
for 300). Where objects land moves a count too (the allocator's paths; dicts keyed by cards,
which hash by their address, probe more or less): about 0.1% (BENCHMARKS.md, "Measuring:
instruction counts and memory layout"). The spread says how far one count can be trusted: a step
smaller than it is not shown.

With --workload simulate, each arm instead runs `baloot simulate --hands N` in process (random
legal hands, the random player asking about every announcement, the JSON Lines written to a
stream that keeps nothing), the same seeded hands in both trees; there is no oracle arm (the
oracle has no random player of its own). A change that alters the random player's choices
alters the hands, which this comparison then does not hold fixed: say so when you quote it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in a fresh process with the tree to measure first on sys.path (argv: tree, hands file,
# repeat, preset, engine). Prints the best CPU time of a replay, in microseconds a hand. The loop
# is bench.replay's, written out here on purpose: importing either tree's tools/bench.py would put
# that tree's package first on sys.path, and both arms must run the same loop.
_REPLAYER = r"""
import json, sys, time
tree, path, repeat, preset, engine = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
sys.path[:0] = [tree, tree + "/tools"]
with open(path) as handle:
    hands = json.load(handle)
if engine == "oracle":
    from oracle.oracle import Hand as OracleHand
    from oracle.presets import PRESETS
    knobs = PRESETS[preset]
    make = lambda dealer, deal, scores: OracleHand(dealer, deal, scores, knobs)
else:
    from baloot_spec.engine.hand import Hand
    from baloot_spec.rules import load_variant
    rules = load_variant(preset=preset)
    make = lambda dealer, deal, scores: Hand(rules, dealer, deal, scores)
best = float("inf")
for _ in range(repeat):
    started = time.process_time()
    for dealer, deal, scores, events in hands:
        hand = make(dealer, deal, scores)
        for event in events:
            hand.legal()
            hand.apply(event)
        hand.result()
    best = min(best, time.process_time() - started)
print(best / len(hands) * 1e6)
"""

# The simulate workload (argv: tree, hands, repeat, preset, seed): `baloot simulate --hands N
# --seed S` in process, best CPU time of `repeat` runs, microseconds a hand.
_SIMULATOR = r"""
import os, sys, time
tree, count, repeat, preset, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
sys.path[:0] = [tree]
from baloot_spec.rules import load_variant
import baloot_spec.simulate as simulate
# (what `baloot simulate` runs in that tree: the lines made straight from the hands where the
# tree has them, step 78, else the documents through json.dumps)
documents = getattr(simulate, "hand_lines", simulate.simulate_hands)
rules = load_variant(preset=preset)
best = float("inf")
with open(os.devnull, "w") as sink:
    for _ in range(repeat):
        started = time.process_time()
        simulate.write_jsonl(documents(rules, count, seed), sink)
        best = min(best, time.process_time() - started)
print(best / count * 1e6)
"""


def rules_of(preset: str):
    """This tree's rules of `preset`; None (said on stderr) if they do not load."""
    sys.path[:0] = [p for p in (str(ROOT), str(ROOT / "tools")) if p not in sys.path]
    from baloot_spec.errors import RulesError
    from baloot_spec.rules import load_variant
    try:
        return load_variant(preset=preset)
    except RulesError as exc:   # (an unknown preset, say: one line, exit 2)
        print(f"ab: {exc}", file=sys.stderr)
        return None


def record(path: Path, hands: int, seed: int, preset: str) -> bool:
    """Record the hands to `path`; False (said on stderr) if the rules do not load."""
    rules = rules_of(preset)
    if rules is None:
        return False
    from bench import record_hands
    recorded = record_hands(rules, hands, seed)
    path.write_text(json.dumps([[dealer, deal, scores, [dict(e) for e in events]]
                                for dealer, deal, scores, events in recorded]))
    return True


def _arm(tree: Path, hands_file, repeat: int, preset: str, engine: str, shift: int = 0) -> list:
    """The command line of one arm: a replay of the hands file, or (engine "simulate", hands_file
    then the number of hands and the seed) the simulate loop. `shift` small objects are made first
    (of a card's size, so the cards and the tables keyed by them land elsewhere: a layout)."""
    shifted = f"_layout = [(i, -i) for i in range({shift})]\n" if shift else ""
    if engine == "simulate":
        count, seed = hands_file
        return [sys.executable, "-c", shifted + _SIMULATOR, str(tree), str(count), str(repeat), preset, str(seed)]
    return [sys.executable, "-c", shifted + _REPLAYER, str(tree), str(hands_file), str(repeat), preset, engine]


# A measured run (timed or counted) reads no bytecode cache and writes none: both arms compile
# their modules from source. A checkout's own __pycache__ (stale .pyc files, read and then found out of date) moved
# the A/A ratio of one layout to 0.9975-0.998 in a working checkout; with no .pyc read on either
# side it is 1.0 (tests/test_ab.py). The prefix directory is never made (nothing is written).
_NO_PYC = {"PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPYCACHEPREFIX": os.path.join(tempfile.gettempdir(), f"baloot-ab-no-pyc-{os.getpid()}")}


def copy_of_this(target: Path) -> Path:
    """This work tree as it is (every file git tracks or would track, uncommitted changes
    included) copied to `target`, a path as long as the base's checkout beside it. Why: each
    arm's modules record their path (`__file__`, code objects, sys.path), and a longer path makes
    longer strings, which moves where the later objects land; cards hash by their address, so
    that moved the instructions an A/A run counted (this tree at /work/main against HEAD checked
    out in the scratch directory: 0.9980-0.9981 of one layout; tests/test_ab.py)."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():   # (a tracked file deleted in this tree is not in it)
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def measure(tree: Path, hands_file, repeat: int, preset: str, engine: str) -> float:
    done = subprocess.run(_arm(tree, hands_file, repeat, preset, engine), cwd=tree, capture_output=True, text=True,
                          env={**os.environ, **_NO_PYC})   # (as the counted runs: the same modules, from source)
    if done.returncode != 0:
        raise SystemExit(f"ab: the {engine} replay in {tree} failed:\n{done.stderr.strip()}")
    return float(done.stdout.strip())


def instructions(tree: Path, hands_file, hands: int, preset: str, engine: str, cache=None, shift=0) -> float:
    """Machine instructions a warm replayed hand takes (callgrind, one replay against three)."""
    return events(tree, hands_file, hands, preset, engine, simulate=False, cache=cache, shift=shift)["Ir"]


def warm(tree: Path, hands_file, preset: str, engine: str, cache: Path, shift: int = 0) -> None:
    """Fill the disk cache `cache` as the counted runs will read it: the arm's own command, run once
    (a cache warmed by fewer hands lacks phases the counted hands reach; see the module's docstring)."""
    done = subprocess.run(_arm(tree, hands_file, 1, preset, engine, shift), cwd=tree, capture_output=True, text=True,
                          env={**os.environ, **_NO_PYC, "BALOOT_CACHE_DIR": str(cache), "PYTHONHASHSEED": "0"})
    if done.returncode != 0:
        raise SystemExit(f"ab: the {engine} warm-up in {tree} failed:\n{done.stderr.strip()[-2000:]}")


def over_layouts(count, layouts: int, scratch: Path, arm: str, tree: Path, hands_file, preset: str, engine: str) -> list:
    """`count(cache, shift)` in `layouts` fresh disk caches under `scratch`, each warmed first, the
    n-th layout's heap shifted by n small objects."""
    figures = []
    for number in range(layouts):
        cache = scratch / f"cache-{arm}-{number}"
        cache.mkdir()
        warm(tree, hands_file, preset, engine, cache, number)
        figures.append(count(cache, number))
    return figures


def spread(figures: list) -> dict:
    """The median of the layouts' figures, and their min and max."""
    return {"median": statistics.median(figures), "min": min(figures), "max": max(figures)}


# cachegrind's event names: the misses of the first-level caches, of the last level, and the
# mispredicted conditional and indirect branches
L1_MISSES, LL_MISSES, MISPREDICTED = ("I1mr", "D1mr", "D1mw"), ("ILmr", "DLmr", "DLmw"), ("Bcm", "Bim")
CYCLES_OF = {"L1": 10, "LL": 200, "mispredicted": 20}   # (cachegrind's manual: see the module's docstring)


def cycles(tree: Path, hands_file, hands: int, preset: str, engine: str, cache=None, shift=0) -> dict:
    """A warm replayed hand's instructions, cache misses, mispredicted branches and estimated cycles."""
    counted = events(tree, hands_file, hands, preset, engine, simulate=True, cache=cache, shift=shift)
    out = {"instructions": counted["Ir"], "L1_misses": sum(counted[e] for e in L1_MISSES),
           "LL_misses": sum(counted[e] for e in LL_MISSES), "mispredicted": sum(counted[e] for e in MISPREDICTED)}
    out["cycles"] = (out["instructions"] + CYCLES_OF["L1"] * out["L1_misses"] + CYCLES_OF["LL"] * out["LL_misses"]
                     + CYCLES_OF["mispredicted"] * out["mispredicted"])
    return {name: round(value, 1) for name, value in out.items()}


def events(tree: Path, hands_file, hands: int, preset: str, engine: str, simulate: bool, cache=None, shift=0) -> dict:
    """callgrind's events a warm replayed hand (one replay against three): the instructions, and
    with `simulate` the cache and branch events too; `cache`, a BALOOT_CACHE_DIR to use; `shift`,
    see _arm."""
    env = {**os.environ, **_NO_PYC, "PYTHONHASHSEED": "0", **({"BALOOT_CACHE_DIR": str(cache)} if cache else {})}
    counts = []
    options = ["--cache-sim=yes", "--branch-sim=yes"] if simulate else []
    for repeat in (1, 3):
        with tempfile.NamedTemporaryFile(prefix="baloot-ab-", suffix=".callgrind") as out:
            done = subprocess.run(["valgrind", "--tool=callgrind", *options, f"--callgrind-out-file={out.name}",
                                   *_arm(tree, hands_file, repeat, preset, engine, shift)], cwd=tree, capture_output=True, text=True,
                                  env=env)   # (PYTHONHASHSEED: str hashes, so set orders, fixed)
            if done.returncode != 0:
                raise SystemExit(f"ab: the {engine} replay in {tree} failed under valgrind:\n{done.stderr.strip()[-2000:]}")
            lines = Path(out.name).read_text().splitlines()
        names = [line.split()[1:] for line in lines if line.startswith("events:")]
        totals = [line.split()[1:] for line in lines if line.startswith(("summary:", "totals:"))]
        if not names or not totals:
            raise SystemExit(f"ab: callgrind wrote no event totals for the {engine} replay in {tree}")
        counts.append(dict(zip(names[0], map(int, totals[0]))))
    return {name: (counts[1].get(name, 0) - counts[0].get(name, 0)) / (2 * hands) for name in counts[1]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Example: python tools/ab.py HEAD~3 --hands 1000 --rounds 5")
    parser.add_argument("rev", nargs="?", default="HEAD", help="the revision to compare with (default: HEAD)")
    parser.add_argument("--hands", type=int, default=1000, help="recorded random hands (default 1000)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--repeat", type=int, default=5, help="replays per process, best counts (default 5)")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--preset", default="default")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--instructions", action="store_true",
                        help="count machine instructions under valgrind's callgrind instead of timing "
                             "(exact and repeatable; --rounds and --repeat do not apply; try --hands 300)")
    parser.add_argument("--cycles", action="store_true",
                        help="as --instructions, with callgrind's cache and branch simulation: cache misses, "
                             "mispredicted branches and an estimate of the cycles a hand (slower; try --hands 200)")
    parser.add_argument("--layouts", type=int, default=3,
                        help="with --instructions or --cycles: count each arm in N layouts (default 3), each a fresh "
                             "disk cache warmed by the counted command, the n-th with its heap shifted by n objects; "
                             "report the median and min-max (a cache not warmed so subtracts a compile, and where "
                             "objects land moves a count by about 0.1%%)")
    parser.add_argument("--workload", choices=("replay", "simulate"), default="replay",
                        help="replay recorded hands with the oracle as a third arm (default), or run the simulate "
                             "loop (random play with announcements, JSON Lines written; no oracle arm)")
    args = parser.parse_args(argv)
    if min(args.hands, args.rounds, args.repeat, args.layouts) < 1:
        parser.error("--hands, --rounds, --repeat and --layouts take a whole number of at least 1")
    if args.instructions and args.cycles:
        parser.error("--instructions and --cycles are one or the other (--cycles counts the instructions too)")
    if (args.instructions or args.cycles) and shutil.which("valgrind") is None:
        print(f"ab: {'--cycles' if args.cycles else '--instructions'} needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2

    scratch = Path(tempfile.mkdtemp(prefix="baloot-ab-"))
    base = scratch / "base"
    try:
        made = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(base), args.rev],
                              capture_output=True, text=True)
        if made.returncode != 0:
            print(f"ab: cannot check out {args.rev!r}: {made.stderr.strip()}", file=sys.stderr)
            return 2
        if args.workload == "simulate":
            hands_file, engine, arms = (args.hands, args.seed), "simulate", ("base", "this")
            if rules_of(args.preset) is None:
                return 2
        else:
            hands_file, engine, arms = scratch / "hands.json", "dsl", ("base", "this", "oracle")
            if not record(hands_file, args.hands, args.seed, args.preset):
                return 2
        this = copy_of_this(scratch / "this")   # (beside "base": the same path length, see copy_of_this)
        trees = {"base": (base, engine), "this": (this, engine), "oracle": (this, "oracle")}
        if args.instructions or args.cycles:
            count = instructions if args.instructions else cycles
            layouts = {arm: over_layouts(lambda cache, shift, arm=arm: count(trees[arm][0], hands_file, args.hands,
                                                                              args.preset, trees[arm][1], cache, shift),
                                         args.layouts, scratch, arm, trees[arm][0], hands_file, args.preset, trees[arm][1])
                       for arm in arms}
            if args.instructions:
                return _report(args, layouts, "instructions", {"layouts": args.layouts})
            simulated = {arm: {name: round(statistics.median(f[name] for f in figures), 1) for name in figures[0]}
                         for arm, figures in layouts.items()}
            return _report(args, {arm: [f["cycles"] for f in figures] for arm, figures in layouts.items()}, "cycles",
                           {"layouts": args.layouts, "events_per_hand": simulated})
        best = {arm: float("inf") for arm in arms}
        rounds = []   # each round's figure of every arm
        for number in range(args.rounds):
            figures = {}
            for arm in rotated(arms, number):   # (no arm always first: see rotated)
                figures[arm] = measure(trees[arm][0], hands_file, args.repeat, args.preset, trees[arm][1])
                best[arm] = min(best[arm], figures[arm])
            rounds.append(figures)
            if not args.json:
                print(f"round {number + 1}/{args.rounds}: " + ", ".join(f"{k} {v:.1f} us" for k, v in best.items()),
                      file=sys.stderr)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)

    return _report(args, best, "us", {"rounds": args.rounds, "repeat": args.repeat}, rounds)


def rotated(arms: tuple, number: int) -> tuple:
    """The arms in round `number`'s order: each round starts one arm later. A machine that is
    slower just after a process starts, or after a given arm ran, then weighs on every arm alike,
    not always on the same one (twenty-fourth session: in one process, rounds with the oracle
    first read 1.008 and rounds with the DSL first 0.997)."""
    shift = number % len(arms)
    return arms[shift:] + arms[:shift]


def paired(rounds: list, top: str, bottom: str, digits: int) -> dict:
    """The ratio top / bottom taken round by round (two arms measured a few seconds apart share
    the machine's state): its median and min-max. Best over best can pair one arm's lucky round
    with the other's unlucky one; the median of the rounds' own ratios cannot."""
    ratios = sorted(r[top] / r[bottom] for r in rounds)
    return {"median": round(statistics.median(ratios), digits), "range": [round(ratios[0], digits), round(ratios[-1], digits)]}


def _report(args, measured: dict, unit: str, settings: dict, rounds: list | None = None) -> int:
    """Print each arm's figure a hand (`unit`: "us", "instructions" or "cycles") and the ratios. An
    arm's figures over several layouts (a list) give their median, and the min-max of the arm and of
    each ratio (the least and the most one layout of each arm could give). Timed `rounds` (each
    round's figure of every arm) give each ratio paired too: the median of the rounds' own ratios."""
    rounding = 1 if unit == "us" else None
    ranges = {arm: spread(figures) for arm, figures in measured.items() if isinstance(figures, list)}
    measured = {arm: ranges[arm]["median"] if arm in ranges else figure for arm, figure in measured.items()}
    out = {"rev": args.rev, "workload": args.workload, "hands": args.hands, **settings, "preset": args.preset,
           **{f"{arm}_{unit}_per_hand": round(figure, rounding) for arm, figure in measured.items()},
           "this_base_ratio": round(measured["this"] / measured["base"], 4)}
    pairs = [("this", "base", 4)] + ([("base", "oracle", 3), ("this", "oracle", 3)] if "oracle" in measured else [])
    for top, bottom, digits in pairs[1:]:
        out[f"{top}_{bottom}_ratio"] = round(measured[top] / measured[bottom], digits)
    if ranges:
        out.update({f"{arm}_{unit}_range": [round(r["min"], rounding), round(r["max"], rounding)] for arm, r in ranges.items()})
        out.update({f"{top}_{bottom}_ratio_range": [round(ranges[top]["min"] / ranges[bottom]["max"], digits),
                                                    round(ranges[top]["max"] / ranges[bottom]["min"], digits)]
                    for top, bottom, digits in pairs})
    if rounds:
        for top, bottom, digits in pairs:
            both = paired(rounds, top, bottom, digits)
            out[f"{top}_{bottom}_ratio_paired"], out[f"{top}_{bottom}_ratio_paired_range"] = both["median"], both["range"]
    if args.json:
        print(json.dumps(out))
        return 0
    label = {"us": "us", "instructions": "instructions", "cycles": "estimated cycles"}[unit]
    against = {arm: f" ({out[f'{arm}_oracle_ratio']}x the oracle)" if "oracle" in measured else "" for arm in ("base", "this")}
    print(f"{args.rev}: {out[f'base_{unit}_per_hand']} {label} a hand{against['base']}\n"
          f"this tree: {out[f'this_{unit}_per_hand']} {label} a hand{against['this']}\n"
          f"this / {args.rev}: {out['this_base_ratio']}")
    if rounds:   # (timed: the same ratios round by round)
        print(f"paired, the median of the {len(rounds)} rounds' own ratios (min-max): " + "; ".join(
            f"{top}/{bottom} {out[f'{top}_{bottom}_ratio_paired']} ({out[f'{top}_{bottom}_ratio_paired_range'][0]}-"
            f"{out[f'{top}_{bottom}_ratio_paired_range'][1]})" for top, bottom, _ in pairs))
    if ranges:   # (--instructions, --cycles: the spread over the layouts)
        print(f"over {settings['layouts']} layouts (fresh disk caches), min-max: " + "; ".join(
            [f"{arm} {out[f'{arm}_{unit}_range'][0]:,.0f}-{out[f'{arm}_{unit}_range'][1]:,.0f}" for arm in ranges]
            + [f"{top}/{bottom} {out[f'{top}_{bottom}_ratio_range'][0]}-{out[f'{top}_{bottom}_ratio_range'][1]}"
               for top, bottom, _ in pairs]))
    for arm, figures in settings.get("events_per_hand", {}).items():   # (--cycles: what the estimate is made of)
        print(f"  {arm}: " + ", ".join(f"{name.replace('_', ' ')} {value:,.0f}" for name, value in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
