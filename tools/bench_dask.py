#!/usr/bin/env python3
"""The audit on Dask against the fork pool and one process, as ratios in one run
(`python tools/bench.py --audit-dask FILE.jsonl [--repeat R] [--json]`).

On one JSON Lines file (make one with `baloot simulate --hands 100000 --out FILE`), alternately
R times, wall clock, each its best: `audit FILE` (one process), `audit --jobs 2 FILE`, and
`audit --dask local:2 FILE` (a LocalCluster of 2 worker processes, its start included). Then,
in this process, on a LocalCluster of 2 started beforehand: the audit alone (no start-up), the
peak memory of each worker and of the client, on the file and on its first quarter (memory must
not grow with the input), and the scheduler's overhead per task (1000 tasks that do nothing).
"""

from __future__ import annotations

import json
import logging
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _run(command: list) -> tuple[float, float]:
    """Wall time of the command, and the peak resident memory of its own process, MB: its VmHWM
    in /proc, read every 0.1 s (the workers, its children, not counted; a reaped child's rusage
    would count its own children too)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    peak = 0
    while process.poll() is None:
        try:
            with open(f"/proc/{process.pid}/status") as status:
                peak = max([peak] + [int(line.split()[1]) for line in status if line.startswith("VmHWM:")])
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    elapsed = time.perf_counter() - started
    assert process.returncode in (0, 1), command
    return elapsed, peak / 1024


def _noop(x):
    return x


def _worker_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench(path: Path, repeat: int) -> dict:
    import distributed

    from baloot_spec import audit_dask
    from baloot_spec.cli.logs import _audit_item
    baloot = [sys.executable, "-m", "baloot_spec", "audit"]
    hands = sum(1 for line in path.open("rb") if line.strip())
    modes = {"one": [], "jobs2": ["--jobs", "2"], "dask_local2": ["--dask", "local:2"]}
    best = dict.fromkeys(modes, float("inf"))
    peak = dict.fromkeys(modes, 0.0)
    for _ in range(max(1, repeat)):
        for mode, options in modes.items():
            elapsed, rss = _run(baloot + options + [str(path)])
            best[mode] = min(best[mode], elapsed)
            peak[mode] = max(peak[mode], rss)
    out = {"hands": hands, "input_mb": round(path.stat().st_size / 1e6, 1), "repeat": repeat,
           "seconds": {k: round(v, 2) for k, v in best.items()},
           "hands_per_s": {k: round(hands / v, 1) for k, v in best.items()},
           "dask_over_jobs2_throughput": round(best["jobs2"] / best["dask_local2"], 3),
           "jobs2_speedup": round(best["one"] / best["jobs2"], 2),
           "dask_local2_speedup": round(best["one"] / best["dask_local2"], 2)}

    quarter = Path(f"{path}.quarter.jsonl")
    with path.open("rb") as source, quarter.open("wb") as target:
        for k, line in enumerate(source):
            if k >= hands // 4:
                break
            target.write(line)
    out["parent_peak_rss_mb"] = {k: round(v, 1) for k, v in peak.items()}   # (one process; --jobs 2's parent; the Dask client)
    out["client_peak_rss_mb"] = {"file": round(peak["dask_local2"], 1),
                                 "quarter": round(_run(baloot + ["--dask", "local:2", str(quarter)])[1], 1)}
    started = time.perf_counter()
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.ERROR)
    client = distributed.Client(cluster)
    out["cluster_start_s"] = round(time.perf_counter() - started, 2)
    try:
        peaks = {}
        for name, source in (("quarter", quarter), ("file", path)):
            started = time.perf_counter()
            count = sum(r["hands"] for r in audit_dask.reports([str(source)], None, _audit_item, client=client, compact=True))
            elapsed = time.perf_counter() - started
            out[f"warm_cluster_{name}_hands_per_s"] = round(count / elapsed, 1)
            peaks[name] = round(max(client.run(_worker_peak_mb).values()), 1)
        out["worker_peak_rss_mb"] = peaks
        out["tasks_on_file"] = len(audit_dask.plan([str(path)]))
        futures = client.map(_noop, range(1000), pure=False)   # warm-up
        client.gather(futures)
        del futures
        started = time.perf_counter()
        client.gather(client.map(_noop, range(1000), pure=False))
        out["scheduler_ms_per_task"] = round((time.perf_counter() - started), 3)   # 1000 tasks: seconds = ms/task
    finally:
        client.close()
        cluster.close()
        quarter.unlink()
    return out


def main(path: str, repeat: int, as_json: bool) -> int:
    result = bench(Path(path), repeat)
    if as_json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1, "--json" in sys.argv))
