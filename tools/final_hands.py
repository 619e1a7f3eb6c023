#!/usr/bin/env python3
"""Copy a log, recording every deal as a platform without the deal order would: each seat's
final cards in no particular order, the public card, `"unordered": true` (conformance/LOGS.md,
"A deal without its order").

    python tools/final_hands.py IN.json[l] OUT.json[l] [--seed S]

A hand is replayed with the engine to learn each seat's cards after the deal; the cards are then
shuffled. A hand the engine cannot replay is copied unchanged.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baloot_spec.engine.hand import Hand  # noqa: E402
from baloot_spec.errors import BalootError  # noqa: E402
from baloot_spec.rules import load_variant  # noqa: E402


def unorder(document: dict, rng: random.Random) -> dict:
    variant = document["variant"]
    rules = load_variant(variant.get("preset", "default"), variant.get("set") or {}, variant.get("overlays") or [])
    for record in document["hands"]:
        try:
            hand = Hand(rules, record["dealer"], record["deal"])
            for event in record["events"]:
                hand.apply(event, force=True)
        except BalootError:
            continue
        S = hand.state
        dealt = S.dealt if S.dealt and any(S.dealt.values()) else S.initial
        held = {seat: [c.text for c in cards] for seat, cards in dealt.items()}
        for cards in held.values():
            rng.shuffle(cards)
        deal = {"hands": held, "public": S.public.text, "unordered": True}
        deal.update({k: v for k, v in record["deal"].items() if k in ("exposed",)})
        record["deal"] = deal
    return document


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    text = Path(args.source).read_text(encoding="utf-8")
    if args.source.endswith(".jsonl"):
        out = [json.dumps(unorder(json.loads(line), rng)) for line in text.splitlines() if line.strip()]
        Path(args.target).write_text("\n".join(out) + "\n", encoding="utf-8")
    else:
        Path(args.target).write_text(json.dumps(unorder(json.loads(text), rng), indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
