"""Cards and seats as small value types that round-trip through text.

Python knows only that a card has a rank and a suit and prints as rank + suit ("TS"); which ranks,
suits and aliases exist ("10" for "T") comes from `deck` in rules/game.yaml. Cards are interned:
one object per card, so identity is equality and `in` on lists is cheap.
"""

from __future__ import annotations

from sys import intern

# Names from the rules (ranks, suits, seats, teams) are interned: the generated code compares them
# with its own literals, which Python interns, and two identical strings compare at once where two
# equal ones compare their characters.


class Card:
    """One playing card. Use `Deck.parse("TS")` or `Card.of("T", "S")`."""

    __slots__ = ("rank", "suit", "text")
    _interned: dict[tuple[str, str], "Card"] = {}

    def __new__(cls, rank: str, suit: str):
        key = (rank, suit)
        card = cls._interned.get(key)
        if card is None:
            card = object.__new__(cls)
            object.__setattr__(card, "rank", rank)
            object.__setattr__(card, "suit", suit)
            object.__setattr__(card, "text", intern(rank + suit))
            cls._interned[key] = card
        return card

    of = classmethod(lambda cls, rank, suit: cls(rank, suit))

    def __setattr__(self, name, value):
        raise AttributeError("Card is immutable")

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def __reduce__(self):
        return (Card, (self.rank, self.suit))


class CardError(ValueError):
    """Text that is not a card of this deck."""


class Deck:
    """The ranks, suits and rank aliases of the deck the rules declare."""

    def __init__(self, ranks: list[str], suits: list[str], aliases: dict[str, str] | None = None):
        self.ranks = [intern(str(r)) for r in ranks]
        self.suits = [intern(str(s)) for s in suits]
        self.aliases = {str(k): intern(str(v)) for k, v in (aliases or {}).items()}
        self.cards = [Card(r, s) for s in self.suits for r in self.ranks]
        self.exact = {c.text: c for c in self.cards}   # canonical text -> card (the fast path)
        self._by_text = dict(self.exact)
        for alias, rank in self.aliases.items():
            for s in self.suits:
                self._by_text[alias + s] = Card(rank, s)

    def parse(self, text) -> Card:
        """The card written as `text` ("TS", "10S", "ts"); CardError if there is none."""
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise CardError(f"a card is written as text like 'TS', not {text!r}")
        card = self._by_text.get(text.strip().upper())
        if card is None:
            raise CardError(f"unknown card {text!r} (ranks {' '.join(self.ranks)}, suits {' '.join(self.suits)})")
        return card

    def parse_suit(self, text) -> str:
        if not isinstance(text, str) or text.strip().upper() not in self.suits:
            raise CardError(f"unknown suit {text!r} (one of {' '.join(self.suits)})")
        return text.strip().upper()


class Table:
    """Seats in turn order and the teams, as the rules declare them."""

    def __init__(self, seats: list[str], teams: dict[str, list[str]]):
        self.seats = [intern(str(s)) for s in seats]
        self.teams = {intern(str(t)): [intern(str(s)) for s in members] for t, members in teams.items()}
        self.team_of = {s: t for t, members in self.teams.items() for s in members}
        self._index = {s: i for i, s in enumerate(self.seats)}

    def is_seat(self, seat) -> bool:
        return isinstance(seat, str) and seat in self._index

    def after(self, seat: str, steps: int = 1) -> str:
        """The seat `steps` turns after `seat` in turn order."""
        return self.seats[(self._index[seat] + steps) % len(self.seats)]

    def order_after(self, seat: str) -> tuple:
        """Every seat in turn order, starting with the one after `seat` (the dealing order)."""
        n = len(self.seats)
        start = self._index[seat]
        return tuple(self.seats[(start + i) % n] for i in range(1, n + 1))

    def distance(self, start: str, end: str) -> int:
        """How many turns after `start` comes `end` (0 for the same seat)."""
        return (self._index[end] - self._index[start]) % len(self.seats)
