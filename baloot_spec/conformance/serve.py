"""The built-in engine behind the protocol: what conformance/engines/builtin_adapter.py runs.

It answers each request with the same calls `runner.run_case` makes in process, so running the
corpus through it must give exactly the in-process verdicts (a test checks this). It is also
the reference answer to "what should my adapter reply?".

    python -m baloot_spec.conformance.serve      (reads requests on stdin, one per line)
"""

from __future__ import annotations

import json
import sys
import traceback

from .. import __version__
from ..errors import BalootError, IllegalAction
from ..expr.builtins import Rec
from ..engine.hand import Hand, score_facts
from ..engine.position import hand_from_position
from ..rules import load_variant
from ..text import plain
from .corpus import feature_registry
from .protocol import CLAIMABLE, PROTOCOL, SETUPS
from .runner import projects_position, run_match


class BuiltinEngine:
    """Protocol requests in, responses out (dicts); one hand at a time.

    With `plays` (a Variant spec: preset, set, overlays) it plays that one variant whatever a
    request's `variant` asks, like a real app that knows one Baloot (the fingerprint's test
    engine, conformance/ENGINES.md "Step 0")."""

    def __init__(self, plays: dict | None = None):
        self.hand: Hand | None = None
        self.rules = None
        self.plays = plays
        self.fixed = _rules(plays) if plays is not None else None
        self.start: tuple | None = None     # (dealer, deal, match_scores) of the current hand
        self.stopped = False

    def handle(self, request: dict) -> dict:
        seq = request.get("seq")
        command = request.get("cmd")
        method = getattr(self, f"_{command}", None) if command in ("hello", "stop") + CLAIMABLE else None
        if method is None:
            return {"seq": seq, "skipped": f"unknown command {command!r}"}
        try:
            body = method(request)
        except (BalootError, KeyError, TypeError, ValueError) as exc:
            return {"seq": seq, "errored": f"{type(exc).__name__}: {exc}"}
        except Exception as exc:  # a bug: say so, with where it happened
            return {"seq": seq, "errored": {"message": f"{type(exc).__name__}: {exc}",
                                            "traceback": traceback.format_exc(limit=8)}}
        return {"seq": seq, **body}

    # ---- commands -------------------------------------------------------------------------------
    def _hello(self, request):
        from ..rules.loader import load_overlays, load_params, load_presets
        knobs = {name: ("any" if knob.type == "int" else list(knob.values)) for name, knob in load_params().items()}
        hello = {"protocol": PROTOCOL, "engine": {"name": "baloot-spec built-in engine", "version": __version__},
                 "presets": sorted(load_presets()), "knobs": knobs, "overlays": sorted(load_overlays()),
                 "features": list(feature_registry()), "commands": list(CLAIMABLE), "setups": list(SETUPS)}
        if self.plays is None:
            return hello
        # one variant: claim only it; `audit` is not claimed (a log names the rules it is audited under)
        sets = {k: self.fixed.variant.knobs[k] for k in self.plays.get("set") or {}}
        shown = " ".join([self.plays["preset"]] + [f"{k}={json.dumps(v)}" for k, v in sets.items()] +
                         [f"+{o}" for o in self.plays.get("overlays") or ()])
        hello["engine"]["notes"] = f"plays one variant whatever a request asks: {shown}"
        return dict(hello, presets=[self.plays["preset"]], knobs={k: [v] for k, v in sets.items()},
                    overlays=list(self.fixed.variant.overlays), commands=[c for c in CLAIMABLE if c != "audit"],
                    plays={"preset": self.plays["preset"], "set": sets, "overlays": list(self.fixed.variant.overlays),
                           "hash": self.fixed.hash})

    def _variant_rules(self, variant: dict):
        return self.fixed if self.fixed is not None else _rules(variant)

    def _new_hand(self, request):
        self.rules = self._variant_rules(request["variant"])
        if "position" in request:   # the position form (PROTOCOL.md, Setup forms)
            self.start = None
            self.hand = hand_from_position(self.rules, request["position"])
            return {"ok": True}
        self.start = (request["dealer"], request["deal"], request.get("match_scores"))
        self.hand = Hand(self.rules, *self.start)
        return {"ok": True}

    def _apply(self, request):
        hand = self._current()
        results = []
        for event in request["events"]:
            try:
                hand.apply(event)
            except IllegalAction as refusal:
                results.append({"accepted": False, "rule": refusal.rule_id, "message": refusal.message})
                break
            results.append({"accepted": True})
        return {"results": results}

    def _query(self, request):
        hand = self._current()
        out = {}
        for item in request.get("what") or ("turn", "phase", "legal", "result"):
            if item == "turn":
                out["turn"] = hand.turn()
            elif item == "phase":
                out["phase"] = hand.phase
            elif item == "legal":
                out["legal"] = hand.legal()
            elif item == "result":
                out["result"] = plain(hand.result())
        return out

    def _score(self, request):
        rules = self._variant_rules(request["variant"])
        f = request["facts"]
        facts = Rec(mode=f["mode"], buyer=f["buyer"], doubling=list(f["doubling"]),
                    card_points=Rec(f["card_points"]), tricks=Rec(f["tricks"]),
                    projects=Rec({t: list(v) for t, v in f["projects"].items()}), baloot=Rec(f["baloot"]),
                    match_scores=Rec(f["match_scores"]))
        return {"score": plain(score_facts(rules, facts))}

    def _projects(self, request):
        return {"projects": projects_position(self._variant_rules(request["variant"]), request["setup"])}

    def _match(self, request):
        return {"match": run_match(self._variant_rules(request["variant"]), request["start"], request["hands"])}

    def _audit(self, request):
        from ..audit import audit_input
        from ..log.reader import LogInput, check_document
        problems = check_document(request["log"])
        if problems:
            raise ValueError(f"not a valid baloot-log/1 document: {problems[0]['path']}: {problems[0]['message']}")
        report = audit_input(LogInput("<protocol>", None, request["log"]))
        if report.errors:
            raise ValueError(f"the log cannot be audited: {report.errors[0]}")
        return {"audit": {"violations": [{"path": v.path, "rule": v.rule, "message": getattr(v, "message", "")}
                                         for v in report.violations]}}

    def _perft(self, request):
        from ..perft import perft
        return {"nodes": perft(self._current(), int(request["depth"]))}

    def _stop(self, request):
        self.stopped = True
        return {"ok": True}

    # ---- helpers --------------------------------------------------------------------------------
    def _current(self) -> Hand:
        if self.hand is None:
            raise ValueError("no hand: send new_hand first")
        return self.hand

def _rules(variant: dict):
    return load_variant(variant.get("preset", "default"), variant.get("set") or {}, variant.get("overlays") or [])


def serve(stdin=None, stdout=None, plays: dict | None = None) -> int:
    """Answer requests line by line until `stop` or the end of the input (under `plays` only, if given)."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    engine = BuiltinEngine(plays)
    for line in stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
        except (ValueError, RecursionError) as exc:
            response = {"seq": None, "errored": f"unreadable request: {str(exc)[:200]}"}
        else:
            response = engine.handle(request)
        stdout.write(json.dumps(response, separators=(",", ":")).encode("utf-8") + b"\n")
        stdout.flush()
        if engine.stopped:
            break
    return 0


if __name__ == "__main__":
    sys.exit(serve())
