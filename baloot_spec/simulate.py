"""Seeded random games written as `baloot-log/1` JSON Lines (one document per line).

`--hands N`: N independent hands, each a one-hand document starting from random match scores
(so that Sun doubling is sometimes allowed). `--matches N`: N full matches, the deal passing to
the right, the written scores adding up, until the match rules end it.
"""

from __future__ import annotations

import json
import random

from .engine.random_play import play_random_hand, play_random_match
from .log.writer import hand_record, log_document

START_SCORES = [0, 0, 40, 99, 100, 101, 130]


def simulate_hands(rules, count: int, seed: int):
    """Yield one log document per random hand."""
    described = rules.variant.describe()
    for number in range(count):
        rng = random.Random(f"{seed}:hand:{number}")
        dealer = rng.choice(rules.table.seats)
        scores = {team: rng.choice(START_SCORES) for team in rules.table.teams}
        hand = play_random_hand(rules, rng, dealer, scores)
        yield log_document(rules, [hand_record(hand)], dealer, scores, app="baloot-spec simulate", described=described)


def simulate_matches(rules, count: int, seed: int, max_hands: int = 300):
    """Yield one log document per random match, with the claimed final scores and winner."""
    described = rules.variant.describe()
    for number in range(count):
        rng = random.Random(f"{seed}:match:{number}")
        first = rng.choice(rules.table.seats)
        scores = {team: 0 for team in rules.table.teams}
        records, winner = [], None
        for hand, _before, values in play_random_match(rules, rng, first, max_hands):
            records.append(hand_record(hand))
            if values is not None:
                scores = dict(values["new_scores"])
                winner = values["winner"] if values["ended"] else None
        yield log_document(rules, records, first, None, {"scores": scores, "winner": winner}, app="baloot-spec simulate",
                           described=described)


def write_jsonl(documents, stream, progress=None) -> int:
    count = 0
    for document in documents:
        stream.write(json.dumps(document, separators=(",", ":")) + "\n")
        count += 1
        if progress:
            progress(count)
    return count
