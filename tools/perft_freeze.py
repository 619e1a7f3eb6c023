"""Record the perft counts of conformance/perft/: every count computed by the DSL engine and by
the oracle (its own perft, tools/oracle/perft.py), and a file written only when both agree on
every count in it, so that no recorded number rests on one engine alone.

    python tools/perft_freeze.py [PATH ...] [--check]

PATH: perft files or folders (default conformance/perft). The keys of a position's "counts" say
which depths to compute; a null value is a count not recorded yet. With --check nothing is
written: recorded counts must match both engines. On a disagreement the path of actions down to
the first position where the engines' legal sets differ is printed, and that file is left alone.
Exit 0: all agree; 1: a disagreement or (with --check) a stale count; 2: unreadable input.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from baloot_spec.errors import BalootError  # noqa: E402
from baloot_spec.perft import count, divide, dsl_hand, oracle_hand, oracle_modules  # noqa: E402


def depths_of(position) -> list[int]:
    counts = position.get("counts")
    if not isinstance(counts, dict) or not counts or not all(str(d).isdigit() for d in counts):
        raise BalootError(f"position {position.get('id')!r}: 'counts' maps depths (\"1\", \"2\", ...) to counts or null")
    return sorted(int(d) for d in counts)


def locate(position, depth) -> str:
    """Follow the first action whose counts differ down to where the legal sets differ."""
    oracle_perft = oracle_modules()[2]
    dsl, orc, path = dsl_hand(position), oracle_hand(position), []
    for d in range(depth, 0, -1):
        mine, theirs = divide(dsl, d), oracle_perft.divide(orc, d)
        if set(mine) != set(theirs):
            return ("after %s: legal sets differ: DSL only %s, oracle only %s"
                    % (json.dumps(path), sorted(set(mine) - set(theirs)), sorted(set(theirs) - set(mine))))
        key = next((k for k in mine if mine[k] != theirs[k]), None)
        if key is None:
            break
        action, seat = json.loads(key), dsl.turn()
        path.append(dict(action, seat=seat))
        dsl.apply(dict(action, seat=seat))
        orc.apply(dict(action, seat=seat))
    return "after %s: counts differ but no legal set does (a leaf or copy problem?)" % json.dumps(path)


def freeze_file(path, check: bool) -> int:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    positions = data.get("positions") if isinstance(data, dict) else None
    if not isinstance(positions, list):
        raise BalootError(f"{path}: a perft file is {{\"description\", \"positions\": [...]}}")
    status, changed = 0, False
    for position in positions:
        pid = position.get("id")
        timings = {"dsl": 0.0, "oracle": 0.0}
        for depth in depths_of(position):
            got = {}
            for engine in ("dsl", "oracle"):
                start = time.perf_counter()
                got[engine] = count(position, depth, engine)
                timings[engine] += time.perf_counter() - start
            recorded = position["counts"].get(str(depth))
            if got["dsl"] != got["oracle"]:
                print(f"DISAGREE {pid} perft({depth}): DSL {got['dsl']}, oracle {got['oracle']}")
                print("  " + locate(position, depth))
                status = 1
            elif recorded is not None and recorded != got["dsl"]:
                print(f"STALE {pid} perft({depth}): recorded {recorded}, both engines {got['dsl']}")
                status = 1 if check else status
                position["counts"][str(depth)] = got["dsl"]
                changed = True
            elif recorded is None:
                position["counts"][str(depth)] = got["dsl"]
                changed = True
        print(f"{pid}: {json.dumps(position['counts'])}  [dsl {timings['dsl']*1000:.0f} ms, "
              f"oracle {timings['oracle']*1000:.0f} ms]")
    if status == 0 and changed and not check:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
        print(f"wrote {path}")
    elif status and not check:
        print(f"left {path} unchanged (disagreement)")
    return status


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="perft_freeze.py", description=__doc__.split("\n\n")[0])
    p.add_argument("paths", nargs="*", metavar="PATH", help="perft files or folders (default conformance/perft)")
    p.add_argument("--check", action="store_true", help="write nothing; recorded counts must match both engines")
    args = p.parse_args(argv)
    files = []
    for path in args.paths or [os.path.join(ROOT, "conformance", "perft")]:
        if os.path.isdir(path):
            files += sorted(glob.glob(os.path.join(path, "**", "*.json"), recursive=True))
        elif os.path.isfile(path):
            files.append(path)
        else:
            print(f"perft_freeze.py: no such file or folder: {path}", file=sys.stderr)
            return 2
    status = 0
    for path in files:
        try:
            status = max(status, freeze_file(path, args.check))
        except (OSError, ValueError, BalootError) as exc:
            print(f"perft_freeze.py: {path}: {exc}", file=sys.stderr)
            return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
