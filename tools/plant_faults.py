#!/usr/bin/env python3
"""Copy a simulated JSONL log, replacing in every tenth hand one play by a card the player does
not hold; print (or check) where the auditor must find the first violation.

    python tools/plant_faults.py IN.jsonl OUT.jsonl [--every 10] [--seed S]

Writes OUT.jsonl and OUT.jsonl.expected (JSON lines: {"line", "path"} for each altered hand).
`baloot audit --json OUT.jsonl` must report, for each altered document, its first violation at
that path, and nothing for the documents left intact (see tests/test_audit.py).
"""

from __future__ import annotations

import argparse
import json
import random
import sys

SUITS, RANKS = "SHDC", "AKQJT987"


def plant(document: dict, rng: random.Random) -> str | None:
    """Alter one play of the document's first hand in place; return its JSON path (None if no play)."""
    hand = document["hands"][0]
    plays = [i for i, e in enumerate(hand["events"]) if e["type"] == "play"]
    if not plays:
        return None
    index = rng.choice(plays)
    event = hand["events"][index]
    seat = event["seat"]
    played_before = {e["card"] for e in hand["events"][:index] if e["type"] == "play"}
    held = _held(hand, seat, played_before, document)
    choices = [r + s for r in RANKS for s in SUITS if r + s not in held]
    event["card"] = rng.choice(choices)
    for flag in ("ekka", "baloot", "declare"):
        event.pop(flag, None)
    return f"$.hands[0].events[{index}]"


def _held(hand, seat, played_before, document) -> set:
    """The cards `seat` holds at that moment: everything it is ever seen playing, not yet played."""
    return {e["card"] for e in hand["events"] if e["type"] == "play" and e["seat"] == seat} - played_before


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    expected = []
    with open(args.source, encoding="utf-8") as inp, open(args.target, "w", encoding="utf-8") as out:
        for number, line in enumerate(inp, 1):
            document = json.loads(line)
            if number % args.every == 0:
                path = plant(document, rng)
                if path:
                    expected.append({"line": number, "path": path})
            out.write(json.dumps(document, separators=(",", ":")) + "\n")
    with open(args.target + ".expected", "w", encoding="utf-8") as handle:
        for item in expected:
            handle.write(json.dumps(item) + "\n")
    print(f"altered {len(expected)} hands", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
