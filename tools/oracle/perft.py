"""The oracle's own perft, so that a recorded count never rests on code of baloot_spec:
the number of action sequences of a given length from a position (announcements are not
actions), and the same split by first action.
"""
import json


def perft(h, depth):
    if depth == 0:
        return 1
    seat = h.turn()
    if seat is None:
        return 0
    acts = h.legal()
    if depth == 1:
        return len(acts)
    n = 0
    for a in acts:
        child = h.copy()
        child.apply(dict(a, seat=seat))
        n += perft(child, depth - 1)
    return n


def action_key(a):
    """An action as canonical JSON: no seat, a double without `closed` is open."""
    a = {k: v for k, v in a.items() if k != "seat"}
    if a.get("type") == "double":
        a["closed"] = bool(a.get("closed", False))
    return json.dumps(a, sort_keys=True)


def divide(h, depth):
    seat, out = h.turn(), {}
    if depth < 1 or seat is None:
        return out
    for a in h.legal():
        child = h.copy()
        child.apply(dict(a, seat=seat))
        out[action_key(a)] = perft(child, depth - 1)
    return out
