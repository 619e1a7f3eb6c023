"""Run conformance case files through the independent oracle.

    python tools/oracle/run_cases.py [PATH ...]     (files or directories; default: conformance/cases)

Prints one line per failing case and "N passed, M failed". Exit 1 on a failure, 2 on unreadable input.
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle as O          # noqa: E402  (tools/oracle/oracle.py)
from presets import PRESETS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def knobs_for(variant):
    variant = variant or {}
    k = dict(PRESETS[variant.get("preset", "default")])
    k.update(variant.get("set") or {})
    return k


def norm_action(a):
    a = {k: v for k, v in a.items() if k != "seat"}
    if a.get("type") == "double" and not a.get("closed"):
        a.pop("closed", None)
    if a.get("type") == "play":
        a["card"] = O.CARD[O.parse_card(a["card"])]
        a = {"type": "play", "card": a["card"]}
    return json.dumps(a, sort_keys=True)


def norm_projects(p):
    return {seat: sorted((x["name"], tuple(sorted(O.CARD[O.parse_card(c)] for c in x["cards"])))
                         for x in lst) for seat, lst in p.items() if lst}


def compare(expect, actual, keys=None):
    bad = {}
    for k in keys or expect:
        e, a = expect[k], (actual or {}).get(k, "<missing>")
        if k == "projects" and isinstance(e, dict) and isinstance(a, dict) and \
                any(isinstance(v, list) and v and isinstance(v[0], dict) for v in e.values()):
            if norm_projects(e) != norm_projects(a):
                bad[k] = (e, a)
        elif e != a:
            bad[k] = (e, a)
    return bad


def replay(setup, knobs):
    h = O.Hand(setup.get("dealer", "N"), setup["deal"], setup.get("match_scores"), knobs)
    for ev in setup.get("events", []):
        h.apply(ev)
    return h


IMPLEMENTED = {"legal", "reject", "hand", "score", "projects", "match"}


def run_case(case):
    """-> None when it passes, else (expected, actual)."""
    kind, setup, expect = case["kind"], case.get("setup", {}), case.get("expect", {})
    knobs = knobs_for(case.get("variant"))
    if kind == "legal":
        h = replay(setup, knobs)
        actual = {"turn": h.turn(), "legal": sorted(norm_action(a) for a in h.legal()),
                  "phase": h.phase()}
        exp = dict(expect)
        if "legal" in exp:
            exp["legal"] = sorted(norm_action(a) for a in exp["legal"])
        bad = compare(exp, actual)
        return (expect, actual) if bad else None
    if kind == "reject":
        h = replay(setup, knobs)
        try:
            h.apply(case["action"])
        except O.Reject as e:
            actual = {"reject": e.rule}
        else:
            actual = {"reject": None, "accepted": True}
        return None if actual.get("reject") == expect.get("reject") else (expect, actual)
    if kind == "hand":
        actual = replay(setup, knobs).result()
    elif kind == "score":
        actual = O.score(setup, knobs)
    elif kind == "projects":
        actual = O.projects_case(setup, knobs)
    elif kind == "match":
        actual = O.match(setup.get("start", {}), setup.get("hands", []), knobs)
    else:
        return expect, {"error": "unknown kind " + str(kind)}
    return (expect, actual) if compare(expect, actual) else None


def main(argv):
    paths = argv or [os.path.join(ROOT, "conformance", "cases")]
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "**", "*.json"), recursive=True))
        else:
            files.append(p)
    passed = failed = skipped = 0
    for f in files:
        try:
            with open(f, encoding="utf-8") as fh:
                cases = json.load(fh)["cases"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print("unreadable %s: %s" % (f, e))
            return 2
        for case in cases:
            if case.get("kind") not in IMPLEMENTED:  # e.g. audit: the oracle is no referee
                skipped += 1
                continue
            if (case.get("variant") or {}).get("overlays"):  # the oracle has no overlays (as its adapter)
                skipped += 1
                continue
            try:
                r = run_case(case)
            except Exception as e:      # a setup event refused, a bad card...
                r = (case.get("expect"), {"error": "%s: %s" % (type(e).__name__, e)})
            if r is None:
                passed += 1
            else:
                failed += 1
                print("FAIL %s  expected %s  actual %s" % (case.get("id"), json.dumps(r[0], sort_keys=True),
                                                         json.dumps(r[1], sort_keys=True)))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
