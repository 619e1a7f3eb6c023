"""What a first run costs with no disk cache (a fresh install, a rules file just edited, an
overlay): the rules loaded and compiled in a fresh process, then the first hand of each contract,
whose phases are specialised for it (issue 28: the cold load under 0.5 s). tools/bench.py reports
these; run alone, this prints them as JSON.

    python tools/bench_nocache.py [--hands N] [--seed S]

The process runs with BALOOT_NO_CACHE=1; `rules_load_nocache_s` is `load_variant()` timed as
tools/bench.py times the cold load (the compiler imported in it); `specialise_nocache_ms` is the
time spent making the specialised phases, a contract's on average (by the values of the phases'
fixed state: the contract), and by phase; `_cpu` the same in CPU time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed_specializer(rules, spent: dict, cpu: dict | None = None):
    """Wrap `rules.specializer` so that each call's time is added to spent[(phase, values)]
    (and its CPU time to cpu[(phase, values)])."""
    make = rules.specializer
    cpu = {} if cpu is None else cpu

    def specializer(phase, values):
        started, started_cpu = time.perf_counter(), time.process_time()
        try:
            return make(phase, values)
        finally:
            spent[(phase, values)] = spent.get((phase, values), 0.0) + time.perf_counter() - started
            cpu[(phase, values)] = cpu.get((phase, values), 0.0) + time.process_time() - started_cpu
    rules.specializer = specializer


def summary(load_s: float, spent: dict, load_cpu_s: float | None = None, cpu: dict | None = None) -> dict:
    """The figures: the load, and the specialising per contract (all phases) and per phase; the
    same in CPU time where given (a shared machine's load moves the clock's figures, less these)."""
    contracts = {values for _, values in spent}
    phases = sorted({phase for phase, _ in spent})
    per_phase = {phase: round(1000 * sum(s for (p, _), s in spent.items() if p == phase)
                              / max(1, sum(1 for p, _ in spent if p == phase)), 1) for phase in phases}
    out = {"rules_load_nocache_s": round(load_s, 3), "contracts_specialised": len(contracts),
           "specialise_nocache_ms": round(1000 * sum(spent.values()) / max(1, len(contracts)), 1),
           "specialise_nocache_ms_by_phase": per_phase}
    if load_cpu_s is not None and cpu is not None:
        out["rules_load_nocache_cpu_s"] = round(load_cpu_s, 3)
        out["specialise_nocache_cpu_ms"] = round(1000 * sum(cpu.values()) / max(1, len(contracts)), 1)
    return out


def measure(hands: int, seed: int) -> dict:
    """In this process (BALOOT_NO_CACHE=1 set before anything is loaded): the figures."""
    started, started_cpu = time.perf_counter(), time.process_time()
    from baloot_spec.rules import load_variant
    rules = load_variant()
    load_s, load_cpu_s = time.perf_counter() - started, time.process_time() - started_cpu
    spent: dict = {}
    cpu: dict = {}
    timed_specializer(rules, spent, cpu)
    sys.path.insert(0, str(ROOT / "tools"))
    from bench import record_hands
    record_hands(rules, hands, seed)   # (seeded: the same contracts each run)
    return summary(load_s, spent, load_cpu_s, cpu)


def nocache_figures(hands: int = 40, seed: int = 1) -> dict:
    """The figures from a fresh process with no disk cache."""
    env = dict(os.environ, BALOOT_NO_CACHE="1")
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--hands", str(hands), "--seed", str(seed)],
                          capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    return json.loads(done.stdout)


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=40, help="seeded random hands played after the load")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if not os.environ.get("BALOOT_NO_CACHE"):
        print(json.dumps(nocache_figures(args.hands, args.seed), indent=2))
    else:
        sys.path.insert(0, str(ROOT))
        print(json.dumps(measure(args.hands, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
