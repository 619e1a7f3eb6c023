"""The run as a Markdown compliance table, one row per feature, for a README or a pull request:
what an engine implements correctly, where it departs (with expected vs actual), and what it
does not claim."""

from __future__ import annotations

from .corpus import feature_registry
from .report import by_feature, totals, verdict
from .runner import ERROR, FAIL
from .status import LABELS, STATUSES, is_expected_failure

_MARK = {"ok": "✅ ok", "FAILING": "❌ failing", "known": "⚠️ known failures", "not run": "➖ not run"}
MAX_LISTED = 200


def _cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_report(outcomes, *, engine: dict, corpus: dict, variant: str, stale: list | None = None) -> str:
    t = totals(outcomes)
    registry = feature_registry()
    name = f"{engine.get('name', 'engine')} {engine.get('version', '')}".strip()
    out = [f"# Baloot conformance: {name}", "",
           f"Corpus baloot-spec {corpus['version']} (hash `{corpus['hash']}`, {corpus['cases']} cases); "
           f"variant: {variant}.", "",
           "**" + ", ".join(f"{t[s]} {LABELS[s]}" for s in STATUSES) + f" of {t['total']} cases**"
           + (f" ({t['expected_failures']} failing cases are expected failures)" if t["expected_failures"] else ""), "",
           "| feature | what it covers | " + " | ".join(LABELS[s] for s in STATUSES) + " | result |",
           "| --- | --- | " + " | ".join("---:" for _ in STATUSES) + " | --- |"]
    for feature, counts in by_feature(outcomes).items():
        out.append(f"| `{feature}` | {_cell(registry.get(feature, ''))} | "
                   + " | ".join(str(counts[s]) for s in STATUSES) + f" | {_MARK[verdict(counts)]} |")
    failing = [o for o in outcomes if o.status in (FAIL, ERROR)]
    if failing:
        out += ["", "## Failing cases", "", "| case | status | what differs (expected vs actual) or what went wrong |",
                "| --- | --- | --- |"]
        for outcome in failing[:MAX_LISTED]:
            status = outcome.status + (f" (expected: {_cell(outcome.details['expected_failure'])})"
                                       if is_expected_failure(outcome) else "")
            out.append(f"| `{outcome.case.id}` | {status} | {_cell(_clip(outcome.message))} |")
        if len(failing) > MAX_LISTED:
            out.append(f"\n... and {len(failing) - MAX_LISTED} more (see the JSON report).")
    if stale:
        out += ["", "## Stale expected failures", ""]
        out += [f"- `{entry['id']}`: {entry['problem']} (reason given: {_cell(entry['reason'])})" for entry in stale]
    return "\n".join(out) + "\n"


def _clip(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
