#!/usr/bin/env python3
"""Choose whole matches of each preset for conformance/games/<preset>/matches.jsonl.

    python tools/grow_games.py [--preset P ...] [--hands 100] [--seed 1] [--check]

For each preset, seeded random matches are played by `baloot simulate --matches` (random legal
play, every claim filled) and chosen by their content: first a match for each thing the games
must show that the chosen ones do not show yet (a doubled hand, a project, a Baloot, a Kaboot, a
Gahwa call, a thrown-in hand), then more until the file holds at least --hands hands. Every match
ends (simulate plays to the end). The file is then checked by both implementations:
`baloot audit` (every event legal, every claim recomputed) and tools/verify_games.py (the
independent oracle); a file either finds fault with is not written. --check changes nothing and
exits 1 when a stored file is not the one these settings give.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOWS = ("doubled", "projects", "baloot", "kaboot", "gahwa", "thrown_in")
BATCH = 60   # matches simulated per preset (enough for every kind above in each preset so far)


def shows(match: dict) -> set:
    """What a match shows, from its events and its claims."""
    out = set()
    for hand in match["hands"]:
        claimed = hand.get("claimed") or {}
        events = hand.get("events") or []
        if any(e.get("type") == "double" and e.get("call") != "pass" for e in events):
            out.add("doubled")
        if any(e.get("type") == "double" and e.get("call") == "gahwa" for e in events):
            out.add("gahwa")
        if any(claimed.get("projects", {}).get(team) for team in ("NS", "EW")):
            out.add("projects")
        if any(e.get("baloot") for e in events):
            out.add("baloot")
        if claimed.get("kaboot"):
            out.add("kaboot")
        if claimed.get("thrown_in"):
            out.add("thrown_in")
    return out


def simulate(preset: str, seed: str) -> list[dict]:
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "m.jsonl")
        subprocess.run([sys.executable, "-m", "baloot_spec", "simulate", "--matches", str(BATCH), "--seed", seed,
                        "--preset", preset, "--out", out], cwd=ROOT, check=True, capture_output=True)
        with open(out, encoding="utf-8") as handle:
            return [json.loads(line) for line in handle if line.strip()]


def choose(matches: list[dict], hands: int) -> tuple[list[dict], set]:
    chosen, seen = [], set()
    for kind in SHOWS:   # one match for each thing not shown yet, the shortest first
        if kind in seen:
            continue
        fitting = [m for m in matches if kind in shows(m) and m not in chosen]
        if fitting:
            pick = min(fitting, key=lambda m: len(m["hands"]))
            chosen.append(pick)
            seen |= shows(pick)
    for match in matches:   # then in order, to the number of hands asked for
        if sum(len(m["hands"]) for m in chosen) >= hands:
            break
        if match not in chosen:
            chosen.append(match)
            seen |= shows(match)
    return chosen, seen


def verified(path: str) -> list[str]:
    """What the auditor and the oracle find wrong with a games file (empty: both find it clean)."""
    problems = []
    audit = subprocess.run([sys.executable, "-m", "baloot_spec", "audit", path], cwd=ROOT, capture_output=True, text=True)
    if audit.returncode != 0:
        problems.append("baloot audit: " + (audit.stdout + audit.stderr)[-800:])
    oracle = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "verify_games.py"), path], cwd=ROOT,
                            capture_output=True, text=True)
    if oracle.returncode != 0:
        problems.append("oracle: " + (oracle.stdout + oracle.stderr)[-800:])
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", action="append", help="a preset (repeatable; default: every preset but default)")
    parser.add_argument("--hands", type=int, default=100, help="at least this many hands per preset (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="the simulation seed (default 1; preset k of the list uses 100 * seed + k)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a stored file differs")
    args = parser.parse_args(argv)
    presets = args.preset or ["nl-rulebook", "online-apps", "riyadh", "saudi-federation"]
    status = 0
    for number, preset in enumerate(presets):
        chosen, seen = choose(simulate(preset, str(100 * args.seed + number)), args.hands)
        text = "".join(json.dumps(m, separators=(",", ":")) + "\n" for m in chosen)
        target = os.path.join(ROOT, "conformance", "games", preset, "matches.jsonl")
        count = sum(len(m["hands"]) for m in chosen)
        missing = [k for k in SHOWS if k not in seen]
        if args.check:
            current = open(target, encoding="utf-8").read() if os.path.exists(target) else None
            if current != text:
                print(f"{target}: not what tools/grow_games.py gives (run it)", file=sys.stderr)
                status = 1
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as handle:
            handle.write(text)
        problems = verified(handle.name)
        if problems:
            print(f"{preset}: not written, the checks disagree:\n" + "\n".join(problems), file=sys.stderr)
            os.unlink(handle.name)
            status = 1
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(handle.name, target)
        print(f"{preset}: {len(chosen)} matches, {count} hands, showing {', '.join(sorted(seen))}"
              + (f"; none of the {BATCH} matches shows {', '.join(missing)}" if missing else ""))
    return status


if __name__ == "__main__":
    sys.exit(main())
