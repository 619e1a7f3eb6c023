"""The `best_split` builtin: the disjoint groups of greatest total value.

Two ways to the same answer. The general way is a search, include-first, over the groups in
order, keeping the first choice whose score is strictly greater than the best so far; each of its
steps makes a set of cards and each leaf a sum, a sorted list and a tuple. Where every group is a
plain record whose value and key are ints and whose cards a list of hashable items, the same
search runs on ints: which later groups share a card with each group is found once, a choice is a
bitmask of groups and its total an int, and the (value, key) pairs are sorted only where two
totals tie. The leaves are visited in the same order (include first: the choice without a group
is walked after every choice with it) and compared by the same score, so the same choice comes
out, as the same group objects, in the same order. (A player's projects are this split of the
candidates his cards hold, worked out at the first trick: the search's sets were most of it.)
"""

from __future__ import annotations


def best_split(records, groups):
    """Disjoint groups (no shared item in `.cards`) with the greatest total `.value`; among
    equal totals, the greatest list of (value, key) pairs (sorted, highest first), so the most
    valuable group has the highest key; then the fewest groups. (`records`: the types of a
    plain record, whose fields are read by subscript alone.)"""
    groups = list(groups)
    if len(groups) < 2:   # most hands: no project, or one (which any non-empty choice beats)
        return groups
    found = _split_of_ints(groups, records)
    return _split_searched(groups) if found is None else found


def _split_searched(groups):
    """best_split the general way: any values, keys and cards (and the errors they raise)."""
    best = {"score": (0, [], 0), "chosen": []}

    def search(i, used, chosen):
        if i == len(groups):
            score = (sum(g["value"] for g in chosen), sorted(((g["value"], g["key"]) for g in chosen), reverse=True), -len(chosen))
            if score > best["score"]:
                best["score"], best["chosen"] = score, list(chosen)
            return
        group = groups[i]
        cards = set(group["cards"])
        if not cards & used:
            chosen.append(group)
            search(i + 1, used | cards, chosen)
            chosen.pop()
        search(i + 1, used, chosen)

    search(0, frozenset(), [])
    return sorted(best["chosen"], key=_order)


def _split_of_ints(groups, records):
    """best_split on ints, or None where a group is not a plain record of int value and key
    and a list of hashable cards (the general way then does it, raising what it raises)."""
    values, keys, sets = [], [], []
    try:
        for group in groups:
            if type(group) not in records:
                return None
            value, key, cards = group["value"], group["key"], group["cards"]
            if type(value) is not int or type(key) is not int or type(cards) is not list:
                return None
            values.append(value)
            keys.append(key)
            sets.append(frozenset(cards))
    except (KeyError, TypeError):   # (a field missing, an unhashable card)
        return None
    count = len(groups)
    bits = _BITS[:count] if count <= len(_BITS) else [1 << i for i in range(count)]
    value_of, pair_of, keep = dict(zip(bits, values)), dict(zip(bits, zip(values, keys))), {}
    # (keep[bit]: the later groups sharing no card with group `bit`)
    for i, bit in enumerate(bits):
        mask, own = -1, sets[i]
        for j in range(i + 1, count):
            if not own.isdisjoint(sets[j]):
                mask ^= bits[j]
        keep[bit] = mask
    best_total, best = 0, 0   # the empty choice: (0, [], 0), as the general way starts
    pending = [(bits[-1] * 2 - 1, 0, 0)]   # (groups still open, total, groups chosen)
    while pending:
        open_, total, chosen = pending.pop()
        while open_:   # the first open group taken, the choice without it walked next
            bit = open_ & -open_
            open_ ^= bit
            pending.append((open_, total, chosen))
            open_ &= keep[bit]
            total += value_of[bit]
            chosen |= bit
        if total > best_total or (total == best_total and _ties_better(chosen, best, pair_of)):
            best_total, best = total, chosen
    picked = []
    for group, bit in zip(groups, bits):
        if best & bit:
            picked.append(group)
    if len(picked) > 1:
        picked.sort(key=_order)
    return picked


_BITS = [1 << i for i in range(64)]


def _order(group):
    return (-group["value"], -group["key"])


def _ties_better(chosen: int, best: int, pair_of: dict) -> bool:
    """Whether choice `chosen` beats `best` of the same total: by its sorted (value, key)
    pairs, then by fewer groups (`pair_of`: a group's bit -> its pair)."""
    if chosen in pair_of and best in pair_of:   # (one group each: their pairs compare alone)
        return pair_of[chosen] > pair_of[best]
    mine = sorted([pair for bit, pair in pair_of.items() if chosen & bit], reverse=True)
    theirs = sorted([pair for bit, pair in pair_of.items() if best & bit], reverse=True)
    return (mine, -len(mine)) > (theirs, -len(theirs))
