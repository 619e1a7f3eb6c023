#!/usr/bin/env python3
"""Replay every game log of the corpus with the independent ORACLE and compare every claim.

    python tools/verify_games.py [PATH ...]        (default: conformance/games)

PATH is a .json file (one baloot-log/1 document), a .jsonl file (one document per line) or a
directory (every .json/.jsonl below it). Each hand is replayed with tools/oracle (which shares no
code with baloot_spec): every event must be accepted, the hand must end, the dealer must be the
one the deal passes to, `match_scores` must be the written scores so far, every `claimed` value
of the hand must equal the oracle's result, no hand may follow the end of the match, and the
document's claimed final `scores` and `winner` must equal the oracle's match. Prints every
difference; exit 0 when there is none, 1 otherwise, 2 on unreadable input.
"""

from __future__ import annotations

import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from oracle import oracle as O  # noqa: E402
from oracle.presets import PRESETS  # noqa: E402

DEFAULT_DIR = os.path.join(ROOT, "conformance", "games")
TEAMS = ("NS", "EW")


class Unreadable(Exception):
    pass


def knobs_of(variant: dict) -> dict:
    preset = variant.get("preset", "default")
    if preset not in PRESETS:
        raise Unreadable("the oracle has no preset %r" % preset)
    if variant.get("overlays"):
        raise Unreadable("the oracle cannot read overlays %r" % variant["overlays"])
    knobs = dict(PRESETS[preset])
    knobs.update(variant.get("set") or {})
    return knobs


def oracle_claims(h: O.Hand) -> dict:
    """The oracle's values for every key a hand's `claimed` may hold."""
    r = h.result()
    if r["thrown_in"]:
        return {"thrown_in": True}
    out = {key: r[key] for key in ("card_points", "counting_team", "converted", "totals", "winner",
                                   "kaboot", "gahwa", "written")}
    out["thrown_in"] = False
    out["buyer"] = O.SEATS[h.buyer]
    out["mode"] = h.mode
    out["trump"] = None if h.trump == O.SUN else O.SUITS[h.trump]
    out["projects"] = {t: sorted(r["projects"][t]) for t in TEAMS}
    return out


def _norm(key, value):
    if key == "projects" and isinstance(value, dict):
        return {t: sorted(str(n) for n in value.get(t, [])) for t in TEAMS}
    return value


def verify_document(doc: dict, where: str) -> tuple[list, dict]:
    """-> (differences as strings, a summary) for one baloot-log/1 document."""
    diffs = []
    summary = {"hands": 0, "events": 0, "claims": 0}

    def diff(path, text):
        diffs.append("%s: %s: %s" % (where, path, text))

    if doc.get("format") != "baloot-log/1":
        diff("$.format", "not baloot-log/1: %r" % doc.get("format"))
        return diffs, summary
    knobs = knobs_of(doc.get("variant") or {})
    match = doc.get("match") or {}
    start = match.get("start") or {"NS": 0, "EW": 0}
    scores = {t: start.get(t, 0) for t in TEAMS}
    dealer = match.get("first_dealer")
    winner, ended_after = None, None
    for k, rec in enumerate(doc.get("hands") or []):
        base = "$.hands[%d]" % k
        if ended_after is not None:
            diff(base, "a hand after the match ended (after hand %d)" % (ended_after + 1))
            break
        summary["hands"] += 1
        if rec.get("dealer") != dealer:
            diff(base + ".dealer", "log %r, the deal passes to %r" % (rec.get("dealer"), dealer))
        if "match_scores" in rec and {t: rec["match_scores"].get(t) for t in TEAMS} != scores:
            diff(base + ".match_scores", "log %s, written so far %s" % (rec["match_scores"], scores))
        try:
            h = O.Hand(rec["dealer"], rec["deal"], dict(scores), knobs)
        except (KeyError, ValueError, IndexError, TypeError) as exc:
            diff(base + ".deal", "the oracle cannot deal it: %s" % exc)
            break
        stopped = False
        for j, ev in enumerate(rec.get("events") or []):
            try:
                h.apply(ev)
            except O.Reject as exc:
                diff("%s.events[%d]" % (base, j), "refused by the oracle: %s (%s)" % (exc.rule, exc.message))
                stopped = True
                break
            summary["events"] += 1
        if stopped:
            break
        if h.result() is None:
            diff(base + ".events", "the hand is not over: %s to act in phase %s" % (h.turn(), h.phase()))
            break
        mine = oracle_claims(h)
        claimed = rec.get("claimed") or {}
        for key, value in claimed.items():
            if key not in mine:
                if mine["thrown_in"] and key != "thrown_in":
                    diff("%s.claimed.%s" % (base, key), "claimed %s for a thrown-in hand" % json.dumps(value))
                else:
                    diff("%s.claimed.%s" % (base, key), "unknown claimed key")
                continue
            summary["claims"] += 1
            if _norm(key, value) != _norm(key, mine[key]):
                diff("%s.claimed.%s" % (base, key), "log %s, oracle %s" % (json.dumps(value), json.dumps(mine[key])))
        r = h.result()
        dealer = r["next_dealer"]
        if r["thrown_in"]:
            continue
        ended = O.match_after(scores, r["written"], r["winner"] if r["gahwa"] else None, knobs)
        if ended:
            winner, ended_after = ended, k
    else:
        claimed = doc.get("claimed") or {}
        if "scores" in claimed:
            summary["claims"] += 1
            if {t: claimed["scores"].get(t) for t in TEAMS} != scores:
                diff("$.claimed.scores", "log %s, oracle %s" % (json.dumps(claimed["scores"]), json.dumps(scores)))
        if "winner" in claimed:
            summary["claims"] += 1
            if claimed["winner"] != winner:
                diff("$.claimed.winner", "log %s, oracle %s" % (json.dumps(claimed["winner"]), json.dumps(winner)))
    summary["winner"], summary["scores"] = winner, scores
    return diffs, summary


def documents(paths):
    """Yield (display name, document) for every document under the paths."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "**", "*.json"), recursive=True)
                            + glob.glob(os.path.join(p, "**", "*.jsonl"), recursive=True))
        else:
            files.append(p)
    for f in files:
        name = os.path.relpath(f, ROOT) if os.path.abspath(f).startswith(ROOT + os.sep) else f
        try:
            with open(f, encoding="utf-8") as fh:
                if f.endswith(".jsonl"):
                    for n, line in enumerate(fh, 1):
                        if line.strip():
                            yield "%s:%d" % (name, n), json.loads(line)
                else:
                    yield name, json.load(fh)
        except (OSError, ValueError) as exc:
            raise Unreadable("%s: %s" % (name, exc))


def verify(paths=None) -> tuple[list, int, dict]:
    """-> (every difference, number of documents, totals)."""
    all_diffs, count = [], 0
    totals = {"hands": 0, "events": 0, "claims": 0}
    for name, doc in documents(paths or [DEFAULT_DIR]):
        count += 1
        diffs, summary = verify_document(doc, name)
        all_diffs += diffs
        for key in totals:
            totals[key] += summary[key]
    return all_diffs, count, totals


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        diffs, count, totals = verify(argv or None)
    except Unreadable as exc:
        print("unreadable: %s" % exc)
        return 2
    for d in diffs:
        print(d)
    print("%d documents, %d hands, %d events, %d claims replayed with the oracle: %d differences"
          % (count, totals["hands"], totals["events"], totals["claims"], len(diffs)))
    if count == 0:
        print("no game logs found")
        return 1
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
