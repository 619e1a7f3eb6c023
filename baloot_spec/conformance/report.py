"""Summaries of a conformance run: totals, a table by feature, and the JSON report."""

from __future__ import annotations

from collections import Counter, defaultdict

from .. import __version__
from .corpus import corpus_digest, feature_registry

STATUSES = ("pass", "fail", "error")


def totals(outcomes) -> dict:
    counts = Counter(o.status for o in outcomes)
    return {status: counts.get(status, 0) for status in STATUSES} | {"total": len(outcomes)}


def by_feature(outcomes) -> dict:
    table: dict = defaultdict(Counter)
    for outcome in outcomes:
        for feature in outcome.case.features:
            table[feature][outcome.status] += 1
    order = list(feature_registry())
    return {f: {s: table[f].get(s, 0) for s in STATUSES} for f in sorted(table, key=lambda f: (order.index(f) if f in order else 999, f))}


def feature_table(outcomes) -> str:
    """A plain-text table, one row per feature, for people."""
    rows = by_feature(outcomes)
    width = max([len("feature")] + [len(f) for f in rows])
    lines = [f"{'feature':<{width}}  {'pass':>5} {'fail':>5} {'error':>5}  result",
             f"{'-' * width}  {'-' * 5} {'-' * 5} {'-' * 5}  ------"]
    for feature, counts in rows.items():
        verdict = "ok" if counts["fail"] == 0 and counts["error"] == 0 else "FAILING"
        lines.append(f"{feature:<{width}}  {counts['pass']:>5} {counts['fail']:>5} {counts['error']:>5}  {verdict}")
    t = totals(outcomes)
    lines.append(f"{'-' * width}  {'-' * 5} {'-' * 5} {'-' * 5}  ------")
    lines.append(f"{'all cases':<{width}}  {t['pass']:>5} {t['fail']:>5} {t['error']:>5}")
    return "\n".join(lines)


def json_report(outcomes, cases, engine: dict, selection: dict) -> dict:
    return {
        "format": "baloot-conformance-report/1",
        "corpus": {"cases": len(cases), "hash": corpus_digest(cases)},
        "engine": engine,
        "selection": selection,
        "tool": {"name": "baloot-spec", "version": __version__},
        "totals": totals(outcomes),
        "features": by_feature(outcomes),
        "cases": [o.as_json() for o in outcomes],
    }
