"""Deal forms a log may use beyond the engine's two (a deck, or hands in deal order).

Many platforms store each seat's cards but not the order they were dealt in: no telling the
cards dealt before the bidding from those dealt after it. Such a deal is logged as the hands
form with `"unordered": true` (conformance/LOGS.md). It is put in an order the engine reads:
each seat's cards as recorded, the public card moved to the end of its holder's hand (so the
engine checks that the holder is the seat the bidding gives it to). What the order would have
told is then unknown: the rules that read the cards dealt before the bidding are named, so that
what they say about such a hand is reported as not checked instead of as a violation.
"""

from __future__ import annotations

import re

UNORDERED = "unordered"
# The state names that hold the cards dealt before the bidding (rules/*.yaml, `state` in the engine)
BEFORE_BIDDING = ("initial",)


def engine_deal(rules, deal) -> tuple[dict, bool]:
    """(the deal in a form the engine reads, whether the recorded form left the deal order out)."""
    if not isinstance(deal, dict) or not deal.get(UNORDERED) or not isinstance(deal.get("hands"), dict):
        return deal, False
    public = _card(rules, deal.get("public"))
    ordered = {}
    for seat, cards in deal["hands"].items():
        if not isinstance(cards, list):
            ordered[seat] = cards
            continue
        others = [c for c in cards if _card(rules, c) != public or public is None]
        ordered[seat] = others + [c for c in cards if public is not None and _card(rules, c) == public]
    out = {key: value for key, value in deal.items() if key not in (UNORDERED, "hands", "cut")}
    out["hands"] = ordered
    if isinstance(deal.get("cut"), dict):   # who cut and how is checked; which cards went where cannot be
        out["cut"] = {k: v for k, v in deal["cut"].items() if k != "cards"}
    return out, True


def rules_reading_deal_order(rules) -> dict:
    """{rule id: the state it reads} for every rule whose expressions read the cards dealt before
    the bidding: what an unordered deal cannot check."""
    pattern = re.compile(r"\b(" + "|".join(BEFORE_BIDDING) + r")\b")
    found = {}
    for _section, item in rules.variant.ruleset.items():
        for key, text in item.items():
            if key in ("id", "name", "source", "doc", "explain") or not isinstance(text, str):
                continue
            match = pattern.search(text)
            if match:
                found[item["id"]] = match.group(1)
    return found


def _card(rules, text):
    if not isinstance(text, str):
        return None
    card = rules.deck.exact.get(text)
    if card is None:
        try:
            card = rules.deck.parse(text)
        except Exception:   # an unknown card: the engine reports it, located
            return text
    return card
