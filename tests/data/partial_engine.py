"""A deliberately partial engine over baloot-protocol/1, for the tests of per-key outcomes,
explanations and grouping (tests/test_conformance_reports.py).

It is the built-in engine with two documented departures and a narrow answer:

- it produces only `written` and `winner` for a score (declared in hello's `produces`), and
  answers a hand's result with only `written`, `winner`, `thrown_in`, `next_dealer` (other keys
  left out of the answer, not declared): every other key is `unsupported`, never a failure;
- P1 rounding: Hokum card points are always rounded to the nearest 10 with a final 5 going up
  (the `hokum_rounding: half_up` reading), whatever the variant says;
- P2 undertrump: it never forces an undertrump (the `undertrump: free` reading);
- it answers neither `projects`, `match` nor `audit` (not claimed).

    python tests/data/partial_engine.py
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from baloot_spec.conformance import serve as served  # noqa: E402
from baloot_spec.rules import load_variant  # noqa: E402

DEPARTURES = {"hokum_rounding": "half_up", "undertrump": "free"}
SCORE_KEYS = ("written", "winner")
HAND_KEYS = ("written", "winner", "thrown_in", "next_dealer")


def departed_rules(variant: dict):
    """The variant's rules, read with this engine's two departures."""
    return load_variant(variant.get("preset", "default"), {**(variant.get("set") or {}), **DEPARTURES},
                        variant.get("overlays") or [])


class PartialEngine(served.BuiltinEngine):
    def _hello(self, request):
        hello = super()._hello(request)
        hello["engine"] = {"name": "partial-engine", "version": "1.0", "notes": "a test fixture with two departures"}
        hello["commands"] = ["new_hand", "apply", "query", "score"]
        hello["produces"] = {"score": list(SCORE_KEYS)}
        return hello

    def _score(self, request):
        answer = super()._score(request)["score"]
        return {"score": {k: answer[k] for k in SCORE_KEYS if k in answer}}

    def _query(self, request):
        out = super()._query(request)
        if isinstance(out.get("result"), dict):
            out["result"] = {k: v for k, v in out["result"].items() if k in HAND_KEYS}
        return out


if __name__ == "__main__":
    served._rules = departed_rules     # every variant this engine loads carries its departures
    served.BuiltinEngine = PartialEngine
    sys.exit(served.serve())
