"""Positions in the oracle: a hand started from a position, and the position a hand is at.

Written from conformance/README.md ("Setup by position") only, like the rest of the oracle: it
shares no code with baloot_spec. `from_position(position, knobs)` gives an oracle Hand at the
position, checked (ValueError naming the field for a position the rules do not reach; the plays
of the tricks are replayed, so an illegal card is an O.Reject); `Recorder` replays events and
keeps what was said with each card, so that `position_of(recorder)` can write the position.
"""

import oracle as O

PHASES = (O.DOUBLING, O.PLAY)


def _cards(mask):
    return [O.CARD[c] for c in range(32) if mask >> c & 1]


def _mask(cards, where):
    m = 0
    for c in cards:
        try:
            b = 1 << O.parse_card(c)
        except ValueError:
            raise ValueError("%s: bad card %r" % (where, c))
        if m & b:
            raise ValueError("%s: %s twice" % (where, c))
        m |= b
    return m


class Recorder:
    """An oracle hand and the play events applied to it (what was said with each card)."""

    def __init__(self, hand):
        self.hand = hand
        self.plays = []                 # accepted play events, in order

    def apply(self, ev):
        self.hand.apply(ev)
        if ev.get("type") == "play":
            self.plays.append(ev)


def _play_json(ev):
    out = {"seat": ev["seat"], "card": O.CARD[O.parse_card(ev["card"])]}
    for name, default in (("ekka", False), ("declare", []), ("baloot", False)):
        if ev.get(name, default) not in (default, None):
            out[name] = ev[name]
    return out


def position_of(rec):
    """The position of a recorded hand (in the doubling or the play)."""
    h = rec.hand
    if h.ph not in PHASES:
        raise ValueError("position.phase: a position is in the doubling or the play, not %s" % h.ph)
    sun = h.mode == "sun"
    ms = {"NS": h.ms[0], "EW": h.ms[1]}
    doubler = h.__dict__.get("doubler")
    closed = h.closed if h.ph == O.DOUBLING else h.closed   # (the play start keeps it only in Hokum)
    contract = {"mode": h.mode, "trump": None if sun else O.SUITS[h.trump], "buyer": O.SEATS[h.buyer],
                "taker": O.SEATS[h.taker], "doubling": list(h.doubling),
                "level": O.LEVEL[h.doubling[-1] if h.doubling else None],
                "doubler": None if doubler is None else O.SEATS[doubler], "closed": bool(closed),
                "gahwa": "gahwa" in h.doubling}
    plays = [_play_json(ev) for ev in rec.plays]
    tricks, at = [], 0
    for leader, cards, winner in h.tricks:
        tricks.append({"leader": leader, "plays": plays[at:at + 4], "winner": winner})
        at += 4
    if h.ph == O.PLAY:
        current = plays[at:]
        trick = {"leader": O.SEATS[h.leader] if current else O.SEATS[h.cur], "plays": current}
    else:
        trick = None
    declared = [{"seat": O.SEATS[s], "name": p[1]} for s, ps in h.decls for p in ps]
    baloot = [ev["seat"] for ev in rec.plays if ev.get("baloot")]
    return {"phase": h.ph, "dealer": O.SEATS[h.pos[3]], "match_scores": ms, "public": O.CARD[h.public],
            "contract": contract,
            "dealt": {s: _cards(h.initial[O.SIX[s]]) for s in "NESW"},
            "hands": {s: _cards(h.hands[O.SIX[s]]) for s in "NESW"},
            "tricks": tricks, "trick": trick, "declared": declared, "baloot": baloot, "turn": h.turn()}


def from_position(pos, knobs=None):
    """An oracle Recorder at `pos` (ValueError or O.Reject if the position cannot be reached)."""
    dealt = {s: _mask(pos["dealt"][s], "position.dealt." + s) for s in "NESW"}
    pub = O.parse_card(pos["public"])
    holders = [s for s in "NESW" if dealt[s] >> pub & 1]
    if len(holders) != 1:
        raise ValueError("position.public: not among exactly one seat's dealt cards")
    if any(len(_cards(m)) != 8 for m in dealt.values()) or \
            dealt["N"] | dealt["E"] | dealt["S"] | dealt["W"] != (1 << 32) - 1:
        raise ValueError("position.dealt: 8 cards each, every card once")
    # a hands deal whose first five are any five but the public card (no rule after the bidding reads them)
    hands = {s: [c for c in _cards(dealt[s]) if c != O.CARD[pub]] for s in "NESW"}
    hands[holders[0]].append(O.CARD[pub])
    h = O.Hand(pos["dealer"], {"hands": hands, "public": O.CARD[pub]}, pos["match_scores"], knobs)
    c = pos["contract"]
    h.mode = c["mode"]
    h.trump = O.SUN if h.mode == "sun" else O.SUITS.index(c["trump"])
    h.buyer, h.taker = O.SIX[c["buyer"]], O.SIX[c["taker"]]
    h.hands = [dealt[s] for s in O.SEATS]
    h.initial = list(h.hands)
    h.doubling = list(c["doubling"])
    if c["level"] != O.LEVEL[h.doubling[-1] if h.doubling else None] or c["gahwa"] != ("gahwa" in h.doubling):
        raise ValueError("position.contract: level and gahwa do not follow from the doubling words")
    h.closed = c["closed"]
    h.doubler = None if c["doubler"] is None else O.SIX[c["doubler"]]
    bt = h.buyer & 1
    h.dq = [p for p in h.pos if p & 1 != bt]
    h.step, h.di = len(h.doubling), 0
    rec = Recorder(h)
    if pos["phase"] == O.DOUBLING:
        h.ph = O.DOUBLING
        h.cur = O.SIX[pos["turn"]]
        # who may be asked: an opponent before any raise, the buyer after Double or Four, the
        # doubler after Triple
        if h.step == 0:
            if h.cur not in h.dq:
                raise ValueError("position.turn: before a Double only the buyer's opponents are asked")
            h.di = h.dq.index(h.cur)
        elif h.cur != (h.doubler if h.step == 2 else h.buyer) or h.step >= 4:
            raise ValueError("position.turn: not who answers %s" % h.doubling[-1])
    elif pos["phase"] == O.PLAY:
        h._start_play()
        for i, t in enumerate(pos["tricks"]):
            _replay(rec, t, "position.tricks[%d]" % i)
            if h.tricks[-1][2] != t["winner"]:
                raise ValueError("position.tricks[%d].winner: the trick is %s's" % (i, h.tricks[-1][2]))
        _replay(rec, pos["trick"], "position.trick")
    else:
        raise ValueError("position.phase: %r" % pos["phase"])
    mine = position_of(rec)
    for key in ("hands", "declared", "baloot", "turn", "contract"):
        theirs = pos[key]
        if key == "hands":
            theirs = {s: _cards(_mask(cs, "position.hands." + s)) for s, cs in theirs.items()}
        if mine[key] != theirs:
            raise ValueError("position.%s: the oracle has %r" % (key, mine[key]))
    return rec


def _replay(rec, trick, where):
    if trick["leader"] != rec.hand.turn():
        raise ValueError("%s.leader: %s leads" % (where, rec.hand.turn()))
    for p in trick["plays"]:
        rec.apply(dict(p, type="play"))
