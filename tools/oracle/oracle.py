"""Independent reference oracle for Baloot (baloot-spec).

Written only from shared/rulebooks (de.txt, nl.txt, smsf.md), rules/PROCEDURE.md and
conformance/README.md. Standard library only. Cards are ints (suit*8 + rank, suits S H D C,
ranks A K Q J T 9 8 7), hands are 32-bit masks, seats are ints in play order N W S E.
"""

SUITS = "SHDC"
RANKS = "AKQJT987"
SEATS = "NWSE"                      # counter-clockwise: N -> W -> S -> E -> N
SIX = {s: i for i, s in enumerate(SEATS)}
TEAMS = ("NS", "EW")                # team of seat i is i & 1
CARD = [RANKS[c & 7] + SUITS[c >> 3] for c in range(32)]
SUN = 4                             # "trump" index of a Sun hand
SUITMASK = [0xFF << (8 * s) for s in range(4)] + [0]
_PLAIN_STR = [7, 5, 4, 3, 6, 2, 1, 0]       # A T K Q J 9 8 7
_TRUMP_STR = [5, 3, 2, 7, 4, 6, 1, 0]       # J 9 A T K Q 8 7
_PLAIN_PTS = [11, 4, 3, 2, 10, 0, 0, 0]
_TRUMP_PTS = [11, 4, 3, 20, 10, 14, 0, 0]

VAL, PTS, ABOVE = [], [], []        # per trump index 0..4: card order value, points, higher cards
for _t in range(5):
    _v = [(16 + _TRUMP_STR[c & 7]) if c >> 3 == _t else _PLAIN_STR[c & 7] for c in range(32)]
    VAL.append(_v)
    PTS.append([_TRUMP_PTS[c & 7] if c >> 3 == _t else _PLAIN_PTS[c & 7] for c in range(32)])
    ABOVE.append([sum(1 << d for d in range(c & 56, (c & 56) + 8) if _v[d] > _v[c])
                  for c in range(32)])
HIGHER_PLAIN = ABOVE[SUN]
PLAY_ACTION = [{"type": "play", "card": CARD[c]} for c in range(32)]   # shared; do not mutate

# sub-runs of a suit byte (bit r = rank index r, A = bit 0): list of (length, first rank)
RUNS = []
for _b in range(256):
    _out, _r = [], 0
    while _r < 8:
        if _b >> _r & 1:
            _e = _r
            while _e < 8 and _b >> _e & 1:
                _e += 1
            for _L in (5, 4, 3):
                for _o in range(_r, _e - _L + 1):
                    _out.append((_L, _o))
            _r = _e
        else:
            _r += 1
    RUNS.append(_out)
FOUR = [(1 << r) | (1 << (r + 8)) | (1 << (r + 16)) | (1 << (r + 24)) for r in range(8)]
SEQNAME = {3: "sira", 4: "50", 5: "100"}
PPTS_H = {"sira": 2, "50": 5, "100": 10, "400": 10}
PPTS_S = {"sira": 4, "50": 10, "100": 20, "400": 40}
PRAW = {"sira": 20, "50": 50, "100": 100, "400": 200}
NAMERANK = {"sira": 1, "50": 2, "100": 3, "400": 4}
LEVEL = {None: 1, "double": 2, "triple": 3, "four": 4, "gahwa": 4}
DWORDS = ("pass", "double", "triple", "four", "gahwa")
STEPWORD = ("double", "triple", "four", "gahwa")
BIDCALLS = ("pass", "hokum", "sun", "ashkal", "kawesh")

DEFAULTS = {
    "first_lead": "dealer_right", "ekka": True, "partner_led_exception": True,
    "undertrump": "free", "closed_play": True, "closed_after_buyer_raise": "keep",
    "ashkal_requires": "all_passed", "ashkal_round_two": False, "ashkal_on_ace": "allowed",
    "wrongful_ashkal": "illegal", "ashkal_buyer": "partner", "ace_sun_overcall": "anyone",
    "kawesh": False, "third_round": False, "sun_double_allowed": "de",
    "hokum_rounding": "half_down", "sun_conversion": "keep_fives",
    "project_multiplier": "at_most_double", "hundred_rank": "four_first",
    "trump_sequence_first": False, "project_tie": "first_declared", "four_aces_hokum": "hundred",
    "counting_team": "de", "tie_rule": "digit", "kaboot_doubled": "scaled",
    "baloot_of_losers": "to_winners", "match_target": 152, "winner_basis": "game_points",
    "exposed_card": "stands", "reverse_kaboot": False, "kaboot_projects": "sweeping_team",
    "cutting": "de", "pickup_before_trump": "refused", "late_projects": "refused",
    "baloot_in_hundred": "cancelled", "baloot_cancelled_when": "shown",
    "trump_when_partner_winning": "exception", "other_team_points": "rest",
    "hokum_bidder_sun": "bidder_too", "lower_declaration": "anyone",
    "overtrump_partner_winning": "free", "undoubled_loss": "all",
}

# The cut (PROCEDURE, Deal, "The cut"). de Vorbereitung 2: "sein linker Nachbar darf abheben"
# (go or cut); nl Instelling adds: shuffle once, the first card as public card, the bottom three
# to a team mate or for himself, the top three for himself.
CUT_OPTIONS = {
    "de": ("go", "cut"),
    "nl": ("go", "cut", "shuffle", "top_public", "bottom_to_partner", "bottom_keep", "top_keep"),
}
ALL_CUT_OPTIONS = CUT_OPTIONS["nl"]


class Reject(Exception):
    def __init__(self, rule, message=""):
        super().__init__(rule + (": " + message if message else ""))
        self.rule = rule
        self.message = message or rule


def knobs_of(knobs):
    k = dict(DEFAULTS)
    if knobs:
        for name, v in knobs.items():
            if name not in DEFAULTS:
                raise KeyError("unknown knob " + name)
            k[name] = v
    return k


CARD_IX = {CARD[c]: c for c in range(32)}


def parse_card(s):
    c = CARD_IX.get(s)
    if c is not None:
        return c
    s = str(s).strip().upper()
    if s.startswith("10"):
        s = "T" + s[2:]
    if len(s) != 2 or s[0] not in RANKS or s[1] not in SUITS:
        raise ValueError("bad card %r" % s)
    return SUITS.index(s[1]) * 8 + RANKS.index(s[0])


def mask_of(cards):
    m = 0
    for c in cards:
        m |= 1 << parse_card(c)
    return m


def cards_of(m):
    return [CARD[c] for c in range(32) if m >> c & 1]


# ---------------------------------------------------------------- projects

def _candidates(mask, t, K):
    """All projects in a hand: tuples (key, name, mask); key = (points, kind, top, trumpseq)."""
    sun = t == SUN
    pp = PPTS_S if sun else PPTS_H
    four_first = K["hundred_rank"] == "four_first"
    tsf = K["trump_sequence_first"]
    out = []
    for s in range(4):
        for L, o in RUNS[(mask >> (8 * s)) & 0xFF]:
            name = SEQNAME[L]
            key = (pp[name], (0 if four_first else 1) if L == 5 else 0, 7 - o,
                   1 if (tsf and s == t) else 0)
            out.append((key, name, ((1 << L) - 1) << (8 * s + o)))
    for r in range(5):
        if mask & FOUR[r] == FOUR[r]:
            if r == 0 and sun:
                name = "400"
            elif r == 0 and K["four_aces_hokum"] == "nothing":
                continue
            else:
                name = "100"
            key = (pp[name], (1 if four_first else 0) if name == "100" else 0, 7 - r, 0)
            out.append((key, name, FOUR[r]))
    return out


def best_split(mask, t, K):
    """The split with most game points (ties: better projects first); sorted best first."""
    cands = _candidates(mask, t, K)
    if len(cands) <= 1:
        return cands
    cands.sort(reverse=True)
    best = [None, None]

    def rec(i, used, chosen, pts):
        if i == len(cands):
            keys = sorted((p[0] for p in chosen), reverse=True)
            if best[0] is None or (pts, keys) > best[0]:
                best[0], best[1] = (pts, keys), list(chosen)
            return
        p = cands[i]
        if not used & p[2]:
            chosen.append(p)
            rec(i + 1, used | p[2], chosen, pts + p[0][0])
            chosen.pop()
        rec(i + 1, used, chosen, pts)

    rec(0, 0, [], 0)
    return sorted(best[1], reverse=True)


def _proj_cards(p):
    return [CARD[c] for c in range(32) if p[2] >> c & 1]     # high to low; fours in S H D C


def _pick(split, names):
    avail, out = list(split), []
    for n in names:
        for i, p in enumerate(avail):
            if p[1] == n:
                out.append(p)
                del avail[i]
                break
    return out


def _resolve(decls, K, pos):
    """decls: list of (seat, [projects]) in declaration order -> (credited team or None, {seat: projects})."""
    # A seat may declare more than once (nl late showing): its projects are pooled, and "wer
    # zuerst angesagt hat" is the order of each seat's first declaration.
    order, pooled = [], {}
    for s, ps in decls:
        if s not in pooled:
            order.append(s)
            pooled[s] = []
        pooled[s].extend(ps)
    best = [None, None]
    for oi, s in enumerate(order):
        prio = -oi if K["project_tie"] == "first_declared" else -pos.index(s)
        for p in pooled[s]:
            cand = (p[0], prio)
            if best[s & 1] is None or cand > best[s & 1]:
                best[s & 1] = cand
    if best[0] is None and best[1] is None:
        return None, {}
    team = 0 if best[1] is None or (best[0] is not None and best[0] > best[1]) else 1
    return team, {s: pooled[s] for s in order if s & 1 == team and pooled[s]}


def _baloot_blocked(projects, t, K):
    """True when one of these projects cancels the Baloot. de Projekte, Baloot: "Wer ein Hundert
    zeigt, das ihn enthält, oder vier Könige bzw. vier Damen, bekommt ihn nicht zusätzlich."
    smsf 5-8 names only "a hundred of Kings or of Queens" (baloot_in_hundred: counts)."""
    kq = (1 << (t * 8 + 1)) | (1 << (t * 8 + 2))
    for p in projects:
        if p[2] in (FOUR[1], FOUR[2]):
            return True
        if p[1] == "100" and p[2] & kq == kq and K["baloot_in_hundred"] == "cancelled":
            return True
    return False


def _baloot_auto(holder_projects, t, K):
    """de: "Steckt er in einer gezeigten Sira oder Fünfzig, zählt er automatisch mit"; smsf 5-6:
    "inside a shown sequence it counts even if not announced" (a 100 too)."""
    kq = (1 << (t * 8 + 1)) | (1 << (t * 8 + 2))
    names = ("sira", "50", "100") if K["baloot_in_hundred"] == "counts" else ("sira", "50")
    return any(p[1] in names and p[2] & kq == kq for p in holder_projects)


def _baloot_cancellers(credited, split, K):
    """The projects that may cancel the holder's Baloot: those he is credited with (de "wer ein
    Hundert zeigt") or, nl "in een 100-project zitten", every project of his hand."""
    return split if K["baloot_cancelled_when"] == "held" else credited


def find_projects(hand, mode, trump, knobs=None):
    K = knobs_of(knobs)
    t = SUN if mode == "sun" else SUITS.index(trump.upper())
    return [{"name": p[1], "cards": _proj_cards(p)} for p in best_split(mask_of(hand), t, K)]


def projects_case(setup, knobs=None):
    K = knobs_of(knobs)
    t = SUN if setup["mode"] == "sun" else SUITS.index(setup["trump"].upper())
    d = SIX[setup["dealer"]]
    pos = [(d + 1) % 4, (d + 2) % 4, (d + 3) % 4, d]
    masks = {SIX[s]: mask_of(cs) for s, cs in setup["hands"].items()}
    splits = {s: best_split(m, t, K) for s, m in masks.items()}
    declared = setup.get("declared")
    decls = []
    for s in pos:                                   # play order of the first trick from p1
        if s not in splits:
            continue
        names = [p[1] for p in splits[s]] if declared is None else \
            [str(n) for n in declared.get(SEATS[s], [])]
        decls.append((s, _pick(splits[s], names)))
    team, cred = _resolve(decls, K, pos)
    pp = PPTS_S if t == SUN else PPTS_H
    credited = {"NS": 0, "EW": 0}
    for s, ps in cred.items():
        credited[TEAMS[s & 1]] += sum(pp[p[1]] for p in ps)
    bal = None
    if t != SUN:
        kq = (1 << (t * 8 + 1)) | (1 << (t * 8 + 2))
        for s, m in masks.items():
            if m & kq == kq and not _baloot_blocked(_baloot_cancellers(cred.get(s, []), splits[s], K), t, K):
                bal = SEATS[s]
    return {"projects": {SEATS[s]: [{"name": p[1], "cards": _proj_cards(p)} for p in sp]
                         for s, sp in splits.items()},
            "credited_team": None if team is None else TEAMS[team],
            "credited": credited, "baloot": bal}


# ---------------------------------------------------------------- scoring

def _convert(x, sun, K):
    if sun:
        if K["sun_conversion"] == "to_even":   # app rule, ÷5 "to even": x/10 half to even (Python round), x2
            return round(x / 10) * 2
        if K["sun_conversion"] == "half_up" or x % 10 != 5:
            return (x + 5) // 10 * 2
        return x // 5
    return (x + 5) // 10 if K["hokum_rounding"] == "half_up" else (x + 4) // 10


def _pmult(level, K):
    pm = K["project_multiplier"]
    if pm == "level":
        return level
    if pm == "double_only":
        return 2 if level == 2 else 1
    return min(level, 2)


def score_core(sun, bteam, doubling, cp, ntricks, ppts, praw, bal, K):
    """All per-team arguments are [NS, EW] lists; bal holds booleans. Returns the score dict."""
    last = doubling[-1] if doubling else None
    level = LEVEL[last]
    opp = 1 - bteam
    raised = last in ("double", "four")
    counting = bteam if raised else opp
    eff_buyer = opp if (raised and K["counting_team"] == "smsf") else bteam
    full = 26 if sun else 16
    c = _convert(cp[counting], sun, K)
    conv = [0, 0]
    # de: "Die andere Partei bekommt den Rest von 16/26"; nl Scoren: every team's own score is
    # rounded and divided (other_team_points: own)
    other = full - c if K["other_team_points"] == "rest" else _convert(cp[1 - counting], sun, K)
    conv[counting], conv[1 - counting] = c, other
    tot = [conv[i] + ppts[i] + (2 if bal[i] else 0) for i in (0, 1)]
    kaboot = ntricks is not None and (ntricks[0] == 8 or ntricks[1] == 8)
    if kaboot:
        winner = 0 if ntricks[0] == 8 else 1
    else:
        if K["winner_basis"] == "raw_points":
            a = [cp[i] + praw[i] + (20 if bal[i] else 0) for i in (0, 1)]
        else:
            a = tot
        if a[0] != a[1]:
            winner = 0 if a[0] > a[1] else 1
        elif K["tie_rule"] == "last_raiser_loses":
            if doubling:
                winner = opp if len(doubling) % 2 == 0 else bteam   # last raiser loses
            else:
                winner = bteam
        else:
            d = cp[counting] % 10
            if sun:
                winner = counting if 1 <= d <= 4 else (1 - counting if d >= 6 else eff_buyer)
            else:
                winner = counting if 2 <= d <= 5 else (eff_buyer if d == 1 else 1 - counting)
    written = [0, 0]
    bol = K["baloot_of_losers"]
    w, lo = winner, 1 - winner
    if kaboot:
        base = 44 if sun else 25
        if K["reverse_kaboot"] and sun and w != bteam:  # defenders sweeping a Sun: 88
            base = 88
        own = ppts[w] if K["kaboot_projects"] == "sweeping_team" else ppts[0] + ppts[1]
        if level > 1 and K["kaboot_doubled"] == "scaled":
            written[w] = base * level + own * _pmult(level, K)
        elif level > 1 and K["kaboot_doubled"] == "double_figures":
            # de Abrechnung 5: "(verdoppelt: 50 bzw. 88 plus doppelte Projekte)" at any level
            written[w] = base * 2 + own * 2
        else:
            written[w] = base + own
        written[w] += 2 if bal[w] else 0
        if bol == "holder" and bal[lo]:
            written[lo] = 2
    elif level == 1 and (winner == bteam or K["undoubled_loss"] == "split"):
        # nl Meerdere scores: only a doubled hand is not split ("worden de punten niet verdeeld")
        written = list(tot)
    else:
        # everything: both teams' converted points (16/26 when the other gets the rest; nl's
        # own rounding of each team may give 17), all projects, the Baloot
        written[w] = (conv[0] + conv[1]) * level + (ppts[0] + ppts[1]) * _pmult(level, K)
        if bol == "to_winners":
            written[w] += 2 * (bool(bal[0]) + bool(bal[1]))
        else:
            written[w] += 2 if bal[w] else 0
            if bol == "holder" and bal[lo]:
                written[lo] = 2
    return {"counting_team": TEAMS[counting], "converted": {"NS": conv[0], "EW": conv[1]},
            "totals": {"NS": tot[0], "EW": tot[1]}, "winner": TEAMS[winner], "kaboot": kaboot,
            "written": {"NS": written[0], "EW": written[1]}, "gahwa": last == "gahwa"}


def score(facts, knobs=None):
    K = knobs_of(knobs)
    sun = facts["mode"] == "sun"
    pp = PPTS_S if sun else PPTS_H
    projects = facts.get("projects") or {}
    ppts = [sum(pp[str(n)] for n in projects.get(t, [])) for t in TEAMS]
    praw = [sum(PRAW[str(n)] for n in projects.get(t, [])) for t in TEAMS]
    b = facts.get("baloot") or {}
    tr = facts.get("tricks")
    return score_core(sun, SIX[facts["buyer"]] & 1, list(facts.get("doubling") or []),
                      [facts["card_points"]["NS"], facts["card_points"]["EW"]],
                      None if tr is None else [tr["NS"], tr["EW"]], ppts, praw,
                      [bool(b.get("NS")), bool(b.get("EW"))], K)


def match_after(scores, written, gahwa_winner=None, knobs=None):
    """Add one hand's written scores to `scores` (in place); the match winner if the match is
    now over (a Gahwa, or one team alone highest at or above the target), else None."""
    K = knobs_of(knobs)
    for t in TEAMS:
        scores[t] += written.get(t, 0)
    if gahwa_winner:
        return gahwa_winner
    if max(scores.values()) >= K["match_target"] and scores["NS"] != scores["EW"]:
        return max(TEAMS, key=lambda t: scores[t])
    return None


def match(start, hands, knobs=None):
    scores = {"NS": start.get("NS", 0), "EW": start.get("EW", 0)}
    for i, h in enumerate(hands, 1):
        wr = h.get("written", {})
        g = h.get("gahwa")
        gahwa_winner = None
        if g:
            gahwa_winner = g if isinstance(g, str) else h.get("winner") or \
                ("NS" if wr.get("NS", 0) > wr.get("EW", 0) else "EW")
        winner = match_after(scores, wr, gahwa_winner, knobs)
        if winner:
            return {"winner": winner, "scores": dict(scores), "ended_after": i}
    return {"winner": None, "scores": dict(scores), "ended_after": None}


# ---------------------------------------------------------------- the hand

BIDDING, TRUMP, DOUBLING, PLAY, OVER = "bidding", "trump", "doubling", "play", "over"
PHASE_TYPE = {BIDDING: "bid", TRUMP: "trump", DOUBLING: "double", PLAY: "play"}


class Hand:
    def __init__(self, dealer, deal, match_scores=None, knobs=None):
        self.K = K = knobs_of(knobs)
        self.ple = K["partner_led_exception"]
        self.forced_under = K["undertrump"] == "forced"
        d = SIX[dealer]
        self.pos = pos = [(d + 1) % 4, (d + 2) % 4, (d + 3) % 4, d]
        ms = match_scores or {}
        self.ms = [ms.get("NS", 0), ms.get("EW", 0)]
        self.deck = None                # deck form: the 11 cards dealt after the bidding
        self.full = None
        opt, moved = self._read_cut(deal.get("cut"), K)
        if "deck" in deal:
            dk = [parse_card(c) for c in deal["deck"]]
            # The cut's cards leave the deck first: the top card as public card, or three cards
            # that are the 3-card packet of p3 (the cutter) or p1 (his partner); the rest is
            # dealt from the top as usual, skipping that packet.
            own, public, rest = {}, None, dk
            if opt == "top_public":
                public, rest = dk[0], dk[1:]
            elif opt == "top_keep":
                own[pos[2]], rest = dk[:3], dk[3:]
            elif opt == "bottom_keep":
                own[pos[2]], rest = dk[29:], dk[:29]
            elif opt == "bottom_to_partner":
                own[pos[0]], rest = dk[29:], dk[:29]
            if moved is not None:
                took = [public] if opt == "top_public" else [c for cs in own.values() for c in cs]
                if sorted(took) != sorted(moved):
                    raise ValueError("deal.cut.cards: not the cards the cut takes from this deck")
            first, i = [0, 0, 0, 0], 0
            for p in pos:
                if p in own:
                    packet = own[p]
                else:
                    packet, i = rest[i:i + 3], i + 3
                for c in packet:
                    first[p] |= 1 << c
            for p in pos:
                for c in rest[i:i + 2]:
                    first[p] |= 1 << c
                i += 2
            if public is None:
                public, i = rest[i], i + 1
            self.public = public
            self.deck = rest[i:]
        else:
            first, self.full = [0, 0, 0, 0], [0, 0, 0, 0]
            for s, cs in deal["hands"].items():
                cl = [parse_card(c) for c in cs]
                for c in cl[:5]:
                    first[SIX[s]] |= 1 << c
                for c in cl:
                    self.full[SIX[s]] |= 1 << c
            self.public = parse_card(deal["public"])
            if any(f >> self.public & 1 for f in first):
                # the public card is turned after the first five of every seat are dealt
                raise ValueError("deal.public: the public card is among a seat's first five cards")
            if moved is not None:       # a hands deal: only the recorded cards can be checked
                if opt == "top_public":
                    ok = moved == [self.public]
                else:
                    holder = pos[0] if opt == "bottom_to_partner" else pos[2]
                    ok = all(first[holder] >> c & 1 for c in moved)
                if not ok:
                    raise ValueError("deal.cut.cards: not where the cut puts them")
        self.first5 = first
        self.hands = list(first)
        self.initial = None
        # bidding
        self.ph = BIDDING
        self.round, self.stage = 1, "first"
        self.queue, self.qi = list(pos), 0
        self.cur = pos[0]
        self.bid = None                 # (call, seat) standing
        self.buyer = self.mode = None
        self.trump = SUN
        self.thrown_in = False
        self.doubling, self.closed = [], False
        self.tricks = []                # (leader, [cards], winner) as strings
        self.decls = []                 # (seat, [projects]) in declaration order
        self.credited_team = None
        self.credited = {"NS": [], "EW": []}
        self.baloot_said = [False] * 4
        self.baloot_credit = {"NS": False, "EW": False}
        self.card_points = [0, 0]
        self.tricks_won = [0, 0]
        self._result = None
        self._splits = {}
        # nl Instelling: a card turned face up while dealing must be accepted, unless it is an
        # Ace: then the same dealer deals again.
        exposed = deal.get("exposed")
        if exposed is not None and K["exposed_card"] == "ace_redeals" and parse_card(exposed) % 8 == RANKS.index("A"):
            self._throw_in()
            self._result["next_dealer"] = dealer

    def _read_cut(self, cut, K):
        """-> (option, the recorded cards or None); Reject for a refused cut, ValueError for a
        malformed one. Only the dealer's left neighbour (p3) may cut."""
        if cut is None:
            return None, None
        if not isinstance(cut, dict) or set(cut) - {"by", "option", "to", "cards"}:
            raise ValueError("deal.cut: malformed")
        by, opt = cut.get("by"), cut.get("option")
        if by not in SIX:
            raise ValueError("deal.cut.by: not a seat")
        if opt not in ALL_CUT_OPTIONS:
            raise ValueError("deal.cut.option: unknown option %r" % (opt,))
        if SIX[by] != self.pos[2]:
            raise Reject("deal.cut.cutter", "only the dealer's left neighbour may cut")
        if opt not in CUT_OPTIONS[K["cutting"]]:
            raise Reject("deal.cut.option", "%s is not a cutting option here" % opt)
        to = cut.get("to")
        if opt == "bottom_to_partner":
            if to not in SIX:
                raise ValueError("deal.cut.to: name the partner")
            if SIX[to] != self.pos[0]:
                raise Reject("deal.cut.receiver", "the bottom three go to the cutter's partner")
        elif to is not None:
            raise ValueError("deal.cut.to: this option gives nobody cards")
        moved = cut.get("cards")
        if moved is not None:
            want = {"go": 0, "cut": 0, "shuffle": 0, "top_public": 1}.get(opt, 3)
            if not isinstance(moved, list) or len(moved) != want:
                raise ValueError("deal.cut.cards: %s moves %d cards" % (opt, want))
            moved = [parse_card(c) for c in moved]
            if len(set(moved)) != len(moved):
                raise ValueError("deal.cut.cards: a card twice")
        return opt, moved

    # ---- queries
    def turn(self):
        return None if self.cur is None else SEATS[self.cur]

    def phase(self):
        return self.ph

    def legal(self):
        s = self.cur
        if s is None:
            return []
        ph = self.ph
        if ph == PLAY:
            m = self._play_mask(s)[0]
            out = []
            while m:
                b = m & -m
                out.append(PLAY_ACTION[b.bit_length() - 1])
                m ^= b
            return out
        if ph == BIDDING:
            return [{"type": "bid", "call": c} for c in BIDCALLS if self._bid_rule(s, c)[0] is None]
        if ph == TRUMP:
            out = [{"type": "trump", "suit": u} for i, u in enumerate(SUITS)
                   if not (self.round == 2 and i == self.public >> 3)]
            if self.K["pickup_before_trump"] == "sun":
                out.append({"type": "pickup"})
            return out
        out = [{"type": "double", "call": "pass"}]
        for c in DWORDS[1:]:
            if self._double_rule(s, c, False) is None:
                out.append({"type": "double", "call": c, "closed": False})
                if self._double_rule(s, c, True) is None:
                    out.append({"type": "double", "call": c, "closed": True})
        return out

    def result(self):
        return self._result

    def copy(self):
        """An independent copy of the position (for perft and for trying an event):
        the containers that play mutates in place are copied, everything else is shared."""
        h = object.__new__(Hand)
        h.__dict__.update(self.__dict__)
        for name in ("hands", "decls", "baloot_said", "card_points", "tricks_won", "tricks",
                     "doubling", "trick", "_splits"):
            v = self.__dict__.get(name)
            if v is not None:
                h.__dict__[name] = v.copy()
        h.credited = {t: list(v) for t, v in self.credited.items()}
        return h

    def check(self, ev):
        """The refusal id of `ev`, or None if it is legal (nothing is applied)."""
        try:
            self.copy().apply(ev)
        except Reject as e:
            return e.rule
        return None

    # ---- apply
    def apply(self, ev):
        if self.ph == OVER:        # README "Kind reject": any event once the hand is over
            raise Reject("phase.wrong-action", "the hand is over")
        s = SIX.get(ev.get("seat"))
        if self.cur is None or s != self.cur:
            raise Reject("turn.out-of-turn", "not %s's turn" % ev.get("seat"))
        ph = self.ph
        if ph == TRUMP and ev.get("type") == "pickup":
            return self._apply_pickup(s)
        if ev.get("type") != PHASE_TYPE[ph]:
            raise Reject("phase.wrong-action", "%s during %s" % (ev.get("type"), ph))
        if ph == PLAY:
            self._apply_play(s, ev)
        else:
            getattr(self, "_apply_" + ph)(s, ev)

    # ---- bidding
    def _bid_rule(self, s, call):
        """-> (refusal or None, effective call)"""
        K, st = self.K, (self.bid[0] if self.bid else None)
        if call == "pass":
            return None, call
        if call == "hokum":
            return ("bid.hokum.after-bid" if (self.stage == "chance" or st) else None), call
        if call == "sun":
            if st in ("sun", "ashkal") and self.stage != "chance":
                return "bid.sun.after-sun", call
            if self.round == 2 and st == "hokum" and \
                    self.pos.index(s) < self.pos.index(self.bid[1]):
                return "bid.sun.round-two-after-hokum", call
            if K["ace_sun_overcall"] == "dealer_right" and self.public & 7 == 0 and \
                    st == "hokum" and s != self.pos[0]:
                return "bid.sun.ace-public", call
            return None, call
        if call == "ashkal":
            # smsf 4-1: with an Ace face up only the dealer's right turns a Hokum into Sun -- an
            # Ashkal over a Hokum does that too, and the dealer's right never has the Ashkal seat
            wrongs = (("bid.sun.ace-public", K["ace_sun_overcall"] == "dealer_right" and self.public & 7 == 0
                       and st == "hokum" and s != self.pos[0]),
                      ("bid.ashkal.seat", s not in self.pos[2:]),
                      ("bid.ashkal.after-bid", K["ashkal_requires"] == "all_passed" and st),
                      ("bid.ashkal.needs-hokum", K["ashkal_requires"] == "hokum_bid" and st != "hokum"),
                      # de Varianten (Riad): "auch in der zweiten Runde" -- never in a third
                      ("bid.ashkal.round-two", self.round >= 3 or (self.round == 2 and not K["ashkal_round_two"])),
                      ("bid.ashkal.ace", K["ashkal_on_ace"] == "refused" and self.public & 7 == 0),
                      ("bid.ashkal.in-chance", self.stage == "chance"))
            wrongs = [r for r, bad in wrongs if bad]
            if not wrongs:
                return None, call
            # nl: a wrongful Ashkal (wrong seat, Ace) is a forced Sun -- but only where an Ashkal
            # may be called at all: after a bid, in round two or in the second chance it is refused.
            if K["wrongful_ashkal"] == "forced_sun":
                other = [r for r in wrongs if r not in ("bid.ashkal.seat", "bid.ashkal.ace")]
                if other:
                    return other[0], call
                if self._bid_rule(s, "sun")[0] is None:
                    return None, "sun"
            return wrongs[0], call
        if call == "kawesh":
            if not K["kawesh"]:
                return "bid.kawesh.disabled", call
            # de Varianten: "in der ersten Reizrunde" -- the second chance is still round one;
            # nl: not in "Tweede"
            if self.round != 1:
                return "bid.kawesh.round-two", call
            if any(self.first5[s] >> c & 1 and c & 7 < 5 for c in range(32)):
                return "bid.kawesh.hand", call
            return None, call
        return "phase.wrong-action", call

    def _apply_bidding(self, s, ev):
        r, call = self._bid_rule(s, ev.get("call"))
        if r:
            raise Reject(r, "%s by %s" % (ev.get("call"), SEATS[s]))
        if call == "kawesh":
            return self._throw_in()
        if self.stage == "chance":
            if call == "sun":
                return self._buy("sun", s)
            return self._next_speaker()
        if call == "pass":
            return self._next_speaker()
        if self.round == 1:
            self.bid = (call, s)
            if call == "hokum":
                return self._next_speaker()
            return self._end_first_pass()          # Sun / Ashkal: later players are skipped
        if call == "hokum":
            self.bid = (call, s)
            return self._next_speaker()
        return self._buy(call, s)                  # round two (three): Sun / Ashkal end at once

    def _next_speaker(self):
        self.qi += 1
        if self.qi < len(self.queue):
            self.cur = self.queue[self.qi]
            return
        if self.round == 1 and self.stage == "first":
            return self._end_first_pass()
        if self.bid:
            return self._buy(*self.bid)
        if self.round == 2 and self.K["third_round"] and self.public & 7 == 0:
            self.round, self.queue, self.qi = 3, [self.pos[0]], 0
            self.cur = self.pos[0]
            return
        if self.round == 1:
            self.round, self.stage, self.queue, self.qi = 2, "second", list(self.pos), 0
            self.cur = self.pos[0]
            return
        self._throw_in()

    def _end_first_pass(self):
        if self.bid is None:
            self.round, self.stage, self.queue, self.qi = 2, "second", list(self.pos), 0
            self.cur = self.pos[0]
            return
        before = self.pos[:self.pos.index(self.bid[1])]
        # de Reizen: "Nach einem Hokum darf jeder ... noch Sun sagen" -- with bidder_too the
        # Hokum bidder himself is asked too, after the earlier players
        if self.bid[0] == "hokum" and self.K["hokum_bidder_sun"] == "bidder_too":
            before = before + [self.bid[1]]
        if not before:
            return self._buy(*self.bid)
        self.stage, self.queue, self.qi = "chance", before, 0
        self.cur = before[0]

    def _throw_in(self):
        self.thrown_in, self.ph, self.cur = True, OVER, None
        self._result = {"thrown_in": True, "next_dealer": SEATS[self.pos[0]],
                        "written": {"NS": 0, "EW": 0}}

    def _buy(self, call, s):
        taker = s
        if call == "hokum":
            self.mode, self.buyer = "hokum", s
            if self.round == 1:
                self.trump = self.public >> 3
            else:
                self.ph, self.cur = TRUMP, s
                self.taker = s
                return
        else:
            self.mode = "sun"
            if call == "ashkal":
                taker = (s + 2) % 4
                self.buyer = taker if self.K["ashkal_buyer"] == "partner" else s
            else:
                self.buyer = s
        self.taker = taker
        self._complete()

    def _apply_trump(self, s, ev):
        u = str(ev.get("suit", "")).upper()
        if u not in SUITS or len(u) != 1:
            raise Reject("phase.wrong-action", "no suit")
        if self.round == 2 and SUITS.index(u) == self.public >> 3:
            raise Reject("trump.public-suit", "public card's suit")
        self.trump = SUITS.index(u)
        self._complete()

    def _apply_pickup(self, s):
        # nl Bieden: "Of het is Zon als de speler de twee kaarten optilt voordat hij een kleur
        # voor Hokom noemt." -- a Sun, same buyer (and taker); de: he names the trump, so refused.
        if self.K["pickup_before_trump"] != "sun":
            raise Reject("trump.pickup.refused", "the buyer must name the trump")
        self.mode, self.trump = "sun", SUN
        self._complete()

    def _complete(self):
        if self.deck is not None:
            i = 0
            for p in self.pos:
                if p == self.taker:
                    self.hands[p] |= (1 << self.public) | (1 << self.deck[i]) | (1 << self.deck[i + 1])
                    i += 2
                else:
                    for c in self.deck[i:i + 3]:
                        self.hands[p] |= 1 << c
                    i += 3
        else:
            self.hands = list(self.full)
            self.hands[self.taker] |= 1 << self.public
        self.initial = list(self.hands)
        bt = self.buyer & 1
        self.dq = [p for p in self.pos if p & 1 != bt]
        self.step, self.di = 0, 0
        self.ph, self.cur = DOUBLING, self.dq[0]

    # ---- doubling
    def _sun_double_ok(self, s):
        me, them = self.ms[s & 1], self.ms[1 - (s & 1)]
        rule = self.K["sun_double_allowed"]
        if rule == "smsf":
            return me <= 100 < them
        if rule == "nl":
            return (me > 100 >= them) or (them > 100 >= me)
        return (me > 100 > them) or (them > 100 > me)

    def _double_rule(self, s, call, closed):
        if call not in DWORDS:
            return "double.wrong-step"
        sun = self.mode == "sun"
        if call == "double" and s & 1 == self.buyer & 1:
            return "double.not-opponent"
        if sun and call == "double" and not self._sun_double_ok(s):
            return "double.sun.scores"
        if call != "pass" and (call != STEPWORD[self.step] or (sun and self.step > 0)):
            return "double.wrong-step"
        if closed and (call not in ("double", "four") or sun or not self.K["closed_play"]):
            return "double.closed-choice"
        return None

    def _apply_doubling(self, s, ev):
        call, closed = ev.get("call"), bool(ev.get("closed", False))
        r = self._double_rule(s, call, closed)
        if r:
            raise Reject(r, "%s by %s" % (call, SEATS[s]))
        if call == "pass":
            if self.step == 0:
                self.di += 1
                if self.di < len(self.dq):
                    self.cur = self.dq[self.di]
                    return
            return self._start_play()
        self.doubling.append(call)
        open_raise = self.K["closed_after_buyer_raise"] == "open"
        if call == "double":
            self.doubler, self.closed = s, closed
            if self.mode == "sun":
                return self._start_play()
            self.step, self.cur = 1, self.buyer
        elif call == "triple":
            if open_raise:
                self.closed = False
            self.step, self.cur = 2, self.doubler
        elif call == "four":
            self.closed = closed
            self.step, self.cur = 3, self.buyer
        else:
            if open_raise:
                self.closed = False
            self._start_play()

    # ---- play
    def _start_play(self):
        self.ph = PLAY
        self.leader = self.buyer if self.K["first_lead"] == "buyer" else self.pos[0]
        self.cur = self.leader
        self.trick = []
        self.played = 0
        self.pts = PTS[self.trump]
        self.val = VAL[self.trump]
        self.closed = self.closed and self.mode == "hokum"

    def _play_mask(self, s):
        """-> (legal mask, refusal id of the last narrowing)"""
        h, t = self.hands[s], self.trump
        if not self.trick:
            if self.closed:
                nt = h & ~SUITMASK[t]
                if nt:
                    return nt, "play.closed.no-trump-lead"
            return h, None
        led = self.led
        f = h & SUITMASK[led]
        if f:
            # de Hokum 1 "außer dein Partner liegt vorn"; nl names no such exception (forced)
            if led == t and (self.win_seat != (s + 2) % 4 or self.K["overtrump_partner_winning"] == "forced"):
                hi = f & ABOVE[t][self.win_card]
                if hi:
                    return hi, "play.hokum.overtrump-on-trump-lead"
            return f, "play.follow-suit"
        if t == SUN:
            return h, None
        tr = h & SUITMASK[t]
        if not tr:
            return h, None
        if self.win_seat & 1 != s & 1:
            wc = self.win_card
            w = tr & ABOVE[t][wc] if wc >> 3 == t else tr
            if w:
                return w, "play.hokum.trump-when-opponent-winning"
            if self.forced_under:
                return tr, "play.hokum.undertrump"
            return h, None
        if self.ple and self.win_seat == self.leader and not self.lead_free:
            return tr, "play.hokum.partner-led-exception"
        # nl Spelregels: "Of hij/zij moet een van de Juryleden kaarten spelen in het geval van
        # Hokom rondes" -- void: a trump, even with the partner ahead
        if self.K["trump_when_partner_winning"] == "always":
            return tr, "play.hokum.trump-when-partner-winning"
        return h, None

    def _announce_rule(self, s, c, ev):
        t = self.trump
        if ev.get("ekka"):
            if not (t != SUN and not self.trick and c >> 3 != t
                    and not HIGHER_PLAIN[c] & ~self.played):
                return "play.ekka.not-highest"
        if ev.get("baloot"):
            if t == SUN or c >> 3 != t or (c & 7) not in (1, 2):
                return "play.baloot.invalid"
            other = c ^ 3                            # K <-> Q of the same suit
            if not (self.initial[s] >> other & 1) or self.hands[s] >> other & 1:
                return "play.baloot.invalid"
        names = ev.get("declare")
        if names:
            late = self.K["late_projects"] == "until_third_card"
            if self.tricks and not late:
                return "play.declare.not-first-trick"
            # nl Opmerkingen: "voordat hij zijn derde kaart speelt" -- said with the third card at
            # the latest (as Baloot is said with the card it is said before)
            if late and len(self.tricks) > 2:
                return "play.declare.after-third-card"
            names = [str(n) for n in names]
            new = _pick(self.undeclared(s), names)
            if len(new) != len(names):
                return "play.declare.not-held"
            # de Projekte 1 "nur, wenn noch keiner ein höheres angesagt hat": every name
            # declared, not only the best one, must be at least the opponents' highest
            mine = min(NAMERANK.get(n, 0) for n in names)
            # lower_declaration: anyone reads "keiner" as anybody, the partner included
            anyone = self.K["lower_declaration"] == "anyone"
            for o, ps in self.decls:
                if o != s and (anyone or o & 1 != s & 1) and any(NAMERANK[p[1]] > mine for p in ps):
                    return "play.declare.lower-than-declared"
            if self.tricks:
                # nl: only a project higher than the player before him (the one who plays just
                # before him, his left-hand opponent): higher than the best that player declared,
                # by points, 100 kind, top card, trump sequence; he must have declared one
                before = (s + 3) % 4
                theirs = [p[0] for o, ps in self.decls if o == before for p in ps]
                if not theirs or any(p[0] <= max(theirs) for p in new):
                    return "play.declare.late-not-higher"
        return None

    def undeclared(self, s):
        """The seat's best split less the projects it already declared (best first)."""
        left = list(self.split(s))
        for o, ps in self.decls:
            if o == s:
                for p in ps:
                    left.remove(p)
        return left

    def split(self, s):
        sp = self._splits.get(s)
        if sp is None:
            sp = self._splits[s] = best_split(self.initial[s], self.trump, self.K)
        return sp

    def announcements(self, card):
        """Announcements the player to act may legally make with this card (for simulations)."""
        s, c = self.cur, parse_card(card)
        out = {"ekka": not self.trick and self._announce_rule(s, c, {"ekka": True}) is None,
               "baloot": c >> 3 == self.trump and self._announce_rule(s, c, {"baloot": True}) is None,
               "declare": []}
        if not self.tricks:
            names = [p[1] for p in self.split(s)]
            if names and self._announce_rule(s, c, {"declare": names}) is None:
                out["declare"] = names
        return out

    def _apply_play(self, s, ev):
        c = CARD_IX.get(ev.get("card"))
        if c is None:
            try:
                c = parse_card(ev.get("card"))
            except (ValueError, TypeError, AttributeError):
                raise Reject("play.not-in-hand", "bad card")
        h = self.hands[s]
        if not h >> c & 1:
            raise Reject("play.not-in-hand", CARD[c])
        m, r = self._play_mask(s)
        if not m >> c & 1:
            if self.trick and h & SUITMASK[self.led] and c >> 3 != self.led:
                r = "play.follow-suit"
            raise Reject(r, CARD[c])
        ekka, decl, bal = ev.get("ekka"), ev.get("declare"), ev.get("baloot")
        if ekka or decl or bal:
            r = self._announce_rule(s, c, ev)
            if r:
                raise Reject(r, CARD[c])
            if decl:
                self.decls.append((s, _pick(self.undeclared(s), [str(n) for n in decl])))
            if bal:
                self.baloot_said[s] = True
        self.hands[s] = h & ~(1 << c)
        self.played |= 1 << c
        tr = self.trick
        if not tr:
            self.leader, self.led, self.win_seat, self.win_card = s, c >> 3, s, c
            self.lead_free = c & 7 == 0 or bool(ekka and self.K["ekka"])   # ekka: false -> no relief
        else:
            w, val = self.win_card, self.val
            if val[c] > val[w] and (c >> 3 == w >> 3 or c >> 3 == self.trump):
                self.win_seat, self.win_card = s, c
        tr.append(c)
        if len(tr) < 4:
            self.cur = (s + 1) % 4
            return
        w = self.win_seat
        pts = self.pts
        self.card_points[w & 1] += pts[tr[0]] + pts[tr[1]] + pts[tr[2]] + pts[tr[3]]
        self.tricks_won[w & 1] += 1
        self.tricks.append((SEATS[self.leader], [CARD[x] for x in tr], SEATS[w]))
        self.trick = []
        if len(self.tricks) == 8:
            self.card_points[w & 1] += 10
            return self._finish()
        self.cur = w

    def _credit_projects(self):
        team, cred = _resolve(self.decls, self.K, self.pos)
        self.credited_team = None if team is None else TEAMS[team]
        self._cred = cred
        for s, ps in cred.items():
            self.credited[TEAMS[s & 1]].extend(p[1] for p in ps)

    def _finish(self):
        self._credit_projects()         # after every declaration (nl: up to the third card)
        t, K = self.trump, self.K
        bal = [False, False]
        if t != SUN:
            kq = (1 << (t * 8 + 1)) | (1 << (t * 8 + 2))
            for s in range(4):
                if self.initial[s] & kq == kq:
                    hp = self._cred.get(s, [])
                    if (self.baloot_said[s] or _baloot_auto(hp, t, K)) and \
                            not _baloot_blocked(_baloot_cancellers(hp, self.split(s), K), t, K):
                        bal[s & 1] = True
        self.baloot_credit = {"NS": bal[0], "EW": bal[1]}
        sun = t == SUN
        pp = PPTS_S if sun else PPTS_H
        ppts = [sum(pp[n] for n in self.credited[tm]) for tm in TEAMS]
        praw = [sum(PRAW[n] for n in self.credited[tm]) for tm in TEAMS]
        r = score_core(sun, self.buyer & 1, self.doubling, self.card_points, self.tricks_won,
                       ppts, praw, bal, self.K)
        r["thrown_in"] = False
        r["next_dealer"] = SEATS[self.pos[0]]
        r["card_points"] = {"NS": self.card_points[0], "EW": self.card_points[1]}
        r["tricks"] = {"NS": self.tricks_won[0], "EW": self.tricks_won[1]}
        r["projects"] = {tm: list(v) for tm, v in self.credited.items()}
        r["baloot"] = dict(self.baloot_credit)
        self._result = r
        self.ph, self.cur = OVER, None
