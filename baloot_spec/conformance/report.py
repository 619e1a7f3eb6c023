"""Summaries of a conformance run: totals, a table by feature, and the JSON report."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

from .. import __version__
from .corpus import corpus_digest, feature_registry
from .status import LABELS, STATUSES, is_expected_failure, is_unexpected

FORMAT = "baloot-conformance-report/1"


def totals(outcomes) -> dict:
    counts = Counter(o.status for o in outcomes)
    out = {status: counts.get(status, 0) for status in STATUSES}
    out["expected_failures"] = sum(1 for o in outcomes if is_expected_failure(o))
    out["unexpected"] = sum(1 for o in outcomes if is_unexpected(o))
    out["total"] = len(outcomes)
    return out


def by_feature(outcomes) -> dict:
    table: dict = defaultdict(Counter)
    for outcome in outcomes:
        for feature in outcome.case.features:
            table[feature][outcome.status] += 1
            if is_expected_failure(outcome):
                table[feature]["expected_failures"] += 1
    order = list(feature_registry())
    keys = STATUSES + ("expected_failures",)
    return {f: {s: table[f].get(s, 0) for s in keys}
            for f in sorted(table, key=lambda f: (order.index(f) if f in order else 999, f))}


def verdict(counts: dict) -> str:
    """One word for a feature's row: ok, FAILING, known (only expected failures) or not run."""
    failing = counts["fail"] + counts["error"]
    if failing > counts.get("expected_failures", 0):
        return "FAILING"
    if failing:
        return "known"
    return "ok" if counts["pass"] else "not run"


def feature_table(outcomes) -> str:
    """A plain-text table, one row per feature, for people."""
    rows = by_feature(outcomes)
    width = max([len("feature"), len("all cases")] + [len(f) for f in rows])
    heads = [LABELS[s] for s in STATUSES]
    cols = [max(5, len(h)) for h in heads]
    line = lambda name, values, tail: "  ".join([f"{name:<{width}}"] + [f"{v:>{c}}" for v, c in zip(values, cols)] + [tail])
    lines = [line("feature", heads, "result"), line("-" * width, ["-" * c for c in cols], "------")]
    for feature, counts in rows.items():
        lines.append(line(feature, [counts[s] for s in STATUSES], verdict(counts)))
    t = totals(outcomes)
    lines.append(line("-" * width, ["-" * c for c in cols], "------"))
    lines.append(line("all cases", [t[s] for s in STATUSES], ""))
    return "\n".join(lines)


def case_json(outcome) -> dict:
    out = outcome.as_json()
    details = outcome.details
    if "seconds" in details:
        out["seconds"] = round(details["seconds"], 4)
    if "expected_failure" in details:
        out["expected_failure"] = details["expected_failure"]
    for key in ("failure", "stderr"):
        if details.get(key):
            out[key] = details[key]
    return out


def json_report(outcomes, cases, engine: dict, selection: dict, *, claims: dict | None = None,
                command: list | None = None, expected_failures: dict | None = None, restarts: int = 0,
                seconds: float | None = None) -> dict:
    return {
        "format": FORMAT,
        "corpus": {"version": __version__, "cases": len(cases), "hash": corpus_digest(cases)},
        "engine": dict(engine) | ({"command": command} if command else {}) | ({"claims": claims} if claims else {}),
        "variant": {"preset": selection.get("preset") or "each case's own"},
        "selection": selection,
        "tool": {"name": "baloot-spec", "version": __version__},
        "run": {"seconds": None if seconds is None else round(seconds, 3), "engine_restarts": restarts},
        "totals": totals(outcomes),
        "features": by_feature(outcomes),
        "expected_failures": expected_failures,
        "cases": [case_json(o) for o in outcomes],
    }


def dump_report(report: dict) -> str:
    """The report as JSON text with one line per case (easy to grep and diff)."""
    marker = "\u0000cases\u0000"
    text = json.dumps({**report, "cases": marker}, indent=2)
    lines = ",\n".join("    " + json.dumps(case, separators=(", ", ": ")) for case in report["cases"])
    body = "[\n" + lines + "\n  ]" if lines else "[]"
    return text.replace(json.dumps(marker), body)
