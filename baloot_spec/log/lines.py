"""Log documents written straight as their JSON Lines text, for `baloot simulate`: byte for byte
what `json.dumps(document, separators=(",", ":"))` gives for the document log/writer.py builds
(`log_document` of `hand_record`s), without building it.

Why: building the documents and encoding them was about a third of a simulated hand's cost
beyond the replay (tools/BENCHMARKS.md, step 78). Most of a hand's events are the engine's shared
read-only events (LegalEvent, one per candidate and seat, made once per variant), so each one's
text is made once per writer; the claimed results are encoded as the engine holds them (records
and tuples encode as the dicts and lists `text.plain` makes of them)."""

from __future__ import annotations

import json

from ..engine.state import LegalEvent
from ..expr.builtins import Rec
from .writer import CLAIMED_FROM_FACTS, CLAIMED_FROM_SCORE, FORMAT

def _encoder():
    """`json.JSONEncoder(separators=(",", ":")).encode`, or where json has its C encoder, that
    encoder made once: `encode` makes a new one per call (about 1.5 µs, five or six calls a
    hand; tools/BENCHMARKS.md, step 83). The same text: only the check for circular containers
    is left out, which a document the engine made cannot have."""
    python = json.JSONEncoder(separators=(",", ":"))
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return python.encode
    strings = json.encoder.encode_basestring_ascii
    chunks = make(None, python.default, strings, None, ":", ",", False, False, True)
    join = "".join

    def encode(value) -> str:
        if type(value) is str:
            return strings(value)
        return join(chunks(value, 0))
    return encode


_encode = _encoder()


class LineWriter:
    """Writes documents of one variant as JSON text; keeps the text of each shared event it met."""

    def __init__(self, rules, app: str | None = None, described: dict | None = None):
        if described is None:
            described = rules.variant.describe()
        variant = {"preset": described["preset"], "set": dict(described["set"]),
                   "overlays": list(described["overlays"]), "hash": described["hash"]}
        self._head = '{"format":' + _encode(FORMAT) + ',"variant":' + _encode(variant) + ',"match":{"start":'
        self._app = "" if not app else ',"app":' + _encode(app)
        self._teams = tuple(rules.table.teams)
        # id(a shared event) -> its text; the events are kept (`_held`), so an id found here is
        # that event's (no other object can have it while the event lives)
        self._texts, self._held = _Texts(), []
        self._text_of = self._texts.__getitem__   # (dict.get with its arguments parsed cost half again)
        # a card's text -> its JSON (a simulated deal is a deck of them)
        self._cards = {card.text: _encode(card.text) for card in rules.deck.cards}
        self._card_text = self._cards.__getitem__

    def hand_text(self, hand) -> str:
        """The text of `hand_record(hand)`."""
        S = hand.state
        events = hand.events
        texts = [*map(self._text_of, map(id, events))]   # (C-level: no Python frame an event)
        while None in texts:   # (an event met for the first time, or not a shared one: a few a hand)
            index = texts.index(None)
            texts[index] = self._event_text(events[index])
        scores = S.match_scores   # (a record is encoded through its Python `items`: copied in C first)
        text = ('{"dealer":' + _encode(S.dealer) + ',"match_scores":' + _encode(dict(scores) if type(scores) is Rec else scores)
                + ',"deal":' + self._deal_text(hand.deal_spec) + ',"events":[' + ",".join(texts) + "]")
        if hand.is_over():
            text += ',"claimed":' + _encode(_claimed(hand))
        return text + "}"

    def document_text(self, hand_texts: list, first_dealer: str, start: dict | None = None,
                      claimed_match: dict | None = None) -> str:
        """The text of `log_document(rules, hands, first_dealer, start, claimed_match, app)`, the
        hands given as their texts (hand_text)."""
        text = (self._head + _encode(start or {t: 0 for t in self._teams}) + ',"first_dealer":' + _encode(first_dealer)
                + self._app + '},"hands":[' + ",".join(hand_texts) + "]")
        if claimed_match is not None:
            text += ',"claimed":' + _encode(claimed_match)
        return text + "}"

    def _deal_text(self, deal) -> str:
        """The text of a deal; a deck of the variant's cards (what simulate deals) from their
        texts, made once per writer (encoding 32 strings was about a hundredth of a hand)."""
        if type(deal) is dict and len(deal) == 1:
            deck = deal.get("deck")
            if type(deck) is list:
                try:
                    return '{"deck":[' + ",".join(map(self._card_text, deck)) + "]}"
                except (KeyError, TypeError):   # (not a card's text, or unhashable: encoded as it stands)
                    pass
        return _encode(deal)

    def _event_text(self, event) -> str:
        text = _encode(event)
        if type(event) is LegalEvent:   # (shared and read-only: its text is made once)
            self._texts[id(event)] = text
            self._held.append(event)
        return text


class _Texts(dict):
    """id(a shared event) -> its text, None for an id it does not hold (read by `__getitem__`)."""

    __slots__ = ()

    def __missing__(self, key):
        return None


def _claimed(hand) -> dict:
    """claimed_of(hand) (log/writer.py) with the engine's values as they are: the encoder writes a
    record as a dict and a tuple as a list, which is what text.plain would have made of them. (A
record, a dict subclass, is encoded through its Python `items`: the top-level ones are made
plain dicts first, a C copy; `dict()` of a LazyMap fills it in as its `items` would.)"""
    result = hand.score   # (what result() adds its scoring steps from; its next dealer, a rule run, is not claimed)
    if result is None:
        return {"thrown_in": True}
    claimed = {"thrown_in": False}
    facts = hand.facts
    for key in CLAIMED_FROM_FACTS:
        value = facts[key]
        claimed[key] = dict(value) if type(value) is Rec else value
    claimed["trump"] = getattr(hand.state, "trump", None)
    for key in CLAIMED_FROM_SCORE:
        value = result[key]
        claimed[key] = dict(value) if type(value) is Rec else value
    return claimed
