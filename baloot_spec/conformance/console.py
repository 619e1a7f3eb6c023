"""The console report of a run: each failing case with what it is about, then the failures
grouped by rule and by knob (grouping.py), then the table by feature (report.py)."""

from __future__ import annotations

import json

from .runner import ERROR, FAIL
from .status import is_expected_failure


def show_item(item) -> str:
    """An action ({"type": "play", "card": "7D"}) or a key, short: `play 7D`."""
    if not isinstance(item, dict):
        return str(item)
    words = [item.get("type", "?")] + [str(item[k]) for k in ("call", "suit", "card") if k in item]
    return " ".join(words + (["closed"] if item.get("closed") else []))


def knobs_text(knobs: dict) -> str:
    values = ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in knobs.get("values", {}).items())
    depends = knobs.get("depends_on")
    said = "depends on " + (", ".join(depends) or "no knob") if depends is not None else "dependencies not computed"
    return f"{values or '-'} ({said}; variant: preset {knobs.get('preset', 'default')}" + \
        "".join(f" {k}={v}" for k, v in (knobs.get("set") or {}).items()) + ")"


def rule_text(rule: dict) -> str:
    items = ", ".join(show_item(i) for i in rule.get("items", []))
    said = rule.get("message") or rule.get("explain") or ""
    return f"{rule['rule']} {rule['why']} {items}" + (f" — {said}" if said else "")


def failure_lines(outcome) -> list[str]:
    """A failing or erroring case: the verdict line, then what it is about, indented."""
    note = f" [expected failure: {outcome.details['expected_failure']}]" if is_expected_failure(outcome) else ""
    explain = outcome.details.get("explain") or {}
    path = explain.get("path", outcome.case.path)
    lines = [f"{outcome.status.upper()} {outcome.case.id} ({path}): {outcome.message}{note}"]
    if explain:
        source = explain.get("source") or {}
        lines.append(f"    case:   {explain.get('title', '')}")
        if source:
            quote = f' — "{source["quote"]}"' if source.get("quote") else ""
            lines.append(f"    source: {source.get('ref', '')}{quote}")
        if explain.get("note"):
            lines.append(f"    note:   {explain['note']}")
        if explain.get("knobs"):
            lines.append(f"    knobs:  {knobs_text(explain['knobs'])}")
        for rule in explain.get("rules") or []:
            lines.append(f"    rule:   {rule_text(rule)}")
    if outcome.keys and outcome.status == FAIL:
        lines.append("    keys:   " + ", ".join(f"{k} {v}" for k, v in outcome.keys.items()))
    stderr = outcome.details.get("stderr")
    if stderr:
        lines += [f"    stderr| {line}" for line in stderr.rstrip().splitlines()[-8:]]
    return lines


def failing(outcomes, quiet: bool = False) -> list:
    return [o for o in outcomes if o.status in (FAIL, ERROR) and not (quiet and is_expected_failure(o))]
