"""Cross-check conformance/positions.json with the independent oracle.

    python tools/oracle/positions_check.py [--quiet]

For every stored position (baloot_spec derived them from the cases' events):
1. reached: the oracle replays the case's events up to the position and writes its own position,
   which must equal the stored one (cards compared as sets where order is not part of it);
2. answered: the oracle starts from the stored position, applies the events after it and answers
   the case's question (legal set, refusal, hand result), which must equal the case's `expect`.
A case whose variant names an overlay is not checked (the oracle implements the knobs, not
overlays: a house rule has no second implementation) and is counted apart.
Standard library and the oracle only. Exit 0 when all agree, 1 on a difference, 2 on unreadable
input.
"""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import oracle as O                      # noqa: E402
from position import Recorder, from_position, position_of   # noqa: E402
from run_cases import compare, knobs_for, norm_action       # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))


def _sets(pos):
    """A position with its per-seat card lists as sorted lists (their order is not part of it)."""
    out = dict(pos)
    for key in ("dealt", "hands"):
        out[key] = {s: sorted(O.CARD[O.parse_card(c)] for c in cs) for s, cs in pos[key].items()}
    return out


def reached(case, entry, knobs):
    setup = case["setup"]
    events = setup.get("events", [])
    cut = len(events) - len(entry["events"])
    rec = Recorder(O.Hand(setup["dealer"], setup["deal"], setup.get("match_scores"), knobs))
    for ev in events[:cut]:
        rec.apply(ev)
    mine, stored = _sets(position_of(rec)), _sets(entry["position"])
    return [k for k in sorted(set(mine) | set(stored)) if mine.get(k) != stored.get(k)], mine


def answered(case, entry, knobs):
    rec = from_position(entry["position"], knobs)
    h = rec.hand
    for ev in entry["events"]:
        h.apply(ev)
    expect = case["expect"]
    if case["kind"] == "legal":
        actual = {"turn": h.turn(), "legal": sorted(norm_action(a) for a in h.legal()), "phase": h.phase()}
        exp = dict(expect, legal=sorted(norm_action(a) for a in expect["legal"]))
        return compare(exp, actual), actual
    if case["kind"] == "reject":
        try:
            h.apply(case["action"])
        except O.Reject as e:
            actual = {"reject": e.rule}
        else:
            actual = {"reject": None}
        return compare(expect, actual), actual
    actual = h.result()
    return compare(expect, actual), actual


def main(argv):
    quiet = "--quiet" in argv
    try:
        with open(os.path.join(ROOT, "conformance", "positions.json"), encoding="utf-8") as fh:
            entries = json.load(fh)["positions"]
        cases = {}
        for path in sorted(glob.glob(os.path.join(ROOT, "conformance", "cases", "**", "*.json"), recursive=True)):
            with open(path, encoding="utf-8") as fh:
                for case in json.load(fh)["cases"]:
                    cases[case["id"]] = case
    except (OSError, ValueError, KeyError) as exc:
        print("unreadable input: %s" % exc, file=sys.stderr)
        return 2
    bad = 0
    counts = {"reached": 0, "answered": 0, "overlay": 0}
    for case_id, entry in entries.items():
        case = cases.get(case_id)
        if case is None:
            print("UNKNOWN %s: no such case" % case_id)
            bad += 1
            continue
        if (case.get("variant") or {}).get("overlays"):
            counts["overlay"] += 1
            continue
        knobs = knobs_for(case.get("variant"))
        for name, check in (("reached", reached), ("answered", answered)):
            try:
                diff, actual = check(case, entry, knobs)
            except (O.Reject, ValueError, KeyError, TypeError) as exc:
                diff, actual = ["error"], "%s: %s" % (type(exc).__name__, exc)
            if diff:
                bad += 1
                if not quiet:
                    print("%s %s: differs in %s; oracle: %s" % (name.upper(), case_id, ", ".join(map(str, diff)),
                                                               json.dumps(actual, sort_keys=True)[:400]))
            else:
                counts[name] += 1
    print("%d positions: the oracle reached %d of them from the events and answered %d from the position; %d differences"
          "; %d under an overlay not checked (the oracle has no overlays)"
          % (len(entries), counts["reached"], counts["answered"], bad, counts["overlay"]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
