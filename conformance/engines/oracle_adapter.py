"""The independent oracle (tools/oracle) spoken to over baloot-protocol/1 (conformance/PROTOCOL.md).

    baloot conformance run --engine "python conformance/engines/oracle_adapter.py"

A second example of an adapter, and the smallest useful one: standard library only, no code of
baloot_spec, one function per command. The oracle shares nothing with the built-in engine, so
this adapter is a cross-check of both (and of the harness) through the same protocol.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "oracle"))

import oracle as O            # noqa: E402  (tools/oracle/oracle.py)
from position import from_position   # noqa: E402  (tools/oracle/position.py)
from presets import PRESETS   # noqa: E402

PROTOCOL = "baloot-protocol/1"

# The knob values the oracle implements (rules/PROCEDURE.md, "Knobs"); match_target is any number.
KNOBS = {
    "first_lead": ["dealer_right", "buyer"], "ekka": [True, False], "partner_led_exception": [True, False],
    "undertrump": ["free", "forced"], "closed_play": [True, False], "closed_after_buyer_raise": ["keep", "open"],
    "ashkal_requires": ["all_passed", "hokum_bid"], "ashkal_round_two": [False, True],
    "ashkal_on_ace": ["allowed", "refused"], "wrongful_ashkal": ["illegal", "forced_sun"],
    "ashkal_buyer": ["partner", "caller"], "ace_sun_overcall": ["anyone", "dealer_right"],
    "kawesh": [False, True], "third_round": [False, True], "sun_double_allowed": ["de", "nl", "smsf"],
    "hokum_rounding": ["half_down", "half_up"], "sun_conversion": ["keep_fives", "half_up", "to_even"],
    "project_multiplier": ["at_most_double", "level", "double_only"], "hundred_rank": ["four_first", "sequence_first"],
    "trump_sequence_first": [False, True], "project_tie": ["first_declared", "nearest_dealer_right"],
    "four_aces_hokum": ["hundred", "nothing"], "tie_rule": ["digit", "last_raiser_loses"],
    "kaboot_doubled": ["scaled", "flat", "double_figures"], "baloot_of_losers": ["to_winners", "lapses", "holder"],
    "winner_basis": ["game_points", "raw_points"], "exposed_card": ["stands", "ace_redeals"], "cutting": ["de", "nl"],
    "reverse_kaboot": [False, True], "kaboot_projects": ["sweeping_team", "comparison_winner"], "match_target": "any",
    "pickup_before_trump": ["refused", "sun"], "late_projects": ["refused", "until_third_card"],
    "baloot_in_hundred": ["cancelled", "counts"], "baloot_cancelled_when": ["shown", "held"],
    "trump_when_partner_winning": ["exception", "always"], "other_team_points": ["rest", "own"],
    "overtrump_partner_winning": ["free", "forced"], "undoubled_loss": ["all", "split"],
    "hokum_bidder_sun": ["others", "bidder_too"], "lower_declaration": ["opponents", "anyone"],
}


class Skip(Exception):
    pass


def knobs_for(variant):
    preset = variant.get("preset", "default")
    if preset not in PRESETS:
        raise Skip("preset %s is not known to the oracle" % preset)
    if variant.get("overlays"):
        raise Skip("the oracle has no overlays")
    knobs = dict(PRESETS[preset])
    for name, value in (variant.get("set") or {}).items():
        if name not in O.DEFAULTS:
            raise Skip("knob %s is not known to the oracle" % name)
        knobs[name] = value
    return knobs


class Adapter:
    def __init__(self):
        self.hand = None

    def hello(self, req):
        with open(os.path.join(ROOT, "conformance", "features.json"), encoding="utf-8") as fh:
            features = list(json.load(fh)["features"])
        return {"protocol": PROTOCOL, "engine": {"name": "baloot-spec oracle", "version": "tools/oracle"},
                "presets": sorted(PRESETS), "knobs": KNOBS, "features": features,
                "commands": ["new_hand", "apply", "query", "score", "projects", "match", "perft"],
                "setups": ["events", "position"]}

    def new_hand(self, req):
        if "position" in req:     # the position form (PROTOCOL.md, Setup forms)
            self.hand = from_position(req["position"], knobs_for(req["variant"])).hand
            return {"ok": True}
        self.hand = O.Hand(req["dealer"], req["deal"], req.get("match_scores"), knobs_for(req["variant"]))
        return {"ok": True}

    def apply(self, req):
        results = []
        for event in req["events"]:
            try:
                self.current().apply(event)
            except O.Reject as refusal:
                results.append({"accepted": False, "rule": refusal.rule, "message": refusal.message})
                break
            results.append({"accepted": True})
        return {"results": results}

    def query(self, req):
        h, out = self.current(), {}
        for item in req.get("what") or ["turn", "phase", "legal", "result"]:
            out[item] = {"turn": h.turn, "phase": h.phase, "legal": h.legal, "result": h.result}[item]()
        return out

    def score(self, req):
        return {"score": O.score(req["facts"], knobs_for(req["variant"]))}

    def projects(self, req):
        return {"projects": O.projects_case(req["setup"], knobs_for(req["variant"]))}

    def match(self, req):
        return {"match": O.match(req["start"], req["hands"], knobs_for(req["variant"]))}

    def perft(self, req):
        def count(h, depth):            # conformance/perft/README.md: exactly `depth` actions
            seat = h.turn()
            if depth == 0:
                return 1
            if seat is None:
                return 0
            total = 0
            for action in h.legal():
                child = h.copy()
                child.apply(dict(action, seat=seat))
                total += count(child, depth - 1)
            return total
        return {"nodes": count(self.current(), int(req["depth"]))}

    def current(self):
        if self.hand is None:
            raise ValueError("no hand: send new_hand first")
        return self.hand


def main():
    adapter = Adapter()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = {}
        try:
            req = json.loads(line)
            cmd = req.get("cmd")
            if cmd == "stop":
                print(json.dumps({"seq": req.get("seq"), "ok": True}), flush=True)
                return 0
            handler = getattr(adapter, cmd, None) if cmd in ("hello", "new_hand", "apply", "query", "score",
                                                             "projects", "match", "perft") else None
            if handler is None:
                response = {"seq": req.get("seq"), "skipped": "command %r is not implemented" % cmd}
            else:
                response = dict({"seq": req.get("seq")}, **handler(req))
        except Skip as exc:
            response = {"seq": req.get("seq"), "skipped": str(exc)}
        except Exception as exc:          # the oracle failed: report it, keep serving
            seq = req.get("seq") if isinstance(req, dict) else None
            response = {"seq": seq, "errored": "%s: %s" % (type(exc).__name__, exc)}
        print(json.dumps(response), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
