"""Seeded random games written as `baloot-log/1` JSON Lines (one document per line).

`--hands N`: N independent hands, each a one-hand document starting from random match scores
(so that Sun doubling is sometimes allowed). `--matches N`: N full matches, the deal passing to
the right, the written scores adding up, until the match rules end it.

Each comes as documents (simulate_hands, simulate_matches) or as their JSON Lines text, made
straight from the hands (hand_lines, match_lines: what `baloot simulate` writes, the same bytes
json.dumps gives for the documents, in a fraction of the time; tools/BENCHMARKS.md, step 78).
"""

from __future__ import annotations

import json

from .engine.random_play import pick, play_random_hand, play_random_match, seeded
from .log.lines import LineWriter
from .log.writer import hand_record, log_document

START_SCORES = [0, 0, 40, 99, 100, 101, 130]
APP = "baloot-spec simulate"


def _random_hands(rules, count: int, seed: int):
    """(the finished hand, its dealer, its starting scores) for each seeded random hand."""
    seats, teams = list(rules.table.seats), list(rules.table.teams)
    for number in range(count):
        rng = seeded(f"{seed}:hand:{number}")   # (random.Random(text), without its Python frames)
        draw = rng.getrandbits   # (pick: what rng.choice draws, without its two Python calls)
        dealer = seats[pick(draw, len(seats))]
        scores = {team: START_SCORES[pick(draw, len(START_SCORES))] for team in teams}
        yield play_random_hand(rules, rng, dealer, scores), dealer, scores


def _random_matches(rules, count: int, seed: int, max_hands: int):
    """(the hands, the first dealer, the claimed final scores and winner) for each seeded match."""
    for number in range(count):
        rng = seeded(f"{seed}:match:{number}")
        first = rng.choice(rules.table.seats)
        scores = {team: 0 for team in rules.table.teams}
        hands, winner = [], None
        for hand, _before, values in play_random_match(rules, rng, first, max_hands):
            hands.append(hand)
            if values is not None:
                scores = dict(values["new_scores"])
                winner = values["winner"] if values["ended"] else None
        yield hands, first, {"scores": scores, "winner": winner}


def simulate_hands(rules, count: int, seed: int):
    """Yield one log document per random hand."""
    described = rules.variant.describe()
    for hand, dealer, scores in _random_hands(rules, count, seed):
        yield log_document(rules, [hand_record(hand)], dealer, scores, app=APP, described=described)


def simulate_matches(rules, count: int, seed: int, max_hands: int = 300):
    """Yield one log document per random match, with the claimed final scores and winner."""
    described = rules.variant.describe()
    for hands, first, claimed in _random_matches(rules, count, seed, max_hands):
        yield log_document(rules, [hand_record(hand) for hand in hands], first, None, claimed, app=APP, described=described)


def hand_lines(rules, count: int, seed: int):
    """simulate_hands' documents as their JSON text, made straight from the hands."""
    writer = LineWriter(rules, APP)
    for hand, dealer, scores in _random_hands(rules, count, seed):
        yield writer.hand_document_text(hand, dealer, scores)


def match_lines(rules, count: int, seed: int, max_hands: int = 300):
    """simulate_matches' documents as their JSON text, made straight from the hands."""
    writer = LineWriter(rules, APP)
    for hands, first, claimed in _random_matches(rules, count, seed, max_hands):
        yield writer.document_text([writer.hand_text(hand) for hand in hands], first, None, claimed)


def write_jsonl(documents, stream, progress=None) -> int:
    """Write each document (or a document's text, as hand_lines makes it) as one line."""
    count = 0
    for document in documents:
        stream.write((document if type(document) is str else json.dumps(document, separators=(",", ":"))) + "\n")
        count += 1
        if progress:
            progress(count)
    return count
