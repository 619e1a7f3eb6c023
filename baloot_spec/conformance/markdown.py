"""The run as a Markdown compliance table, one row per feature, for a README or a pull request:
what an engine implements correctly, where it departs (grouped by rule and knob, each failing
case with its title, source, note and deciding rules), which expected keys it produces, and
what it does not claim."""

from __future__ import annotations

from .console import knobs_text, rule_text
from .corpus import feature_registry
from .grouping import failure_groups
from .report import KEY_STATUSES, by_feature, keys_by_kind, totals, verdict
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
    kinds = keys_by_kind(outcomes)
    if kinds:
        k = t["keys"]
        out += ["", "## Expected keys", "",
                f"{k['pass']} passed, {k['fail']} failed, {k['unsupported']} not produced by the engine (unsupported): "
                "a case fails only on a key the engine produced.", "",
                "| kind | key | " + " | ".join(KEY_STATUSES) + " |", "| --- | --- | " + " | ".join("---:" for _ in KEY_STATUSES) + " |"]
        out += [f"| {kind} | `{key}` | " + " | ".join(str(c[s]) for s in KEY_STATUSES) + " |"
                for kind, keys in kinds.items() for key, c in keys.items()]
    groups = failure_groups(outcomes)
    if groups["by_rule"]:
        out += ["", "## Failures by rule", ""]
        for group in groups["by_rule"]:
            said = f": {_cell(group['explain'])}" if group.get("explain") else ""
            out.append(f"- **`{group['rule']}`** ({len(group['cases'])} case{'s' * (len(group['cases']) != 1)}){said}"
                       + (f" — _{_cell(group['source'])}_" if group.get("source") else ""))
            out += [f"  - `{e['id']}` {_cell(e['title'])} (`{e['path']}`)"
                    + (" (expected failure)" if "expected_failure" in e else "") for e in group["cases"]]
    if groups["by_knob"]:
        out += ["", "## Failures by knob", ""]
        out += [f"- `{g['knob']}` ({len(g['cases'])}): " + ", ".join(f"`{e['id']}`" for e in g["cases"]) for g in groups["by_knob"]]
    failing = [o for o in outcomes if o.status in (FAIL, ERROR)]
    if failing:
        out += ["", "## Failing cases", ""]
        for outcome in failing[:MAX_LISTED]:
            out += _failure(outcome)
        if len(failing) > MAX_LISTED:
            out.append(f"\n... and {len(failing) - MAX_LISTED} more (see the JSON report).")
    if stale:
        out += ["", "## Stale expected failures", ""]
        out += [f"- `{entry['id']}`: {entry['problem']} (reason given: {_cell(entry['reason'])})" for entry in stale]
    return "\n".join(out) + "\n"


def _failure(outcome) -> list[str]:
    """One failing case: what differs, then what it is about (title, source, note, knobs, rules)."""
    explain = outcome.details.get("explain") or {}
    status = outcome.status + (f" (expected failure: {_cell(outcome.details['expected_failure'])})"
                               if is_expected_failure(outcome) else "")
    lines = [f"### `{outcome.case.id}`: {_cell(explain.get('title', ''))}", "",
             f"- **{status}**: {_cell(_clip(outcome.message))}"]
    if explain.get("path"):
        lines.append(f"- case: `{explain['path']}`")
    source = explain.get("source") or {}
    if source:
        lines.append(f"- source: {_cell(source.get('ref', ''))}" + (f" — “{_cell(source['quote'])}”" if source.get("quote") else ""))
    if explain.get("note"):
        lines.append(f"- note: {_cell(explain['note'])}")
    if explain.get("knobs"):
        lines.append(f"- knobs: {_cell(knobs_text(explain['knobs']))}")
    lines += [f"- rule: {_cell(rule_text(rule))}" for rule in explain.get("rules") or []]
    if outcome.keys:
        lines.append("- keys: " + ", ".join(f"`{k}` {v}" for k, v in outcome.keys.items()))
    return lines + [""]


def _clip(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
