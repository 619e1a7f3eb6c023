"""Deals as data: a recorded deck order, or explicit hands and the public card.

The pattern (packets from the dealer's right, the public card, the completion) comes from
`deal` in rules/game.yaml. A deal is checked when it is read: known cards, none twice, the
right counts; a hands-form deal is checked again at the completion (the taker must hold the
public card among the cards it receives).

A deal may record a cut (`deal.cut` in rules/game.yaml): who cut and which option. The rules
name the function that gives the one seat that may cut, the function that says whether the
variant offers an option, and each option's moves (cards taken from the top or bottom of the
deck to the public card or to a seat's packet before the dealing). A refused cut is a
DealError that names the refusing rule and its source.
"""

from __future__ import annotations

from operator import itemgetter as _each

from ..cards import CardError
from ..errors import BalootError
from .state import State

CUT_KEYS = ("by", "option", "to", "cards")


class DealError(BalootError):
    """A deal that cannot be dealt: unknown or repeated cards, wrong counts, inconsistent hands.
    `rule` and `source` are set when a rule refuses what the deal records (a cut)."""

    def __init__(self, message: str, path: str = "deal", rule: str | None = None, source: str | None = None):
        self.path = path
        self.rule = rule
        self.source = source
        super().__init__(f"{path}: {message}" + (f" (refused by {rule})" if rule else ""))


class Deal:
    """Where every card goes: the cards before the bidding, the public card, the completion.

    Slots, no instance dict: a hand makes one, and frees it when the next hand is made (that
    dict was one object more to make and free per hand; tools/BENCHMARKS.md, step 101)."""

    __slots__ = ("rules", "dealer", "_plan", "first", "completion", "exposed", "cut", "kind", "initial",
                 "public", "_deck", "hands")

    def __init__(self, rules, dealer: str, spec: dict):
        self.rules = rules
        self.dealer = dealer
        deck = rules.deck
        try:   # (_plan_of read without its call)
            plan = rules._deal_plans[dealer]
        except (AttributeError, KeyError):
            plan = _plan_of(rules, dealer)
        self._plan = plan
        packets = plan.packets
        self.first = plan.first
        self.completion = plan.completion
        if not isinstance(spec, dict):
            raise DealError("a deal is an object with 'deck' or 'hands' and 'public'")
        self.exposed = None
        if spec.get("exposed") is not None:  # a card turned face up by accident while dealing
            self.exposed = self._parse(spec["exposed"], deck, "deal.exposed")
        self.cut = None     # the cut record as read: by, option, to, cards
        moves = self._read_cut(spec["cut"], packets, deck) if spec.get("cut") is not None else ()   # (no list per hand)
        if "deck" in spec:
            cards = spec["deck"]
            split = plan.split
            # _from_deck's common case written out (a frame and its five arguments fewer a hand):
            # no cut, a plain list of the deck's own texts, no card twice; anything else, or a
            # plan not split yet, is _from_deck's (the same checks, the same errors). The texts
            # are read by one itemgetter of them all (a dict lookup each, in C: ~5,000 machine
            # instructions a deck fewer than a bound `get` called 32 times by map)
            if split is None or moves or type(cards) is not list or len(cards) != plan.read_at_once:
                self._from_deck(cards, packets, deck, moves, plan)
            else:
                try:
                    parsed = [*_each(*cards)(deck.exact)]
                except (KeyError, TypeError):   # a text the deck does not spell so, an unhashable entry
                    parsed = None
                if parsed is None or len(set(parsed)) != len(parsed):
                    self._from_deck(cards, packets, deck, moves, plan)
                else:
                    self.kind = "deck"
                    self.initial, self.public = split(parsed)
                    self._deck = parsed   # (the stock its tail: the property `stock`)
        elif "hands" in spec:
            self._from_hands(spec["hands"], spec.get("public"), deck)
            self._check_cut_in_hands(moves)
        else:
            raise DealError("a deal needs 'deck' (the card order) or 'hands' and 'public'")
        if self.exposed is not None:
            self.check_exposed()

    @property
    def stock(self) -> list:
        """The cards left after the dealing before the bidding, in order (a new list: the deal keeps
        the deck they end, read where they start, _Plan.stock_at; no list a hand for them)."""
        return self._deck[self._plan.stock_at:]

    @property
    def order(self) -> list:
        """The seats in dealing order (a new list: the plan's tuple is shared by every deal)."""
        return [*self._plan.order]

    def _parse(self, text, deck, path):
        card = deck.exact.get(text) if isinstance(text, str) else None
        if card is not None:
            return card
        try:
            return deck.parse(text)
        except CardError as exc:
            raise DealError(str(exc), path) from None

    # ---- the cut -------------------------------------------------------------------------------
    def _read_cut(self, record, packets, deck) -> list:
        """Check a cut record against the rules; return its moves as (count, end, target, seat,
        packet) with target "public" or "seat"."""
        rules = self.rules
        table = rules.table
        cut = rules.deal.get("cut")
        if cut is None:
            raise DealError("these rules declare no cut (deal.cut in the rules)", "deal.cut")
        if not isinstance(record, dict):
            raise DealError("a cut is an object {\"by\": seat, \"option\": name} (optional \"to\", \"cards\")", "deal.cut")
        for key in record:
            if key not in CUT_KEYS:
                raise DealError(f"unknown key {key!r} (a cut has {', '.join(CUT_KEYS)})", f"deal.cut.{key}")
        options = {o["name"]: o for o in cut["options"]}
        by, name = record.get("by"), record.get("option")
        if not table.is_seat(by):
            raise DealError(f"'by' must name the seat that cut ({', '.join(table.seats)}), not {by!r}", "deal.cut.by")
        if not isinstance(name, str) or name not in options:
            raise DealError(f"unknown cutting option {name!r} (options: {', '.join(options)})", "deal.cut.option")
        state = State(rules, self.dealer, {team: 0 for team in table.teams})
        cutter = self._function(cut["cutter"])(state)
        refusals = cut["refusals"]
        if by != cutter:
            raise DealError(f"{by} may not cut; the cutter is {cutter}", "deal.cut.by",
                            refusals["cutter"]["id"], refusals["cutter"]["source"])
        allowed = self._function(cut["allowed"])
        if not allowed(state, name):
            offered = [o for o in options if allowed(state, o)]
            raise DealError(f"the option {name!r} is not offered under these rules (offered: {', '.join(offered)})",
                            "deal.cut.option", refusals["option"]["id"], refusals["option"]["source"])
        moves, filled, receivers = [], set(), []
        for i, move in enumerate(options[name]["moves"]):
            where = f"deal.cut.options[{name}].moves[{i}] in the rules"
            count, to, packet = move["count"], move["to"], move.get("packet", 0)
            if to == "public":
                if count != self.rules.deal["public"]:
                    raise DealError(f"{count} card(s) to the public card, but the deal turns {self.rules.deal['public']}", where)
                target, seat = "public", None
            else:
                seat = cutter if to == "cutter" else self._function(to)(state, cutter)
                if packet >= len(packets) or packets[packet] != count:
                    raise DealError(f"{count} card(s) to packet {packet}, whose size is "
                                    f"{packets[packet] if packet < len(packets) else 'none'}", where)
                target = "seat"
                if seat != cutter:
                    receivers.append(seat)
            if (target, seat, packet) in filled:
                raise DealError("two moves fill the same place", where)
            filled.add((target, seat, packet))
            moves.append((count, move["from"], target, seat, packet))
        to = record.get("to")
        if receivers:
            if not table.is_seat(to):
                raise DealError(f"the option {name!r} gives cards to another seat: 'to' must name it", "deal.cut.to")
            if to not in receivers:
                raise DealError(f"the option {name!r} gives the cards to {receivers[0]}, not to {to}", "deal.cut.to",
                                refusals["receiver"]["id"], refusals["receiver"]["source"])
        elif to is not None:
            raise DealError(f"the option {name!r} gives no cards to another seat: no 'to'", "deal.cut.to")
        cards = record.get("cards")
        if cards is not None:
            moved = sum(m[0] for m in moves)
            if not isinstance(cards, list) or len(cards) != moved:
                raise DealError(f"the option {name!r} moves {moved} card(s): 'cards' must list {moved}", "deal.cut.cards")
            cards = [self._parse(c, deck, f"deal.cut.cards[{i}]") for i, c in enumerate(cards)]
            _no_repeats(cards, "deal.cut.cards")
        self.cut = {"by": by, "option": name, "to": to, "cards": cards}
        return moves

    def _function(self, name):
        fn = self.rules.functions.get(name)
        if fn is None:
            raise DealError(f"the rules name a function {name!r} that they do not define", "deal.cut in the rules")
        return fn

    def _recorded_chunks(self, moves):
        """The record's `cards`, cut into the moves' chunks (None when the record lists none)."""
        cards = self.cut["cards"]
        if cards is None:
            return None
        chunks, start = [], 0
        for count, *_ in moves:
            chunks.append(cards[start:start + count])
            start += count
        return chunks

    def _check_cut_in_hands(self, moves):
        """A hands-form deal holds no deck order: only the record's `cards` can be checked."""
        chunks = self._recorded_chunks(moves) if moves else None
        for chunk, (count, _end, target, seat, _packet) in zip(chunks or [], moves):
            if target == "public":
                if chunk != [self.public]:
                    raise DealError(f"the cut made {chunk[0]} the public card, but the deal's public card is {self.public}",
                                    "deal.cut.cards")
            else:
                for card in chunk:
                    if card not in self.hands[seat][:self.first]:
                        raise DealError(f"the cut gave {card} to {seat}, but it is not among {seat}'s first {self.first} cards",
                                        "deal.cut.cards")

    # ---- the two forms --------------------------------------------------------------------------
    def _from_deck(self, cards, packets, deck, moves=(), plan=None):
        total = self._plan.total
        if not isinstance(cards, list) or len(cards) != total:
            raise DealError(f"the deck must list all {total} cards", "deal.deck")
        exact = deck.exact
        try:
            parsed = [*map(exact.get, cards)]   # the common case: canonical card texts
            distinct = set(parsed)
        except TypeError:   # an unhashable entry
            distinct = {None}
        if None in distinct:   # (a set: `None in` a list of cards compares with every card)
            parsed = [self._parse(c, deck, f"deal.deck[{i}]") for i, c in enumerate(cards)]
            distinct = set(parsed)
        if len(distinct) != len(parsed):
            _no_repeats(parsed, "deal.deck")
        self.kind = "deck"
        if not moves and plan is not None:   # the common case: no cut, each seat's cards at fixed places
            split = plan.split
            if split is None:
                split = plan.split = _splitter(len(plan.order), tuple(plan.packets), plan.order, plan.public)
            self.initial, self.public = split(parsed)
            self._deck = parsed   # (the stock its tail: the property `stock`)
            return
        rest, placed, public, taken = list(parsed), {}, None, []
        for count, end, target, seat, packet in moves:    # the cut's moves, before the dealing
            chunk = rest[:count] if end == "top" else rest[len(rest) - count:]
            rest = rest[count:] if end == "top" else rest[:len(rest) - count]
            taken.append(chunk)
            if target == "public":
                public = chunk[0]
            else:
                placed[(seat, packet)] = chunk
        recorded = self._recorded_chunks(moves) if moves else None
        if recorded is not None and [sorted(map(str, c)) for c in recorded] != [sorted(map(str, c)) for c in taken]:
            raise DealError(f"the cut takes {' '.join(str(c) for chunk in taken for c in chunk)} from this deck, "
                            f"not {' '.join(str(c) for chunk in recorded for c in chunk)}", "deal.cut.cards")
        if not placed:   # the common case: each seat's packets are fixed slices of the deck
            positions, at = _dealt_positions(len(self._plan.order), tuple(packets))
            self.initial = {seat: [rest[p] for p in places] for seat, places in zip(self._plan.order, positions)}
        else:
            at = 0   # the next undealt card of `rest`
            self.initial = {seat: [] for seat in self._plan.order}
            for index, size in enumerate(packets):
                for seat in self._plan.order:
                    if (seat, index) in placed:
                        self.initial[seat].extend(placed[(seat, index)])
                    else:
                        self.initial[seat].extend(rest[at:at + size])
                        at += size
        if self.rules.deal["public"] and public is None:
            public, at = rest[at], at + 1
        self.public = public if self.rules.deal["public"] else None
        self._deck = [None] * self._plan.stock_at + rest[at:]   # (the stock where a deck's is: `stock`)

    def _from_hands(self, hands, public, deck):
        if not isinstance(hands, dict) or set(hands) != set(self._plan.order):
            raise DealError(f"hands must give every seat ({', '.join(sorted(self._plan.order))})", "deal.hands")
        self.hands = {}
        for seat in self._plan.order:
            cards = hands[seat]
            if not isinstance(cards, list) or len(cards) not in (self.first, self.first + self.completion):
                raise DealError(f"{seat} must hold {self.first} or {self.first + self.completion} cards", f"deal.hands.{seat}")
            self.hands[seat] = [self._parse(c, deck, f"deal.hands.{seat}[{i}]") for i, c in enumerate(cards)]
        if public is None:
            raise DealError("a hands deal needs the public card", "deal.public")
        self.public = self._parse(public, deck, "deal.public")
        everything = [c for seat in self._plan.order for c in self.hands[seat]]
        _no_repeats(everything + ([self.public] if self.public not in everything else []), "deal.hands")
        if self.public in [c for seat in self._plan.order for c in self.hands[seat][:self.first]]:
            raise DealError(f"the public card {self.public} is among a seat's first {self.first} cards", "deal.public")
        self.initial = {seat: self.hands[seat][:self.first] for seat in self._plan.order}
        self.kind = "hands"

    def check_exposed(self) -> None:
        if self.exposed is not None and not any(self.exposed in cards for cards in self.initial.values()):
            raise DealError(f"the exposed card {self.exposed} is not among the cards dealt before the bidding", "deal.exposed")

    def deal_rest(self, taker: str, hands: dict, dealt: dict | None = None) -> dict:
        """What a deal_rest phase does: each seat's hand in `hands` made a new list of its cards and
        those it receives (complete), and `dealt[seat]` a copy of it, in dealing order; `dealt`
        returned, or with none a new dict of them in the seats' order (the table's). For a deck,
        one function generated per taker (_filler): no dict of what each receives, no loop."""
        if self.kind == "deck":
            fill = self._per_taker(self._plan.fills, _filler, taker)
            if fill is not None:
                return fill(self._deck, self.public, hands, dealt)
        if dealt is None:
            dealt = dict.fromkeys(self._plan.seats)
        for seat, cards in self.complete(taker).items():
            hands[seat] = hand = hands[seat] + cards
            dealt[seat] = [*hand]
        return dealt

    def _per_taker(self, made: dict, maker, taker: str):
        """The function `maker` generates for `taker` (a seat of the plan's order), made once per
        variant, dealer and taker and kept in `made`; None for a taker that is no seat."""
        function = made.get(taker)
        if function is None and taker in self._plan.order:
            function = made[taker] = maker(self._plan, taker)
        return function

    def complete(self, taker: str) -> dict:
        """The cards each seat receives after the bidding (the taker's include the public card)."""
        received = {}
        if self.kind == "deck":
            complete = self._per_taker(self._plan.completes, _completer, taker)
            if complete is not None:
                return complete(self._deck, self.public)
            stock, at, completion = self.stock, 0, self.completion
            for seat in self._plan.order:   # (slices of the stock, in dealing order)
                if seat == taker:
                    received[seat] = [self.public, *stock[at:at + completion - 1]]
                    at += completion - 1
                else:
                    received[seat] = stock[at:at + completion]
                    at += completion
            return received
        for seat in self._plan.order:
            rest = self.hands[seat][self.first:]
            if len(rest) != self.completion:
                raise DealError(f"the hand goes on past the bidding but {seat} was given only {self.first} cards", f"deal.hands.{seat}")
            if seat == taker and self.public not in rest:
                raise DealError(f"{taker} takes the public card {self.public}, but it is not among {taker}'s last {self.completion} cards", f"deal.hands.{taker}")
            if seat != taker and self.public in rest:
                raise DealError(f"{seat} holds the public card {self.public}, but {taker} takes it", f"deal.hands.{seat}")
            received[seat] = rest
        return received


class _Plan:
    """What dealing from one dealer under one compiled variant always is: the dealing order, the
    packets and counts, and `split(cards)`, which deals a deck (a list of cards) without a cut:
    (each seat's cards before the bidding, in dealing order; the public card); the stock is the
    deck from `stock_at` on.
    Made once per variant and dealer (the per-hand work was ~2 us of a hand's setup); `split`
    only once a deck of the right length was read: a rules file's packets are bounded by nothing
    before (BALOOT_RULES_DIR), and packets of 10**8 must fail as a wrong deck, not fill memory."""

    __slots__ = ("order", "seats", "packets", "first", "completion", "total", "stock_at", "public", "split",
                 "completes", "fills", "read_at_once")

    def __init__(self, rules, dealer: str):
        self.order = rules.table.order_after(dealer)
        self.seats = tuple(rules.table.seats)   # (the table's order: a state's dicts by seat)
        self.packets = packets = rules.deal["packets"]
        self.first = sum(packets)
        self.completion = rules.deal["completion"]
        self.total = len(self.order) * (self.first + self.completion)   # (the cards of a deck)
        self.public = bool(rules.deal["public"])
        self.stock_at = len(self.order) * self.first + self.public   # (after the cards dealt and the public card)
        self.split = None   # (made by Deal._from_deck, see above)
        # (the deck's length Deal.__init__ reads at once: an itemgetter of one text gives no tuple)
        self.read_at_once = self.total if self.total > 1 else -1
        self.completes = {}   # taker -> complete(deck, public): Deal.complete of a deck, generated
        self.fills = {}   # taker -> fill(deck, public, hands, dealt): Deal.deal_rest of a deck, generated


def _plan_of(rules, dealer: str) -> _Plan:
    plans = getattr(rules, "_deal_plans", None)
    if plans is None:
        plans = rules._deal_plans = {}
    plan = plans.get(dealer)
    if plan is None:
        plan = _Plan(rules, dealer)   # (an unknown dealer fails here, before it is kept)
        if len(plans) < 64:
            plans[dealer] = plan
    return plan


def _splitter(n_seats: int, packets: tuple, order: tuple, public: bool):
    """deck -> ({seat: its cards dealt packet by packet}, the public card or None), as
    one generated function of list displays over fixed positions (only integers and global
    names are written into its source; the seats are its globals)."""
    positions, at = _dealt_positions(n_seats, packets)
    seats = {f"g{i}": seat for i, seat in enumerate(order)}
    hands = ", ".join(f"g{i}: [{', '.join(f'd[{p}]' for p in places)}]" for i, places in enumerate(positions))
    tail = f"d[{at}]" if public else "None"
    namespace = {"__builtins__": {}, **seats}
    exec(compile(f"def split(d):\n    return {{{hands}}}, {tail}\n", "<deal split>", "exec"), namespace)
    return namespace["split"]


def _completer(plan: _Plan, taker: str):
    """(deck, public) -> {seat: the cards it receives after the bidding}: slices of the stock (the
    deck from plan.stock_at) in dealing order, the taker's led by the public card (Deal.complete's
    loop, generated once per taker: only integers and global names are written into its source)."""
    order, completion = plan.order, plan.completion
    seats, parts, at = {}, [], plan.stock_at
    for index, seat in enumerate(order):
        seats[f"g{index}"] = seat
        if seat == taker:
            parts.append(f"g{index}: [{', '.join(['public'] + [f's[{p}]' for p in range(at, at + completion - 1)])}]")
            at += completion - 1
        else:
            parts.append(f"g{index}: s[{at}:{at + completion}]")
            at += completion
    namespace = {"__builtins__": {}, **seats}
    exec(compile(f"def complete(s, public):\n    return {{{', '.join(parts)}}}\n", "<deal complete>", "exec"), namespace)
    return namespace["complete"]


def _filler(plan: _Plan, taker: str):
    """(deck, public, hands, dealt) -> dealt: each seat's hand a new list, its cards then those
    `complete` gives it (the stock, the deck from plan.stock_at, in dealing order, the taker's led
    by the public card), and
    dealt[seat] a copy, seat by seat in dealing order; with no `dealt` (None), a new dict of the
    copies in the table's order of seats (Deal.deal_rest's loop, generated once per taker: only
    integers and global names are written into its source)."""
    order, completion = plan.order, plan.completion
    seats, lines, at = {}, [], plan.stock_at
    for index, seat in enumerate(order):
        seats[f"g{index}"] = seat
        count = completion - (seat == taker)
        received = ["public"] * (seat == taker) + [f"s[{p}]" for p in range(at, at + count)]
        at += count
        lines.append(f"    h[g{index}] = c{index} = [*h[g{index}], {', '.join(received)}]")
    made = ", ".join(f"g{order.index(seat)}: [*c{order.index(seat)}]" for seat in plan.seats if seat in order)
    lines += ["    if d is None:", f"        return {{{made}}}"]
    lines += [f"    d[g{index}] = [*c{index}]" for index in range(len(order))] + ["    return d"]
    namespace = {"__builtins__": {}, **seats}
    exec(compile("def fill(s, public, h, d):\n" + "\n".join(lines) + "\n", "<deal fill>", "exec"), namespace)
    return namespace["fill"]


def _dealt_positions(n_seats: int, packets: tuple) -> tuple:
    """Per seat, the places of its cards in a deck dealt packet by packet, seat by seat; and
    the place after the last dealt card."""
    positions, at = [[] for _ in range(n_seats)], 0
    for size in packets:
        for seat in range(n_seats):
            positions[seat].extend(range(at, at + size))
            at += size
    return positions, at


def _no_repeats(cards, path):
    seen = set()
    for card in cards:
        if card in seen:
            raise DealError(f"{card} appears twice", path)
        seen.add(card)
