"""The exactness check of `baloot conformance fingerprint` (issue 23): the built-in adapter made
to play one variant (conformance/engines/builtin_adapter.py --preset P --set K=V ...) under
every preset and under N seeded random knob combinations must be fingerprinted exactly: every
knob either recovered with its true value or reported "not testable" (with the true value among
the candidates when candidates are given), never a wrong value, never "none of them", and no
answered case differing under the variant found.

    python tools/fingerprint_check.py --combos 200 --seed 1 --jobs 2 --out /tmp/fp-check.jsonl

Each engine's result is a JSON line of --out, written as soon as it is known; run again with the
same --out (and seed) to go on where it stopped (resumable). Exit 0 when every engine checked is
exact, 1 otherwise, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ADAPTER = ROOT / "conformance" / "engines" / "builtin_adapter.py"


def random_combos(count: int, seed: int) -> list[dict]:
    """`count` valid knob assignments (params.yaml constraints), seeded; int knobs at the
    fingerprint's candidate values."""
    from baloot_spec.conformance.fingerprint import INT_CANDIDATES
    from baloot_spec.conformance.dependencies import refused
    from baloot_spec.rules.loader import load_params
    params = load_params()
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        knobs = {name: (rng.choice(INT_CANDIDATES) if knob.type == "int" else rng.choice(list(knob.values)))
                 for name, knob in params.items()}
        if not refused(knobs):
            out.append(knobs)
    return out


def engines(combos: int, seed: int) -> list[dict]:
    """The engines to check: every preset, then the random combinations (each as preset + sets)."""
    from baloot_spec.conformance.fingerprint import preset_knobs
    from baloot_spec.rules.loader import load_params
    defaults = {name: knob.default for name, knob in load_params().items()}
    out = [{"name": f"preset {name}", "preset": name, "set": {}, "knobs": knobs} for name, knobs in preset_knobs().items()]
    for number, knobs in enumerate(random_combos(combos, seed), 1):
        sets = {k: v for k, v in knobs.items() if v != defaults[k]}
        out.append({"name": f"combo {seed}.{number}", "preset": "default", "set": sets, "knobs": knobs})
    return out


def command_of(engine: dict) -> list[str]:
    words = [sys.executable, str(ADAPTER), "--preset", engine["preset"]]
    for knob, value in engine["set"].items():
        words += ["--set", f"{knob}={json.dumps(value) if not isinstance(value, str) else value}"]
    return words


def judge(engine: dict, fp: dict) -> dict:
    """Whether the fingerprint is exact for an engine that plays engine["knobs"]."""
    wrong, untestable = [], []
    for name, verdict in fp["knobs"].items():
        truth = engine["knobs"][name]
        if verdict["status"] == "matched":
            if verdict["value"] != truth:
                wrong.append(f"{name}: reported {verdict['value']!r}, plays {truth!r}")
        elif verdict["status"] == "not testable":
            untestable.append(name)
            if "candidates" in verdict and truth not in verdict["candidates"]:
                wrong.append(f"{name}: not testable among {verdict['candidates']!r}, but plays {truth!r}")
        else:
            wrong.append(f"{name}: none of them (closest {verdict.get('closest')!r}), plays {truth!r}")
    if fp["run"]["fail"]:
        wrong.append(f"{fp['run']['fail']} answered cases differ under the variant found: "
                     + ", ".join(f["id"] for f in fp["run"]["failures"][:5]))
    preset_ok = engine["set"] or fp["closest_preset"]["name"] == engine["preset"] and not fp["variant"]["set"]
    if not preset_ok:
        wrong.append(f"the variant line is {fp['variant']['line']!r}, not --preset {engine['preset']}")
    return {"engine": engine["name"], "exact": not wrong, "wrong": wrong, "not_testable": untestable,
            "line": fp["variant"]["line"], "seconds": fp["search"]["seconds"],
            "variants": fp["search"]["variants"]}


_REFERENCE = None


def check_one(engine: dict) -> dict:
    """Fingerprint one engine (in a worker: the reference's memo is kept between engines)."""
    global _REFERENCE
    from baloot_spec.conformance.fingerprint import Reference, fingerprint
    from baloot_spec.rules import forget_compiled
    if _REFERENCE is None:
        _REFERENCE = Reference()
    forget_compiled()        # (load_variant keeps every variant it compiled: bounded per engine)
    if len(_REFERENCE.memo) > 200_000:
        _REFERENCE.memo.clear()
    try:
        fp = fingerprint(command_of(engine), timeout=60.0, reference=_REFERENCE)
    except Exception as exc:   # a harness problem is a result to report, not a lost run
        return {"engine": engine["name"], "exact": False, "wrong": [f"{type(exc).__name__}: {exc}"],
                "not_testable": [], "line": "", "seconds": 0, "variants": 0}
    return judge(engine, fp)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--combos", type=int, default=200, help="random knob combinations (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="the seed of the combinations (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default: %(default)s)")
    parser.add_argument("--out", metavar="FILE.jsonl", help="one result a line; an existing file is resumed")
    parser.add_argument("--no-presets", action="store_true", help="only the random combinations")
    args = parser.parse_args(argv)
    if args.combos < 0 or args.jobs < 1:
        parser.error("--combos takes 0 or more, --jobs 1 or more")
    todo = engines(args.combos, args.seed)
    if args.no_presets:
        todo = [e for e in todo if not e["name"].startswith("preset ")]
    results = []
    if args.out and Path(args.out).is_file():
        for line in Path(args.out).read_text(encoding="utf-8").splitlines():
            if line.strip():
                results.append(json.loads(line))
        done = {r["engine"] for r in results}
        todo = [e for e in todo if e["name"] not in done]
        print(f"resuming {args.out}: {len(done)} done, {len(todo)} to go", file=sys.stderr)
    started = time.perf_counter()
    out = open(args.out, "a", encoding="utf-8") if args.out else None

    def record(result):
        results.append(result)
        if out:
            out.write(json.dumps(result) + "\n")
            out.flush()
        mark = "exact" if result["exact"] else "WRONG " + "; ".join(result["wrong"])
        print(f"{len(results)}: {result['engine']}: {mark} ({len(result['not_testable'])} not testable, "
              f"{result['seconds']} s)", file=sys.stderr, flush=True)

    try:
        if args.jobs == 1:
            for engine in todo:
                record(check_one(engine))
        else:
            from multiprocessing import get_context
            with get_context("spawn").Pool(args.jobs) as pool:
                for result in pool.imap_unordered(check_one, todo):
                    record(result)
    finally:
        if out:
            out.close()
    presets = [r for r in results if r["engine"].startswith("preset ")]
    combos = [r for r in results if not r["engine"].startswith("preset ")]
    untestable = sorted({k for r in results for k in r["not_testable"]})
    print(f"presets: {sum(r['exact'] for r in presets)}/{len(presets)} exact; random combinations (seed {args.seed}): "
          f"{sum(r['exact'] for r in combos)}/{len(combos)} exact; "
          f"{time.perf_counter() - started:.0f} s this run (jobs {args.jobs})")
    print(f"knobs reported not testable somewhere: {', '.join(untestable) or 'none'}")
    for r in results:
        if not r["exact"]:
            print(f"NOT EXACT {r['engine']}: {'; '.join(r['wrong'])}")
    return 0 if all(r["exact"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
