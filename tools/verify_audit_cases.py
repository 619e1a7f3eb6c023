#!/usr/bin/env python3
"""Cross-check the audit cases (conformance/cases/audit/*.json) with the independent ORACLE.

    python tools/verify_audit_cases.py [FILE ...] [-v]

For every case of kind `audit`, two checks, both with tools/oracle only (no baloot_spec):

1. The planted fault. For every expected violation at an event
   (`$.hands[k].events[j]`), the events of that hand before it are replayed with the oracle
   (earlier hands first, for the match scores) and the event is applied: it must raise
   `Reject` with exactly the expected rule.
2. The whole report. The log is audited by a small referee built on the oracle: every event is
   applied; a refused event that was physically possible (the seat's turn, the card held) is
   recorded and forced through (obligations bypassed, a refused announcement taken as not made),
   and the check goes on from what the log records (conformance/LOGS.md): a card played out of
   turn is played by its seat, the turn then passing to the first seat after the trick's first
   card that has not played; a card the deal gave another seat is taken from it, which gets in
   return the acting seat's card it later plays (else one the acting seat never plays); a call
   out of turn, a card its holder plays later or that nobody holds, and `phase.wrong-action`
   are recorded and end the check of the log; then the dealer, the match
   scores, `hand.incomplete`, every `claimed` value, `match.ended` and the claimed final scores
   and winner. Its violations must be exactly `expect.violations` (path and rule).

Exit 0 when every case passes both checks, 1 otherwise, 2 on unreadable input.
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from oracle import oracle as O  # noqa: E402
from verify_games import TEAMS, knobs_of, oracle_claims, _norm  # noqa: E402

DEFAULT_DIR = os.path.join(ROOT, "conformance", "cases", "audit")
CLAIM_RULE = {
    "thrown_in": "claimed.thrown_in", "buyer": "fact.buyer", "mode": "fact.mode", "trump": "claimed.trump",
    "card_points": "fact.card-points", "projects": "fact.projects", "counting_team": "score.counting-team",
    "converted": "score.converted", "totals": "score.totals", "winner": "score.winner",
    "kaboot": "score.kaboot", "gahwa": "score.gahwa", "written": "score.written",
}
ANNOUNCE = ("ekka", "baloot", "declare")
CUT_FIELD = {"deal.cut.cutter": ".deal.cut.by", "deal.cut.option": ".deal.cut.option", "deal.cut.receiver": ".deal.cut.to"}
EVENT_PATH = re.compile(r"^\$\.hands\[(\d+)\]\.events\[(\d+)\]$")


def force(h: O.Hand, ev: dict) -> None:
    """Apply an event the oracle refuses but that really happened (the seat's turn, the card held):
    the obligations are bypassed for this one event; a refused announcement counts as not made."""
    ev = dict(ev)
    if ev.get("type") == "play":
        for key in ANNOUNCE:            # drop each announcement the oracle refuses on its own
            if key in ev:
                probe = h.copy()
                probe._play_mask = lambda s, p=probe: (p.hands[s], None)
                try:
                    probe.apply({k: v for k, v in ev.items() if k not in ANNOUNCE or k == key})
                except O.Reject:
                    del ev[key]
        h._play_mask = lambda s: (h.hands[s], None)
    elif ev.get("type") == "bid":
        h._bid_rule = lambda s, call: (None, call)
    elif ev.get("type") == "double":
        h._double_rule = lambda s, call, closed: None
    try:
        h.apply(ev)
    finally:
        for name in ("_play_mask", "_bid_rule", "_double_rule"):
            h.__dict__.pop(name, None)


def _step(h: O.Hand, ev: dict, later: list, seats_in_trick: list, report):
    """Apply one recorded event as the referee does, calling report(rule) for each refusal; the
    seats that have played to the current trick after it, or None if the check of the log ends."""
    in_play = h.phase() == O.PLAY and ev.get("type") == "play"
    rule = h.check(ev)
    while rule is not None:
        report(rule)
        if rule not in ("turn.out-of-turn", "play.not-in-hand"):
            force(h, ev)
            break
        if not _take_as_recorded(h, ev, rule, later):
            return None
        rule = h.check(ev)           # made possible: judged again (an obligation too)
    else:
        h.apply(ev)
    if in_play:
        seats_in_trick = [] if not h.trick else seats_in_trick + [ev["seat"]]
        if h.trick and h.cur is not None:
            _resume(h, seats_in_trick)
    return seats_in_trick


def _take_as_recorded(h: O.Hand, ev: dict, rule: str, later: list) -> bool:
    """Make an event refused as out of turn or not held possible (see the docstring); False if
    it ends the check: a call out of turn, a card nobody holds or that its holder plays later."""
    seat = O.SIX.get(ev.get("seat"))
    if rule == "turn.out-of-turn":
        if h.phase() != O.PLAY or ev.get("type") != "play" or seat is None:
            return False
        h.cur = seat
        return True
    card = O.CARD_IX.get(ev.get("card"))
    holder = next((s for s in range(4) if s != seat and card is not None and h.hands[s] >> card & 1), None)
    if holder is None or not h.hands[seat]:
        return False
    plays = [(O.SIX.get(e.get("seat")), O.CARD_IX.get(e.get("card"))) for e in later if e.get("type") == "play"]
    if (holder, card) in plays:
        return False
    mine = [c for c in range(32) if h.hands[seat] >> c & 1]
    by_holder = [c for s, c in plays if s == holder and c in mine]
    by_seat = {c for s, c in plays if s == seat}
    given = by_holder[0] if by_holder else next((c for c in mine if c not in by_seat), mine[0])
    h.hands[seat] = (h.hands[seat] & ~(1 << given)) | (1 << card)
    h.hands[holder] = (h.hands[holder] & ~(1 << card)) | (1 << given)
    return True


def _resume(h: O.Hand, seats_in_trick: list) -> None:
    """The turn in a trick with a card out of turn: the first seat after the trick's first card
    that has not played to it (counter-clockwise, seat i+1 after seat i)."""
    first = O.SIX[seats_in_trick[0]]
    for step in range(1, 4):
        seat = (first + step) % 4
        if O.SEATS[seat] not in seats_in_trick:
            h.cur = seat
            return


def oracle_audit(doc: dict) -> list[dict]:
    """The violations (path, rule) the oracle-based referee reports for one log."""
    out = []
    knobs = knobs_of(doc.get("variant") or {})
    match = doc.get("match") or {}
    start = match.get("start") or {"NS": 0, "EW": 0}
    scores = {t: start.get(t, 0) for t in TEAMS}
    dealer = match.get("first_dealer")
    winner, ended = None, False

    def v(path, rule):
        out.append({"path": path, "rule": rule})

    for k, rec in enumerate(doc.get("hands") or []):
        base = "$.hands[%d]" % k
        if ended:
            v(base, "match.ended")
            return out
        if rec["dealer"] != dealer:
            v(base + ".dealer", "deal.dealer")
        if "match_scores" in rec and {t: rec["match_scores"].get(t) for t in TEAMS} != scores:
            v(base + ".match_scores", "match.scores")
        try:
            h = O.Hand(rec["dealer"], rec["deal"], dict(scores), knobs)
        except O.Reject as exc:     # a refused cut (README "A deal"): at the record's field
            v(base + CUT_FIELD[exc.rule], exc.rule)
            return out
        events = rec.get("events") or []
        seats_in_trick = []                 # who played to the current trick, in order
        for j, ev in enumerate(events):
            seats_in_trick = _step(h, ev, events[j + 1:], seats_in_trick, lambda rule, j=j: v("%s.events[%d]" % (base, j), rule))
            if seats_in_trick is None:
                return out
        if h.result() is None:
            v(base + ".events", "hand.incomplete")
            return out
        mine = oracle_claims(h)
        claimed = rec.get("claimed") or {}
        if "thrown_in" in claimed and claimed["thrown_in"] != mine["thrown_in"]:
            v(base + ".claimed.thrown_in", "claimed.thrown_in")
        elif not mine["thrown_in"]:
            for key, value in claimed.items():
                if key in mine and _norm(key, value) != _norm(key, mine[key]):
                    v("%s.claimed.%s" % (base, key), CLAIM_RULE[key])
        r = h.result()
        dealer = r["next_dealer"]
        if r["thrown_in"]:
            continue
        finished = O.match_after(scores, r["written"], r["winner"] if r["gahwa"] else None, knobs)
        if finished:
            winner, ended = finished, True
    claimed = doc.get("claimed") or {}
    if "scores" in claimed and {t: claimed["scores"].get(t) for t in TEAMS} != scores:
        v("$.claimed.scores", "match.scores")
    if "winner" in claimed and claimed["winner"] != winner:
        v("$.claimed.winner", "match.winner")
    return out


def fault_check(doc: dict, path: str, rule: str):
    """Replay up to the event at `path` and apply it: None if it raises Reject(rule), else a message."""
    m = EVENT_PATH.match(path)
    knobs = knobs_of(doc.get("variant") or {})
    k, j = int(m.group(1)), int(m.group(2))
    start = (doc.get("match") or {}).get("start") or {"NS": 0, "EW": 0}
    scores = {t: start.get(t, 0) for t in TEAMS}
    for rec in doc["hands"][:k]:                    # earlier hands: only for the match scores
        h = O.Hand(rec["dealer"], rec["deal"], dict(scores), knobs)
        for ev in rec["events"]:
            h.apply(ev)
        if not h.result()["thrown_in"]:
            for t in TEAMS:
                scores[t] += h.result()["written"][t]
    rec = doc["hands"][k]
    h = O.Hand(rec["dealer"], rec["deal"], dict(scores), knobs)
    seats_in_trick = []
    for i, ev in enumerate(rec["events"][:j]):   # an earlier fault of the same hand: as the referee goes on
        seats_in_trick = _step(h, ev, rec["events"][i + 1:], seats_in_trick, lambda rule: None)
        if seats_in_trick is None:
            return "the check of the hand ends before this event"
    try:
        h.apply(rec["events"][j])
    except O.Reject as exc:
        return None if exc.rule == rule else "the oracle refuses it with %s, expected %s" % (exc.rule, rule)
    return "the oracle accepts it, expected a refusal by %s" % rule


def _key(v):
    return (v["path"], v["rule"])


def run(files) -> tuple[int, int, list]:
    passed, failed, lines = 0, 0, []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            cases = json.load(fh)["cases"]
        for case in cases:
            if case.get("kind") != "audit":
                continue
            doc = case["setup"]["log"]
            expected = sorted(({"path": x["path"], "rule": x["rule"]} for x in case["expect"]["violations"]), key=_key)
            problems = []
            faults = 0
            for x in expected:
                if EVENT_PATH.match(x["path"]):
                    faults += 1
                    msg = fault_check(doc, x["path"], x["rule"])
                    if msg:
                        problems.append("%s: %s" % (x["path"], msg))
            try:
                actual = sorted(oracle_audit(doc), key=_key)
            except Exception as exc:                    # a bad deal, an unknown card...
                actual = [{"path": "$", "rule": "error: %s: %s" % (type(exc).__name__, exc)}]
            if actual != expected:
                problems.append("the oracle's referee reports %s, expected %s"
                                % (json.dumps([[a["path"], a["rule"]] for a in actual]),
                                   json.dumps([[e["path"], e["rule"]] for e in expected])))
            if problems:
                failed += 1
                lines.append("FAIL %s (%s)" % (case["id"], os.path.relpath(f, ROOT)))
                lines += ["  " + p for p in problems]
            else:
                passed += 1
                lines.append("ok   %s  (%d event fault%s refused by the oracle as expected)"
                             % (case["id"], faults, "" if faults == 1 else "s"))
    return passed, failed, lines


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    verbose = "-v" in argv
    paths = [a for a in argv if a != "-v"] or [DEFAULT_DIR]
    files = []
    for p in paths:
        files += sorted(glob.glob(os.path.join(p, "*.json"))) if os.path.isdir(p) else [p]
    try:
        passed, failed, lines = run(files)
    except (OSError, ValueError, KeyError) as exc:
        print("unreadable: %s" % exc)
        return 2
    for line in lines:
        if verbose or not line.startswith("ok"):
            print(line)
    print("%d audit cases agree with the oracle, %d disagree" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
