"""Differential test: the DSL engine (rules/*.yaml) against the independent oracle (tools/oracle).

    python tools/crosscheck.py --hands N [--matches M] [--seed S] [--preset P|all] [--set KNOB=VALUE ...] [--out DIR] [--cuts]

Plays seeded random hands (and whole matches) through both engines in lock step. At every step
it compares whose turn it is, the phase and the legal set; it tries announcements and a few
illegal events on both and compares the refusal ids; after each trick the winner; at the end
every scoring value, the credited projects and the Baloot; after each match hand the match
state. The first disagreement is printed with its position and written to --out as a
conformance case for a human to judge. Exit 0: no disagreement, 1: disagreement, 2: usage.

With --cuts every random deal also records a random cut (the cutter mostly right, any option
of the nl list, a `to` mostly right): both engines must deal it the same way or refuse it with
the same rule id (a refused deal counts as a hand). Without --cuts the hands are those of
earlier versions of this tool.

Hand i of seed S under preset P is played from random.Random("S/P/hand/i") alone, so any hand
can be replayed without the ones before it. `--set` changes knobs in both engines (the DSL resolves
the value; the oracle gets the resolved value), on top of each preset.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tools")]

from baloot_spec.conformance.runner import run_match  # noqa: E402
from baloot_spec.engine.deal import DealError  # noqa: E402
from baloot_spec.engine.hand import Hand as DslHand  # noqa: E402
from baloot_spec.errors import BalootError, IllegalAction  # noqa: E402
from baloot_spec.rules import load_variant  # noqa: E402
from oracle import oracle as O  # noqa: E402
from oracle.presets import PRESETS  # noqa: E402

ALL_PRESETS = ["default", "nl-rulebook", "saudi-federation", "riyadh", "online-apps"]
PHASES = {}                  # DSL phase name -> oracle phase name where they differ (none today)
SCORE_KEYS = ("counting_team", "converted", "totals", "winner", "written", "kaboot", "gahwa",
              "card_points", "tricks")
CASE_SCORE_KEYS = ("counting_team", "converted", "totals", "winner", "written", "kaboot", "gahwa",
                   "thrown_in", "next_dealer")
MATCH_SCORES = (0, 40, 99, 100, 101, 130, 151)   # around the Sun-doubling thresholds
PROJECT_NAMES = ("sira", "50", "100", "400")
USAGE, FOUND, OK = 2, 1, 0
UNDECIDED = "undecided"      # a reject case's expect when both engines accepted an event outside legal()


class Disagreement(Exception):
    """The engines answer one question differently; `kind` is the case kind that pins it."""

    def __init__(self, what, dsl, oracle, kind, action=None):
        super().__init__(what)
        self.what, self.dsl, self.oracle, self.kind, self.action = what, dsl, oracle, kind, action


def canonical(action: dict) -> tuple:
    """An action as a comparable, hashable key: no seat; a double without `closed` is an open one."""
    items = [(k, tuple(v) if isinstance(v, list) else v) for k, v in action.items() if k != "seat"]
    if action.get("type") == "double" and "closed" not in action:
        items.append(("closed", False))
    return tuple(sorted(items))


def as_json(key: tuple) -> str:
    """A canonical key as canonical JSON (for reports and cases)."""
    return json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in key}, sort_keys=True)


class Clock:
    """CPU time spent inside each engine, to compare their speed on the very same hands (CPU
    time, so that other work on the machine does not tilt the comparison)."""

    def __init__(self):
        self.dsl = self.oracle = 0.0

    def run(self, side, fn, *args):
        t = time.process_time()
        try:
            return fn(*args)
        finally:
            setattr(self, side, getattr(self, side) + time.process_time() - t)


def dsl_refusal(hand, event):
    r = hand.check(event)
    return None if r is None else r.rule_id


class Lockstep:
    """One hand in both engines; every question is asked of both and the answers compared."""

    def __init__(self, rules, knobs, dealer, deal, match_scores, clock):
        self.clock = clock
        self.dealer, self.deal, self.match_scores = dealer, deal, match_scores
        self.events: list[dict] = []
        self.refused = None             # a deal both engines refuse: the rule id (None: unreadable)
        dsl_error = orc_error = False
        try:
            self.dsl = clock.run("dsl", DslHand, rules, dealer, deal, match_scores)
        except DealError as exc:
            dsl_error, dsl_rule = True, exc.rule
        try:
            self.orc = clock.run("oracle", O.Hand, dealer, deal, match_scores, knobs)
        except O.Reject as exc:
            orc_error, orc_rule = True, exc.rule
        except ValueError:
            orc_error, orc_rule = True, None
        if dsl_error or orc_error:
            dsl_says = {"deal": "refused", "rule": dsl_rule} if dsl_error else {"deal": "dealt"}
            orc_says = {"deal": "refused", "rule": orc_rule} if orc_error else {"deal": "dealt"}
            if dsl_says != orc_says:
                raise Disagreement("the engines do not deal %s alike" % json.dumps(deal.get("cut")),
                                   dsl_says, orc_says, "legal")
            self.refused = dsl_says

    def position(self):
        """Compare turn, phase and legal set; return (seat, DSL legal list)."""
        c = self.clock
        turn = (c.run("dsl", self.dsl.turn), c.run("oracle", self.orc.turn))
        phase = (self.dsl.phase, c.run("oracle", self.orc.phase))
        legal = (c.run("dsl", self.dsl.legal), c.run("oracle", self.orc.legal))
        keys = [sorted(map(canonical, side)) for side in legal]    # a list: a duplicate is a difference
        phase = (PHASES.get(phase[0], phase[0]), phase[1])
        if turn[0] != turn[1] or phase[0] != phase[1] or keys[0] != keys[1]:
            answers = [{"turn": turn[i], "phase": phase[i], "legal": [as_json(k) for k in keys[i]]} for i in (0, 1)]
            what = [k for k in ("turn", "phase", "legal") if answers[0][k] != answers[1][k]]
            raise Disagreement("different " + " and ".join(what), answers[0], answers[1], "legal")
        return turn[0], legal[0]

    def refusals(self, event):
        c = self.clock
        d = c.run("dsl", dsl_refusal, self.dsl, event)
        o = c.run("oracle", self.orc.check, event)
        if d != o:
            raise Disagreement("different refusal of %s" % json.dumps(event), {"reject": d}, {"reject": o},
                               "reject", action=event)
        return d

    def apply(self, event):
        c = self.clock
        before = len(self.dsl.state.tricks)
        try:
            c.run("dsl", self.dsl.apply, event)
        except IllegalAction as exc:
            raise Disagreement("the DSL engine refuses an event the oracle accepts", {"reject": exc.rule_id},
                               {"reject": None}, "reject", action=event) from None
        try:
            c.run("oracle", self.orc.apply, event)
        except O.Reject as exc:
            raise Disagreement("the oracle refuses an event the DSL engine accepts", {"reject": None},
                               {"reject": exc.rule}, "reject", action=event) from None
        self.events.append(event)
        tricks = self.dsl.state.tricks
        if len(tricks) > before:
            t, (lead, cards, winner) = tricks[-1], self.orc.tricks[-1]
            mine = {"leader": t.leader, "cards": [c.text for c in t.cards], "winner": t.winner}
            theirs = {"leader": lead, "cards": cards, "winner": winner}
            if mine != theirs:
                raise Disagreement("different trick winner", mine, theirs, "legal")

    def result(self):
        """Compare the results; return the DSL result."""
        r, o = self.dsl.result(), self.orc.result()
        keys = ("thrown_in", "next_dealer")
        if not r["thrown_in"] and not o["thrown_in"]:
            keys += SCORE_KEYS
        mine = {k: _plain(r.get(k)) for k in keys}
        theirs = {k: o.get(k) for k in keys}
        if not r["thrown_in"] and not o["thrown_in"]:
            facts = self.dsl.facts
            mine["credited"] = {t: sorted(v) for t, v in facts.projects.items()}
            mine["baloot"] = dict(facts.baloot)
            theirs["credited"] = {t: sorted(v) for t, v in self.orc.credited.items()}
            theirs["baloot"] = dict(self.orc.baloot_credit)
        if mine != theirs:
            what = [k for k in mine if mine[k] != theirs.get(k)]
            raise Disagreement("different result: " + ", ".join(what), mine, theirs, "hand")
        return r


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


# ---------------------------------------------------------------- random choices

def choose(rng, legal, phase, doubling_pass=0.0):
    """A random legal action; in the bidding a pass half the time, so round two is reached, and
    in the doubling a pass with probability `doubling_pass` (matches: fewer end on a Gahwa)."""
    bias = {"bidding": 0.5, "doubling": doubling_pass}.get(phase, 0.0)
    if bias and rng.random() < bias:
        passes = [a for a in legal if a.get("call") == "pass"]
        if passes:
            return dict(passes[0])
    return dict(rng.choice(legal))


def announcement_trials(rng, ls, seat, card):
    """Announcements to try with a play: what a careful player says, and now and then a wrong one."""
    S = ls.dsl.state
    trials = []
    first_trick = not S.tricks
    names = [p.name for p in (S.projects or {}).get(seat, [])]
    if first_trick and names:
        r = rng.random()
        if r < 0.65:
            declare = names
        elif r < 0.75:
            declare = None                      # forgotten (a late declaration may follow)
        elif r < 0.9 and len(names) > 1:
            declare = rng.sample(names, rng.randint(1, len(names) - 1))
        else:
            declare = [rng.choice(PROJECT_NAMES)]
        if declare:
            trials.append({"declare": declare})
    elif names and len(S.tricks) <= 3 and rng.random() < 0.5:
        # a late declaration (nl late_projects): what the player has not declared yet, now and
        # then everything he holds again (a project is declared once)
        left = list(names)
        for d in S.declared:
            if d["seat"] == seat and d["name"] in left:
                left.remove(d["name"])
        trials.append({"declare": left if left and rng.random() < 0.8 else names})
    elif rng.random() < 0.03:
        trials.append({"declare": [rng.choice(PROJECT_NAMES)]})
    if (S.mode == "hokum" and card[1] == S.trump and card[0] in "KQ") or rng.random() < 0.03:
        trials.append({"baloot": True})
    if not S.trick or rng.random() < 0.03:
        trials.append({"ekka": True})
    return trials


def probe(rng, ls, seat, legal, phase):
    """A random event that is not in the legal set (or out of turn), to compare refusal ids."""
    r = rng.random()
    if r < 0.05:
        return {"seat": rng.choice([s for s in "NESW" if s != seat]), "type": "play", "card": "AS"}
    if r < 0.1:
        types = {a["type"] for a in legal}
        kind = rng.choice([t for t in ("bid", "trump", "pickup", "double", "play") if t not in types])
        return {"seat": seat, "type": kind, **({"card": "7C"} if kind == "play" else {"call": "pass"}
                                                if kind in ("bid", "double") else {} if kind == "pickup" else {"suit": "S"})}
    if phase == "play":
        pool = [{"type": "play", "card": c} for c in O.CARD]
    elif phase == "bidding":
        pool = [{"type": "bid", "call": c} for c in O.BIDCALLS]
    elif phase == "trump":
        pool = [{"type": "trump", "suit": s} for s in O.SUITS] + [{"type": "pickup"}]
    else:
        pool = [{"type": "double", "call": c, "closed": x} for c in O.DWORDS for x in (False, True)]
    legal_set = {canonical(a) for a in legal}
    pool = [a for a in pool if canonical(a) not in legal_set]
    if phase == "play" and rng.random() < 0.8:          # mostly cards the player holds
        held = {c.text for c in ls.dsl.state.hands[seat]}
        pool = [a for a in pool if a["card"] in held] or pool
    return dict(rng.choice(pool), seat=seat) if pool else None


def play_hand(rng, rules, knobs, dealer, deal, match_scores, clock, doubling_pass=0.0):
    """Play one hand in lock step to its end; return the Lockstep (Disagreement on a difference)."""
    ls = Lockstep(rules, knobs, dealer, deal, match_scores, clock)
    if ls.refused is not None:
        return ls
    try:
        _play(rng, ls, doubling_pass)
    except Exception as exc:
        exc.lockstep = ls            # the position, for the report
        raise
    return ls


def _play(rng, ls, doubling_pass):
    while True:
        seat, legal = ls.position()
        if seat is None:
            ls.result()
            return
        phase = ls.dsl.phase
        if rng.random() < 0.2:
            bad = probe(rng, ls, seat, legal, phase)
            if bad is not None and ls.refusals(bad) is None:
                raise Disagreement("both accept an event outside the legal set", {"reject": None},
                                   {"reject": None}, "reject", action=bad)
        action = dict(choose(rng, legal, phase, doubling_pass), seat=seat)
        if action["type"] == "play":
            for extra in announcement_trials(rng, ls, seat, action["card"]):
                if ls.refusals(dict(action, **extra)) is None:
                    action.update(extra)
        ls.apply(action)


def random_setup(rng, rules, match_scores=None, cuts=False):
    deck = [c.text for c in rules.deck.cards]
    rng.shuffle(deck)
    if match_scores is None:
        match_scores = {"NS": rng.choice(MATCH_SCORES), "EW": rng.choice(MATCH_SCORES)}
    dealer = rng.choice(rules.table.seats)
    deal = {"deck": deck}
    if cuts:
        deal["cut"] = random_cut(rng, rules, dealer)
    return dealer, deal, match_scores


def random_cut(rng, rules, dealer):
    """A cut record: mostly by the dealer's left (p3), any option, a `to` mostly the partner (p1)."""
    seats = rules.table.seats
    left, partner = rules.table.after(dealer, 3), rules.table.after(dealer, 1)
    cut = {"by": left if rng.random() < 0.9 else rng.choice(seats), "option": rng.choice(O.ALL_CUT_OPTIONS)}
    if cut["option"] == "bottom_to_partner":
        cut["to"] = partner if rng.random() < 0.9 else rng.choice(seats)
    return cut


# ---------------------------------------------------------------- reporting a disagreement

AREA = {"bidding": "bidding", "trump": "bidding", "doubling": "doubling", "play": "play"}
FEATURES = {"bidding": ["bidding.first-pass"], "trump": ["bidding.trump-naming"],
            "doubling": ["doubling.hokum"], "play": ["play.follow-suit"]}


def make_case(preset, ls, dis, where, sets=None):
    """A conformance case that reproduces the disagreement; `expect` holds the DSL's answer."""
    variant = {"preset": preset, "set": dict(sets)} if sets else {"preset": preset}
    if dis.kind == "match":
        return {"id": "match.crosscheck.new", "title": "cross-check: " + dis.what, "kind": "match",
                "source": {"ref": "choice: to be decided from the rulebooks (found by tools/crosscheck.py)"},
                "features": ["match.end"], "variant": variant, "setup": dis.match_setup,
                "expect": {k: v for k, v in dis.dsl.items()},
                "note": "Found by tools/crosscheck.py (%s). expect = the DSL engine's answer; the oracle answers %s."
                        % (where, json.dumps(dis.oracle, sort_keys=True))}
    phase = ls.dsl.phase
    setup = {"dealer": ls.dealer, "match_scores": ls.match_scores, "deal": ls.deal, "events": list(ls.events)}
    if dis.kind == "hand":
        area, features = "scoring", ["scoring.write"]
        expect = {k: _plain(v) for k, v in (ls.dsl.result() or {}).items() if k in CASE_SCORE_KEYS}
    elif dis.kind == "reject":
        area, features = AREA.get(phase, "play"), FEATURES.get(phase, ["play.announcements"])
        if dis.action.get("type") == "play" and len(dis.action) > 3:
            features = ["play.announcements"]
        expect = {"reject": dis.dsl["reject"] or dis.oracle["reject"] or UNDECIDED}
    else:
        area, features = AREA.get(phase, "play"), FEATURES.get(phase, ["play.turn"])
        expect = {k: dis.dsl[k] for k in ("turn", "phase", "legal") if k in dis.dsl}
        if "legal" in expect:
            expect["legal"] = [json.loads(a) for a in expect["legal"]]
    case = {"id": area + ".crosscheck.new", "title": "cross-check: " + dis.what, "kind": dis.kind,
            "source": {"ref": "choice: to be decided from the rulebooks (found by tools/crosscheck.py)"},
            "features": features, "variant": variant, "setup": setup, "expect": expect,
            "note": "Found by tools/crosscheck.py (%s). expect = the DSL engine's answer %s; the oracle answers %s."
                    % (where, json.dumps(dis.dsl, sort_keys=True), json.dumps(dis.oracle, sort_keys=True))}
    if dis.kind == "reject":
        case["action"] = dis.action
    return case


def report(out_dir, preset, ls, dis, where, sets=None):
    print("DISAGREEMENT (%s) under preset %s%s: %s" % (where, preset, "".join(
        " --set %s=%s" % kv for kv in sorted((sets or {}).items())), dis.what))
    if dis.kind == "match":
        print("  match: %s" % json.dumps(dis.match_setup))
    else:
        print("  position: dealer %s, match scores %s" % (ls.dealer, json.dumps(ls.match_scores)))
        print("  deal: %s" % json.dumps(ls.deal))
        print("  events so far (%d): %s" % (len(ls.events), json.dumps(ls.events)))
    if dis.action is not None:
        print("  event tried: %s" % json.dumps(dis.action))
    print("  DSL engine: %s" % json.dumps(dis.dsl, sort_keys=True))
    print("  oracle:     %s" % json.dumps(dis.oracle, sort_keys=True))
    case = make_case(preset, ls, dis, where, sets)
    os.makedirs(out_dir, exist_ok=True)
    name = "crosscheck-%s-%s.json" % (preset, where.replace(" ", "-").replace("/", "-"))
    path = os.path.join(out_dir, name)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"description": "A cross-check disagreement to judge (tools/crosscheck.py)", "cases": [case]},
                  fh, indent=2)
        fh.write("\n")
    print("  reproducing case: %s" % path)


# ---------------------------------------------------------------- driver

class Progress:
    def __init__(self, preset, total, clock, every=5.0):
        self.preset, self.total, self.clock, self.every = preset, total, clock, every
        self.t0 = self.last = time.perf_counter()
        self.hands = 0

    def tick(self, label):
        self.hands += 1
        now = time.perf_counter()
        if now - self.last >= self.every:
            self.last = now
            print("[%s] %s: %d hands, %.0f hands/s (engine CPU time: dsl %.0f, oracle %.0f hands/s)"
                  % (self.preset, label, self.hands, self.hands / (now - self.t0), *self.rates()),
                  file=sys.stderr, flush=True)

    def rates(self):
        c = self.clock
        return (self.hands / c.dsl if c.dsl else 0.0, self.hands / c.oracle if c.oracle else 0.0)


def run_preset(preset, hands, matches, seed, out_dir, sets=None, cuts=False):
    """-> (exit code, summary dict). `sets`: knob -> value (text or typed) over the preset."""
    rules, knobs, clock = load_variant(preset, sets or {}), dict(PRESETS[preset]), Clock()
    resolved = {k: rules.variant.knobs[k] for k in (sets or {})}
    knobs.update(resolved)
    prog = Progress(preset, hands, clock)
    summary = {"preset": preset, "hands": 0, "matches": 0, "match_hands": 0}
    where = ""
    try:
        for i in range(hands):
            where = "seed %s hand %d" % (seed, i)
            rng = random.Random("%s/%s/hand/%d" % (seed, preset, i))
            dealer, deal, ms = random_setup(rng, rules, cuts=cuts)
            ls = play_hand(rng, rules, knobs, dealer, deal, ms, clock)
            summary["hands"] += 1
            if ls.refused is not None:
                summary["refused_deals"] = summary.get("refused_deals", 0) + 1
            prog.tick("hand %d/%d" % (i + 1, hands))
        for m in range(matches):
            scores, dealer = {"NS": 0, "EW": 0}, None
            for k in range(500):
                where = "seed %s match %d hand %d" % (seed, m, k)
                rng = random.Random("%s/%s/match/%d/%d" % (seed, preset, m, k))
                d, deal, _ = random_setup(rng, rules, scores)
                dealer = dealer or d
                ls = play_hand(rng, rules, knobs, dealer, deal, dict(scores), clock, doubling_pass=0.8)
                summary["match_hands"] += 1
                prog.tick("match %d/%d" % (m + 1, matches))
                r = ls.dsl.result()
                hand = {"written": _plain(r.get("written") or {"NS": 0, "EW": 0}),
                        "gahwa": r["winner"] if r.get("gahwa") else None}
                mine = run_match(rules, scores, [hand])
                theirs = O.match(scores, [hand], knobs)
                if mine != theirs:
                    dis = Disagreement("different match state after the hand", mine, theirs, "match")
                    dis.match_setup = {"start": dict(scores), "hands": [hand]}
                    raise dis
                scores, dealer = mine["scores"], r["next_dealer"]
                if mine["ended_after"]:
                    break
            summary["matches"] += 1
    except Disagreement as dis:
        ls = getattr(dis, "lockstep", None)
        if ls is None and dis.kind != "match":
            print("DISAGREEMENT (%s): %s" % (where, dis.what))
        else:
            report(out_dir, preset, ls, dis, where, resolved)
        return FOUND, summary
    except Exception as exc:          # an engine crashed: as much a disagreement as any other
        print("CRASH (%s) under preset %s %s: %s: %s" % (where, preset, json.dumps(resolved), type(exc).__name__, exc))
        traceback.print_exc()
        ls = getattr(exc, "lockstep", None)
        if ls is not None:
            print("  deal: %s\n  events so far: %s" % (json.dumps(ls.deal), json.dumps(ls.events)))
        return FOUND, summary
    elapsed = time.perf_counter() - prog.t0
    dsl_rate, orc_rate = prog.rates()
    summary.update(seconds=round(elapsed, 1), hands_per_s=round(prog.hands / elapsed, 1) if elapsed else 0,
                   dsl_hands_per_s=round(dsl_rate, 1), oracle_hands_per_s=round(orc_rate, 1))
    return OK, summary


def parse_args(argv):
    p = argparse.ArgumentParser(prog="crosscheck.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, required=True, metavar="N", help="random hands per preset")
    p.add_argument("--matches", type=int, default=0, metavar="M", help="whole matches per preset (default 0)")
    p.add_argument("--seed", default="1", metavar="S", help="seed (any text; default 1)")
    p.add_argument("--preset", default="default", metavar="P",
                   help="a preset (%s) or 'all'; default: default" % ", ".join(ALL_PRESETS))
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KNOB=VALUE",
                   help="change a knob in both engines, over every preset run (repeatable)")
    p.add_argument("--out", default="/tmp/crosscheck-failures", metavar="DIR",
                   help="where a reproducing case is written (default %(default)s)")
    p.add_argument("--cuts", action="store_true",
                   help="give every random hand (not the match hands) a random cut record")
    args = p.parse_args(argv)        # argparse exits 2 on a usage error
    if args.hands < 0 or args.matches < 0:
        p.error("--hands and --matches must not be negative")
    presets = ALL_PRESETS if args.preset == "all" else [args.preset]
    sets = {}
    for item in args.sets:
        if "=" not in item:
            p.error("--set takes KNOB=VALUE, not %r" % item)
        name, value = item.split("=", 1)
        sets[name.strip()] = value.strip()
    args.sets = sets
    for preset in presets:
        if preset not in PRESETS:
            p.error("unknown preset %r (oracle presets: %s)" % (preset, ", ".join(sorted(PRESETS))))
    return args, presets


def main(argv=None) -> int:
    args, presets = parse_args(argv)
    code = OK
    for preset in presets:
        try:
            load_variant(preset, args.sets)
        except BalootError as exc:
            what = "preset %r with %s" % (preset, " ".join("--set %s=%s" % kv for kv in sorted(args.sets.items()))) \
                if args.sets else "preset %r" % preset
            print("crosscheck.py: cannot load %s: %s" % (what, exc), file=sys.stderr)
            return USAGE
        code, summary = run_preset(preset, args.hands, args.matches, args.seed, args.out, args.sets, args.cuts)
        state = "no disagreement" if code == OK else "DISAGREEMENT"
        print("preset %s: %d hands%s, %d matches (%d hands): %s%s" % (
            preset, summary["hands"],
            " (%d deals refused alike)" % summary["refused_deals"] if "refused_deals" in summary else "",
            summary["matches"], summary["match_hands"], state,
            "; %.0f hands/s; engine CPU time: DSL %.0f hands/s, oracle %.0f hands/s" % (
                summary["hands_per_s"], summary["dsl_hands_per_s"], summary["oracle_hands_per_s"])
            if code == OK else ""), flush=True)
        if code != OK:
            return code
    return code


if __name__ == "__main__":
    sys.exit(main())
