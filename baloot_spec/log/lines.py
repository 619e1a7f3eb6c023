"""Log documents written straight as their JSON Lines text, for `baloot simulate`: byte for byte
what `json.dumps(document, separators=(",", ":"))` gives for the document log/writer.py builds
(`log_document` of `hand_record`s), without building it.

Why: building the documents and encoding them was about a third of a simulated hand's cost
beyond the replay (tools/BENCHMARKS.md, step 78). Most of a hand's events are the engine's shared
read-only events (LegalEvent, one per candidate and seat, made once per variant), so each one's
text is made once per writer; the claimed results are written as the engine holds them (records
and tuples encode as the dicts and lists `text.plain` makes of them).

What a line costs is mostly calls of the encoder (about 5,000 machine instructions each before
any work: its arguments parsed, its chunks gathered in a list and joined) and the encoding of
dict keys; so the keys the writer always writes are text made once, and the dicts of a line
(the match scores, the claimed records) are encoded together in one call (tools/BENCHMARKS.md,
step 119)."""

from __future__ import annotations

import json
from itertools import repeat
from operator import itemgetter

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
_strings = json.encoder.encode_basestring_ascii   # (a str's text, as the encoder writes it)
# (a record's entries as a plain dict, in C: the encoder reads a dict subclass through its Python
# `items`, and dict(record) looks up `keys` through Rec's Python __getattribute__)
_copy = dict.copy
_THROWN_IN = _encode({"thrown_in": True})
_JSON, _UNSET = repeat("_json"), repeat("")   # (getattr's name and default, an event at a time)


class LineWriter:
    """Writes documents of one variant as JSON text. A shared event's text is kept on the event
    (LegalEvent `_json`, engine/state.py), made by the first writer that meets it."""

    def __init__(self, rules, app: str | None = None, described: dict | None = None):
        if described is None:
            described = rules.variant.describe()
        variant = {"preset": described["preset"], "set": dict(described["set"]),
                   "overlays": list(described["overlays"]), "hash": described["hash"]}
        self._head = '{"format":' + _encode(FORMAT) + ',"variant":' + _encode(variant) + ',"match":{"start":'
        self._app = "" if not app else ',"app":' + _encode(app)
        self._teams = tuple(rules.table.teams)
        # the claimed entries' keys as text, each with the separator before it
        self._claimed_keys = tuple("," + _encode(key) + ":" for key in CLAIMED_FROM_FACTS + ("trump",) + CLAIMED_FROM_SCORE)
        self._from_facts, self._from_score = _values_of(CLAIMED_FROM_FACTS), _values_of(CLAIMED_FROM_SCORE)
        # the variant's cards whose text the encoder writes as it stands, quoted (a simulated deal's deck)
        self._plain_cards = frozenset(card.text for card in rules.deck.cards
                                      if type(card.text) is str and _strings(card.text) == '"' + card.text + '"')

    def hand_text(self, hand) -> str:
        """The text of `hand_record(hand)`."""
        parts, slots, dicts = [], [], []
        self._hand_parts(hand, parts, slots, dicts)
        _fill(parts, slots, dicts)
        return "".join(parts)

    def document_text(self, hand_texts: list, first_dealer: str, start: dict | None = None,
                      claimed_match: dict | None = None) -> str:
        """The text of `log_document(rules, hands, first_dealer, start, claimed_match, app)`, the
        hands given as their texts (hand_text)."""
        text = (self._head + _encode(start or {t: 0 for t in self._teams}) + ',"first_dealer":' + _encode(first_dealer)
                + self._app + '},"hands":[' + ",".join(hand_texts) + "]")
        if claimed_match is not None:
            text += ',"claimed":' + _encode(claimed_match)
        return text + "}"

    def hand_document_text(self, hand, first_dealer: str, start: dict | None = None) -> str:
        """`document_text([hand_text(hand)], first_dealer, start)` in one join, the start scores'
        dict encoded with the hand's."""
        parts, slots, dicts = [self._head], [], []
        _put(start or {t: 0 for t in self._teams}, parts, slots, dicts)
        parts += (',"first_dealer":', _encode(first_dealer), self._app, '},"hands":[')
        self._hand_parts(hand, parts, slots, dicts)
        parts.append("]}")
        _fill(parts, slots, dicts)
        return "".join(parts)

    def _hand_parts(self, hand, parts: list, slots: list, dicts: list) -> None:
        """Appends the text of `hand_record(hand)` to `parts`, a dict's place left for `_fill`."""
        S = hand.state
        events = hand.events
        # (each shared event's kept text, "" for one not made yet or not shared: C-level, no
        # Python frame an event; an attribute read is half a look-up by id)
        texts = [*map(getattr, events, _JSON, _UNSET)]
        missing = texts.count("")   # (an event met for the first time, or not a shared one: a few a hand)
        if missing:
            index = -1
            for _ in range(missing):
                index = texts.index("", index + 1)
                texts[index] = _event_text(events[index])
        parts += ('{"dealer":', _encode(S.dealer), ',"match_scores":')
        _put(S.match_scores, parts, slots, dicts)
        parts += (',"deal":', self._deal_text(hand.deal_spec), ',"events":[', ",".join(texts), "]")
        if hand.is_over():
            parts.append(',"claimed":')
            self._claimed_parts(hand, parts, slots, dicts)
        parts.append("}")

    def _deal_text(self, deal) -> str:
        """The text of a deal; a deck of the variant's cards (what simulate deals) in one join,
        each quoted (encoding 32 strings was about a hundredth of a hand, looking each up a
        twelfth of the writer's time)."""
        if type(deal) is dict and len(deal) == 1:
            deck = deal.get("deck")
            if type(deck) is list and deck:
                try:
                    plain = self._plain_cards.issuperset(deck)
                except TypeError:   # (an unhashable item: encoded as it stands)
                    plain = False
                if plain:
                    return '{"deck":["' + '","'.join(deck) + '"]}'
        return _encode(deal)

    def _claimed_parts(self, hand, parts: list, slots: list, dicts: list) -> None:
        """Appends the text of claimed_of(hand) (log/writer.py), from the engine's values as
        they are: the score's entries read where the engine keeps them (no score record made),
        each value written as the encoder would inside the dict, a dict's place left for
        `_fill`. A record's subclass (a LazyMap) is encoded as it stands, filled in as its
        `items` would."""
        entries = hand.score_entries()
        if entries is None:
            parts.append(_THROWN_IN)
            return
        append = parts.append
        append('{"thrown_in":false')
        for key, value in zip(self._claimed_keys, (*self._from_facts(hand.facts), getattr(hand.state, "trump", None),
                                                   *self._from_score(entries))):
            append(key)
            kind = type(value)
            if kind is str:
                append(_strings(value))
            elif value is None:
                append("null")
            elif kind is bool:
                append("true" if value else "false")
            elif kind is Rec or kind is dict:   # (_put written out)
                parts += ("{", None, "}")
                slots.append(len(parts) - 2)
                dicts.append(_copy(value) if kind is Rec else value)
            else:
                append(_encode(value))
        append("}")


def _event_text(event) -> str:
    text = _encode(event)
    if type(event) is LegalEvent:   # (shared and read-only: its text is made once)
        event._json = text
    return text


def _put(value, parts: list, slots: list, dicts: list) -> None:
    """Appends the text of `value`: a plain dict or a record (copied) as a place `_fill` fills in."""
    kind = type(value)
    if kind is Rec or kind is dict:
        parts += ("{", None, "}")
        slots.append(len(parts) - 2)
        dicts.append(_copy(value) if kind is Rec else value)
    else:
        parts.append(_encode(value))


def _fill(parts: list, slots: list, dicts: list) -> None:
    """Each dict's text, without its braces, at its place in `parts`: the dicts encoded in one
    call as a list, `[{...},{...}]`, cut at each "},{". Two dicts' texts meet in exactly one
    such cut (a dict's text ends in "}" and starts with "{"; the cut overlaps no other); if a
    dict's own text holds one, there are more pieces than dicts: each is then encoded alone."""
    if not dicts:
        return
    pieces = _encode(dicts)[2:-2].split("},{")
    if len(pieces) != len(dicts):
        pieces = [_encode(value)[1:-1] for value in dicts]
    for slot, piece in zip(slots, pieces):
        parts[slot] = piece


def _values_of(keys: tuple):
    """A mapping's values at `keys`, as a tuple (itemgetter, in C; of one key, its value alone)."""
    if len(keys) == 1:
        key = keys[0]
        return lambda mapping: (mapping[key],)
    return itemgetter(*keys)
