"""Write games as `baloot-log/1` documents (see conformance/LOGS.md).

A finished Hand becomes a hand record (dealer, deal, events and what the engine computed as the
`claimed` results), so a simulated log audits clean. One document per match; JSON Lines for bulk.
"""

from __future__ import annotations

from ..text import plain

FORMAT = "baloot-log/1"

# Claimed keys of a hand, and where the engine's value comes from: facts or scoring steps.
CLAIMED_FROM_FACTS = ("buyer", "mode", "card_points", "projects")
CLAIMED_FROM_SCORE = ("counting_team", "converted", "totals", "winner", "kaboot", "gahwa", "written")


def claimed_of(hand) -> dict:
    """What the engine computed for a finished hand, in the log's `claimed` shape."""
    result = hand.result()
    if result["thrown_in"]:
        return {"thrown_in": True}
    claimed = {"thrown_in": False}
    for key in CLAIMED_FROM_FACTS:
        claimed[key] = plain(hand.facts[key])
    claimed["trump"] = getattr(hand.state, "trump", None)
    for key in CLAIMED_FROM_SCORE:
        claimed[key] = plain(result[key])
    return claimed


def hand_record(hand, with_claimed: bool = True) -> dict:
    record = {"dealer": hand.state.dealer, "match_scores": dict(hand.state.match_scores),
              "deal": hand.deal_spec, "events": [dict(e) for e in hand.events]}
    if with_claimed and hand.is_over():
        record["claimed"] = claimed_of(hand)
    return record


def log_document(rules, hands: list, first_dealer: str, start: dict | None = None, claimed_match: dict | None = None,
                 app: str | None = None, described: dict | None = None) -> dict:
    """One `baloot-log/1` document. `described`: `rules.variant.describe()`, which a writer of
    many documents works out once (the variant's hash is a sha256: 4% of a simulated hand)."""
    if described is None:
        described = rules.variant.describe()
    document = {
        "format": FORMAT,
        "variant": {"preset": described["preset"], "set": dict(described["set"]), "overlays": list(described["overlays"]),
                    "hash": described["hash"]},
        "match": {"start": dict(start or {t: 0 for t in rules.table.teams}), "first_dealer": first_dealer},
        "hands": hands,
    }
    if app:
        document["match"]["app"] = app
    if claimed_match is not None:
        document["claimed"] = claimed_match
    return document
