"""The `runs` builtin: maximal runs of one suit's cards, consecutive in a rank order.

Two ways to the same answer. Each card known with an order has a code (suit, alphabetical among
the suits seen, * 64 + its rank's place), and the codes sorted and cut where two are not
consecutive are the runs: the general way, which takes any cards. And each such card has a
bit (suit * (len(order) + 1) + place: one clear bit between two suits), so that a hand of
distinct cards whose ranks are all in the order is one int, the sum of its bits, whose blocks
of set bits are its runs: found with a few integer operations a run, not a turn of a Python
loop a card (a hand is cut into runs when its projects are looked for).
"""

from __future__ import annotations

_RUN_TABLES: dict = {}   # tuple(order) -> (suits seen, sorted; {card: code}; {code: card})
# tuple(order) -> ({card: its bit, 0 if its rank is not in the order}, [card at each bit], the
# codes it was made from): made from _RUN_TABLES' entry, again whenever that entry grows.
_RUN_BITS: dict = {}


def _run_table(order: tuple, cards):
    """Each card of a rank in `order` as one int: suit (alphabetical among the suits seen) * 64
    + the rank's place, so that a run is consecutive ints; the table grows with new suits."""
    suits, codes, cards_of = _RUN_TABLES.get(order, ((), {}, {}))
    if order not in _RUN_TABLES or any(card not in codes for card in cards):
        suits = tuple(sorted(set(suits) | {card.suit for card in cards}))
        place = {rank: i for i, rank in enumerate(order)}
        known = set(codes) | set(cards)
        codes = {card: (suits.index(card.suit) * 64 + place[card.rank] if card.rank in place else None) for card in known}
        cards_of = {code: card for card, code in codes.items() if code is not None}
        _RUN_TABLES[order] = (suits, codes, cards_of)
    return codes, cards_of


def _run_bits(order: tuple) -> tuple:
    """_RUN_BITS' entry for `order`, from _RUN_TABLES' (made again if that one has grown)."""
    _suits, codes, cards_of = _RUN_TABLES[order]
    entry = _RUN_BITS.get(order)
    if entry is None or entry[2] is not codes:
        width = len(order) + 1
        at = lambda code: (code >> 6) * width + (code & 63)   # noqa: E731
        bits = {card: (0 if code is None else 1 << at(code)) for card, code in codes.items()}
        card_at = [None] * (max(map(at, cards_of), default=-1) + 1)
        for code, card in cards_of.items():
            card_at[at(code)] = card
        entry = _RUN_BITS[order] = (bits, card_at, codes)
    return entry


def runs(cards, order, min_len):
    """Maximal runs of cards of one suit that are consecutive in `order` (strongest first),
    suits in alphabetical order."""
    key = tuple(order)
    entry = _RUN_BITS.get(key)
    if entry is not None and type(cards) is list:
        try:
            held = sum(map(entry[0].__getitem__, cards))   # (C-level: no frame per card)
        except (KeyError, TypeError):   # a card (or a suit) not seen with this order yet
            return _runs_by_codes(cards, key, min_len)
        # Distinct cards of ranks in the order: as many bits as cards (a card twice carries,
        # a card of another rank adds none); else the general way.
        if held.bit_count() == len(cards):
            starts = held   # the bits that begin min_len set bits in a row
            for shift in range(1, min_len):
                starts &= held >> shift
            runs, card_at = [], entry[1]
            while starts:
                low = starts & -starts   # the lowest run left that is long enough
                run = ((held + low) ^ held) & held   # its bits (the sum carries through them)
                first = low.bit_length() - 1
                runs.append(card_at[first:first + run.bit_count()])
                starts &= ~run
            return runs
    return _runs_by_codes(cards, key, min_len)


def _runs_by_codes(cards, key: tuple, min_len):
    """runs() the general way: any cards, a card given twice too."""
    if len(key) >= 64:   # (no deck has that many ranks; the codes would overlap)
        raise ValueError("runs(): an order of 64 ranks or more")
    entry = _RUN_TABLES.get(key)
    try:
        found = list(map(entry[1].__getitem__, cards))   # (C-level: no frame per card)
    except (KeyError, TypeError):   # a card (or a suit) not seen with this order yet
        codes, _ = _run_table(key, cards)
        found = list(map(codes.__getitem__, cards))
        entry = _RUN_TABLES[key]
    _run_bits(key)
    if None in found:   # cards whose rank is not in `order`
        found = [code for code in found if code is not None]
    found.sort()
    cards_of = entry[2]
    runs, run, last = [], [], -2
    for code in found:
        if code != last + 1:
            if run and len(run) >= min_len:
                runs.append(list(map(cards_of.__getitem__, run)))
            run = []
        run.append(code)
        last = code
    if run and len(run) >= min_len:
        runs.append(list(map(cards_of.__getitem__, run)))
    return runs
