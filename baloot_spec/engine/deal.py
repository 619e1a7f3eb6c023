"""Deals as data: a recorded deck order, or explicit hands and the public card.

The pattern (packets from the dealer's right, the public card, the completion) comes from
`deal` in rules/game.yaml. A deal is checked when it is read: known cards, none twice, the
right counts; a hands-form deal is checked again at the completion (the taker must hold the
public card among the cards it receives).
"""

from __future__ import annotations

from ..cards import CardError
from ..errors import BalootError


class DealError(BalootError):
    """A deal that cannot be dealt: unknown or repeated cards, wrong counts, inconsistent hands."""

    def __init__(self, message: str, path: str = "deal"):
        self.path = path
        super().__init__(f"{path}: {message}")


class Deal:
    """Where every card goes: the cards before the bidding, the public card, the completion."""

    def __init__(self, rules, dealer: str, spec: dict):
        self.rules = rules
        self.dealer = dealer
        table, deck = rules.table, rules.deck
        self.order = [table.after(dealer, i) for i in range(1, len(table.seats) + 1)]
        packets = rules.deal["packets"]
        self.first = sum(packets)
        self.completion = rules.deal["completion"]
        if not isinstance(spec, dict):
            raise DealError("a deal is an object with 'deck' or 'hands' and 'public'")
        self.exposed = None
        if spec.get("exposed") is not None:  # a card turned face up by accident while dealing
            self.exposed = self._parse(spec["exposed"], deck, "deal.exposed")
        if "deck" in spec:
            self._from_deck(spec["deck"], packets, deck)
        elif "hands" in spec:
            self._from_hands(spec["hands"], spec.get("public"), deck)
        else:
            raise DealError("a deal needs 'deck' (the card order) or 'hands' and 'public'")
        self.check_exposed()

    def _parse(self, text, deck, path):
        card = deck.exact.get(text) if isinstance(text, str) else None
        if card is not None:
            return card
        try:
            return deck.parse(text)
        except CardError as exc:
            raise DealError(str(exc), path) from None

    def _from_deck(self, cards, packets, deck):
        n_seats = len(self.order)
        total = n_seats * (self.first + self.completion)
        if not isinstance(cards, list) or len(cards) != total:
            raise DealError(f"the deck must list all {total} cards", "deal.deck")
        parsed = [self._parse(c, deck, f"deal.deck[{i}]") for i, c in enumerate(cards)]
        _no_repeats(parsed, "deal.deck")
        it = iter(parsed)
        self.initial = {seat: [] for seat in self.order}
        for size in packets:
            for seat in self.order:
                self.initial[seat].extend(next(it) for _ in range(size))
        self.public = next(it) if self.rules.deal["public"] else None
        self.stock = list(it)
        self.kind = "deck"

    def _from_hands(self, hands, public, deck):
        if not isinstance(hands, dict) or set(hands) != set(self.order):
            raise DealError(f"hands must give every seat ({', '.join(sorted(self.order))})", "deal.hands")
        self.hands = {}
        for seat in self.order:
            cards = hands[seat]
            if not isinstance(cards, list) or len(cards) not in (self.first, self.first + self.completion):
                raise DealError(f"{seat} must hold {self.first} or {self.first + self.completion} cards", f"deal.hands.{seat}")
            self.hands[seat] = [self._parse(c, deck, f"deal.hands.{seat}[{i}]") for i, c in enumerate(cards)]
        if public is None:
            raise DealError("a hands deal needs the public card", "deal.public")
        self.public = self._parse(public, deck, "deal.public")
        everything = [c for seat in self.order for c in self.hands[seat]]
        _no_repeats(everything + ([self.public] if self.public not in everything else []), "deal.hands")
        if self.public in [c for seat in self.order for c in self.hands[seat][:self.first]]:
            raise DealError(f"the public card {self.public} is among a seat's first {self.first} cards", "deal.public")
        self.initial = {seat: self.hands[seat][:self.first] for seat in self.order}
        self.kind = "hands"

    def check_exposed(self) -> None:
        if self.exposed is not None and not any(self.exposed in cards for cards in self.initial.values()):
            raise DealError(f"the exposed card {self.exposed} is not among the cards dealt before the bidding", "deal.exposed")

    def complete(self, taker: str) -> dict:
        """The cards each seat receives after the bidding (the taker's include the public card)."""
        received = {}
        if self.kind == "deck":
            stock = iter(self.stock)
            for seat in self.order:
                count = self.completion - (1 if seat == taker else 0)
                received[seat] = ([self.public] if seat == taker else []) + [next(stock) for _ in range(count)]
            return received
        for seat in self.order:
            rest = self.hands[seat][self.first:]
            if len(rest) != self.completion:
                raise DealError(f"the hand goes on past the bidding but {seat} was given only {self.first} cards", f"deal.hands.{seat}")
            if seat == taker and self.public not in rest:
                raise DealError(f"{taker} takes the public card {self.public}, but it is not among {taker}'s last {self.completion} cards", f"deal.hands.{taker}")
            if seat != taker and self.public in rest:
                raise DealError(f"{seat} holds the public card {self.public}, but {taker} takes it", f"deal.hands.{seat}")
            received[seat] = rest
        return received


def _no_repeats(cards, path):
    seen = set()
    for card in cards:
        if card in seen:
            raise DealError(f"{card} appears twice", path)
        seen.add(card)
