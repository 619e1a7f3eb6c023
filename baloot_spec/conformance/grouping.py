"""Failures grouped by the rule that decides them and by knob, so that one departure of an engine
reads as one line with its cases under it (every report format shows these groups).

A failing case may sit under several rules (a legal set wrong in two ways) and several knobs.
Errors (a case that could not be run) are grouped apart, except a setup event the engine
refused although our rules keep it: that error sits under the rules that keep the event.
"""

from __future__ import annotations

from .explain import NO_RULE, rule_ids
from .runner import ERROR, FAIL
from .status import is_expected_failure

NO_KNOB = "(no knob known)"


def _entry(outcome) -> dict:
    explain = outcome.details.get("explain") or {}
    entry = {"id": outcome.case.id, "status": outcome.status, "path": explain.get("path", outcome.case.path),
             "title": explain.get("title", ""), "message": outcome.message}
    if is_expected_failure(outcome):
        entry["expected_failure"] = outcome.details["expected_failure"]
    return entry


def by_rule(outcomes) -> list[dict]:
    """[{rule, why, explain?, source?, cases: [...]}], the rule deciding most cases first."""
    groups: dict = {}
    for outcome in outcomes:
        rules = (outcome.details.get("explain") or {}).get("rules") or []
        if outcome.status != FAIL and not (outcome.status == ERROR and rules):
            continue
        for rule in rule_ids(outcome):
            group = groups.get(rule)
            if group is None:
                info = next((r for r in rules if r["rule"] == rule), {})
                group = groups[rule] = {"rule": rule, **{k: info[k] for k in ("explain", "source") if k in info},
                                        "why": sorted({r["why"] for r in rules if r["rule"] == rule}), "cases": []}
            group["cases"].append(_entry(outcome))
    return sorted(groups.values(), key=lambda g: (g["rule"] == NO_RULE, -len(g["cases"]), g["rule"]))


def by_knob(outcomes) -> list[dict]:
    """[{knob: "name=value", cases: [...]}] over failing cases, by the knobs each depends on or sets."""
    groups: dict = {}
    for outcome in outcomes:
        if outcome.status != FAIL:
            continue
        labels = (outcome.details.get("explain") or {}).get("knob_labels") or [NO_KNOB]
        for label in labels:
            groups.setdefault(label, {"knob": label, "cases": []})["cases"].append(_entry(outcome))
    return sorted(groups.values(), key=lambda g: (g["knob"] == NO_KNOB, -len(g["cases"]), g["knob"]))


def errors(outcomes) -> list[dict]:
    return [_entry(o) for o in outcomes if o.status == ERROR]


def failure_groups(outcomes) -> dict:
    """The groups every report shows: by rule, by knob, and the errors."""
    return {"by_rule": by_rule(outcomes), "by_knob": by_knob(outcomes), "errors": errors(outcomes)}


def console_lines(outcomes, quiet: bool = False) -> list[str]:
    """The groups as text: one line per rule (its explain and source), its cases indented below."""
    groups = failure_groups(outcomes)
    lines = []
    if groups["by_rule"]:
        n = len(groups["by_rule"])
        lines.append(f"FAILURES BY RULE ({n} rule{'s' * (n != 1)})")
        for group in groups["by_rule"]:
            said = f" — {group['explain']}" if group.get("explain") else ""
            lines.append(f"  {group['rule']} [{len(group['cases'])} case{'s' * (len(group['cases']) != 1)}]{said}")
            if group.get("source"):
                lines.append(f"      source: {group['source']}")
            for entry in group["cases"]:
                if quiet and "expected_failure" in entry:
                    continue
                known = f" [expected failure: {entry['expected_failure']}]" if "expected_failure" in entry else ""
                lines.append(f"    {entry['id']} ({entry['path']}): {entry['title']}{known}")
    if groups["by_knob"]:
        n = len(groups["by_knob"])
        lines.append(f"FAILURES BY KNOB ({n} group{'s' * (n != 1)})")
        for group in groups["by_knob"]:
            lines.append(f"  {group['knob']} [{len(group['cases'])}]: " + ", ".join(e["id"] for e in group["cases"]))
    return lines
