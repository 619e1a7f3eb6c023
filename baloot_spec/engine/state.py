"""The state of one hand as rule expressions see it.

Generic fields only: seats, hands, the trick being played, finished tricks, the phase, who is
acting. Everything Baloot-specific (the contract, the standing bid, the doubling level, the
projects...) is a state variable declared in rules/*.yaml and set by the rules' effects.
"""

from __future__ import annotations

from operator import attrgetter

from ..expr.builtins import Rec


_CARD_OF = attrgetter("card")


class Play:
    """One card put into a trick, with the announcements made with it."""

    def __init__(self, seat: str, card, **annotations):
        self.seat = seat
        self.card = card
        self.__dict__.update(annotations)

    def __repr__(self) -> str:
        return f"{self.seat}:{self.card}"


class Trick:
    """A finished trick: who led, the plays in order, who won it."""

    __slots__ = ("leader", "plays", "winner", "cards")

    def __init__(self, leader: str, plays: list, winner: str):
        self.leader = leader
        self.plays = plays
        self.winner = winner
        self.cards = list(map(_CARD_OF, plays))

    def __repr__(self) -> str:
        return f"Trick({self.leader}: {' '.join(str(p.card) for p in self.plays)} -> {self.winner})"


class LegalEvent(dict):
    """An event that `Hand.legal()` lists: shared between calls (made once per variant), so it
    is read-only. Copy it to act on it: `dict(event, seat=...)`. Equal to, and serialised as,
    a plain dict."""

    __slots__ = ()

    def _read_only(self, *args, **kwargs):
        raise TypeError("a legal action from Hand.legal() is shared and read-only; copy it: dict(action, seat=...)")

    __setitem__ = __delitem__ = __ior__ = _read_only
    update = pop = popitem = clear = setdefault = _read_only

    def __reduce__(self):   # pickled and copied as a plain dict (pickle would set items one by one)
        return (dict, (dict(self),))


class Action:
    """A candidate or actual action, as rule expressions see it (`call`, `card`, `ekka`...).

    The engine gives an action every field of its phase's actions, none where its own type has
    no such field (a rule reads `call` of a pickup as none): reading a field is then a plain
    attribute read, which Python specialises (a class with `__getattr__` makes every attribute
    read four times slower). A candidate the engine builds also carries `_event` (the event it
    stands for, without the seat) and `_plays` (its Play per seat); names with `_` are not fields."""

    _event = None
    _plays = None

    def __init__(self, type_: str, **fields):
        self.type = type_
        self.__dict__.update(fields)

    def key(self) -> tuple:
        return (self.type,) + tuple(sorted((k, _hashable(v)) for k, v in self.__dict__.items()
                                           if k != "type" and not k.startswith("_")))


def _hashable(value):
    if isinstance(value, list):
        return tuple(value)
    return value


class State:
    """Attributes are what rule expressions read as names (`hand`, `trick`, `bid`, ...)."""

    def __init__(self, rules, dealer: str, match_scores: dict):
        self.dealer = dealer
        self.actor = None
        self.phase = None
        self.public = None
        self.exposed = None     # a card exposed by accident during the deal, if the deal says so
        self.hands = {seat: [] for seat in rules.table.seats}
        self.initial = {seat: [] for seat in rules.table.seats}
        self.dealt = {seat: [] for seat in rules.table.seats}
        self.trick = []
        self.tricks = []
        self.played = set()
        self.match_scores = Rec(match_scores)
        self.all_cards = list(rules.deck.cards)
        self.all_seats = list(rules.table.seats)
        self.suits = list(rules.deck.suits)
        self.leader = None
        self._memo = {}   # values of zero-argument rule functions at this position (engine clears it)
        self.__dict__.update(rules.fresh_state_vars())

    @property
    def hand(self):
        return self.hands.get(self.actor, []) if self.actor else []
