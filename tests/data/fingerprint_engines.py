"""Two engines for the tests of `baloot conformance fingerprint` (tests/test_fingerprint.py).

    python tests/data/fingerprint_engines.py plant FACTS.json   the built-in engine playing `default`,
        except one answer: the score of exactly these facts (a case's setup as the protocol sends
        it) gets 100 more converted and written points for NS, a departure no knob value describes;
    python tests/data/fingerprint_engines.py skip              answers hello, then `skipped` to everything;
    python tests/data/fingerprint_engines.py positions         the built-in engine playing `default` that
        takes positions only (hello `setups: ["position"]`), like an engine whose game loop deals itself;
    python tests/data/fingerprint_engines.py no-doubling-events  the built-in engine playing `default`
        that takes events and positions but refuses every doubling event given as an event (an
        auction with a step ours lacks, as a real app's may have).
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from baloot_spec.conformance import serve as served  # noqa: E402


class PlantedEngine(served.BuiltinEngine):
    def __init__(self, facts: dict):
        super().__init__(plays={"preset": "default", "set": {}})
        self.planted = facts

    def _score(self, request):
        body = super()._score(request)
        if request["facts"] == self.planted:
            for key in ("converted", "written"):
                body["score"][key]["NS"] += 100
        return body


class SkippingEngine(served.BuiltinEngine):
    def handle(self, request):
        if request.get("cmd") in ("hello", "stop"):
            return super().handle(request)
        return {"seq": request.get("seq"), "skipped": "this engine answers nothing"}


class PositionsOnlyEngine(served.BuiltinEngine):
    def __init__(self):
        super().__init__(plays={"preset": "default", "set": {}})

    def _hello(self, request):
        return dict(super()._hello(request), setups=["position"])


class NoDoublingEventsEngine(served.BuiltinEngine):
    def __init__(self):
        super().__init__(plays={"preset": "default", "set": {}})

    def _apply(self, request):
        events = request["events"]
        refused = next((i for i, e in enumerate(events) if e.get("type") == "double"), None)
        if refused is None:
            return super()._apply(request)
        body = super()._apply(dict(request, events=events[:refused]))
        if len(body["results"]) == refused and all(r["accepted"] for r in body["results"]):
            body["results"].append({"accepted": False, "rule": "test.no-doubling-event",
                                    "message": "this engine's doubling has a step of its own"})
        return body


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "plant":
        engine = PlantedEngine(json.loads(Path(sys.argv[2]).read_text(encoding="utf-8")))
    elif mode == "skip":
        engine = SkippingEngine()
    elif mode == "positions":
        engine = PositionsOnlyEngine()
    elif mode == "no-doubling-events":
        engine = NoDoublingEventsEngine()
    else:
        print("usage: fingerprint_engines.py plant FACTS.json | skip | positions | no-doubling-events", file=sys.stderr)
        return 2
    for line in sys.stdin:
        if not line.strip():
            continue
        response = engine.handle(json.loads(line))
        sys.stdout.write(json.dumps(response, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        if engine.stopped:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
