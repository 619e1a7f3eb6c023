"""Summaries of a conformance run: totals, a table by feature, and the JSON report."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

from .. import __version__
from .corpus import corpus_digest, feature_registry
from .explain import repo_path
from .grouping import failure_groups
from .status import LABELS, STATUSES, is_expected_failure, is_unexpected

FORMAT = "baloot-conformance-report/1"


def totals(outcomes) -> dict:
    counts = Counter(o.status for o in outcomes)
    out = {status: counts.get(status, 0) for status in STATUSES}
    out["expected_failures"] = sum(1 for o in outcomes if is_expected_failure(o))
    out["unexpected"] = sum(1 for o in outcomes if is_unexpected(o))
    out["total"] = len(outcomes)
    out["keys"] = key_totals(outcomes)
    return out


KEY_STATUSES = ("pass", "fail", "unsupported")


def key_totals(outcomes) -> dict:
    """Per-key outcomes over the cases that ran: how many expected keys passed, failed, or were
    not produced by the engine (unsupported)."""
    counts = Counter(v for o in outcomes for v in o.keys.values())
    return {s: counts.get(s, 0) for s in KEY_STATUSES}


def keys_by_kind(outcomes) -> dict:
    """{kind: {key: {pass, fail, unsupported}}}: which keys of each case kind the engine gets right."""
    table: dict = defaultdict(lambda: defaultdict(Counter))
    for outcome in outcomes:
        for key, status in outcome.keys.items():
            table[outcome.case.kind][key][status] += 1
    return {kind: {key: {s: c.get(s, 0) for s in KEY_STATUSES} for key, c in sorted(keys.items())}
            for kind, keys in sorted(table.items())}


def readable(value):
    """Expected or actual as people and machines read it: a legal set as a list of action
    objects (the comparison keeps them as canonical JSON text, to compare sets of them)."""
    if isinstance(value, dict) and isinstance(value.get("legal"), list):
        return {**value, "legal": [json.loads(a) if isinstance(a, str) else a for a in value["legal"]]}
    return value


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


def keys_table(outcomes) -> str:
    """A plain-text table of the expected keys by case kind (empty when no case ran)."""
    rows = [(kind, key, counts) for kind, keys in keys_by_kind(outcomes).items() for key, counts in keys.items()]
    if not rows:
        return ""
    width = max(len("kind.key"), *(len(f"{k}.{key}") for k, key, _ in rows))
    line = lambda name, values: "  ".join([f"{name:<{width}}"] + [f"{v:>11}" for v in values])
    out = [line("kind.key", KEY_STATUSES), line("-" * width, ["-" * 11] * 3)]
    out += [line(f"{kind}.{key}", [counts[s] for s in KEY_STATUSES]) for kind, key, counts in rows]
    return "\n".join(out)


def case_json(outcome) -> dict:
    out = outcome.as_json()
    out["path"] = repo_path(outcome.case)
    for side in ("expected", "actual"):
        if side in out:
            out[side] = readable(out[side])
    details = outcome.details
    if "seconds" in details:
        out["seconds"] = round(details["seconds"], 4)
    if "expected_failure" in details:
        out["expected_failure"] = details["expected_failure"]
    for key in ("failure", "stderr", "explain"):
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
        "keys": keys_by_kind(outcomes),
        "failures": failure_groups(outcomes),
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
