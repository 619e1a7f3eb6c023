"""The fingerprint document (baloot-fingerprint/1) for people: console lines and Markdown."""

from __future__ import annotations

import json

MATCHED, NONE_OF_THEM, NOT_TESTABLE = "matched", "none of them", "not testable"


def show_value(value) -> str:
    """A knob value as written on a command line (--set K=V): text as it is, others as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def _ids(ids: list, limit: int = 4) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" (+{len(ids) - limit})" if len(ids) > limit else "")


def knob_rows(fp: dict) -> list[tuple[str, str, str]]:
    """(knob, what it is, why) per knob."""
    rows = []
    for name, verdict in fp["knobs"].items():
        status = verdict["status"]
        if status == MATCHED:
            rows.append((name, show_value(verdict["value"]), "witnesses " + _ids(verdict["witnesses"])))
        elif status == NONE_OF_THEM:
            rows.append((name, "none of them", f"closest {show_value(verdict['closest'])}; departs on "
                         + _ids(verdict["departures"])))
        else:
            rows.append((name, "not testable", verdict["reason"]))
    return rows


def summary(fp: dict) -> dict:
    counts = {MATCHED: 0, NONE_OF_THEM: 0, NOT_TESTABLE: 0}
    for verdict in fp["knobs"].values():
        counts[verdict["status"]] += 1
    return counts


def console_lines(fp: dict, quiet: bool = False) -> list[str]:
    engine = fp["engine"]
    run = fp["run"]
    counts = summary(fp)
    lines = [f"fingerprint of {engine.get('name', '?')} {engine.get('version', '')}".rstrip()
             + f" ({len(fp['knobs'])} knobs: {counts[MATCHED]} matched, {counts[NONE_OF_THEM]} none of them, "
               f"{counts[NOT_TESTABLE]} not testable)"]
    if not quiet:
        width = max(len(name) for name in fp["knobs"])
        for name, what, why in knob_rows(fp):
            lines.append(f"  {name:<{width}}  {what:<16}  {why}")
    else:
        lines += [f"  {name}: {what}: {why}" for name, what, why in knob_rows(fp) if what in ("none of them",)]
    closest = fp["closest_preset"]
    differs = ", ".join(closest["differs_on"]) or "nothing"
    lines.append(f"closest preset: {closest['name']} (differs on {len(closest['differs_on'])} knobs: {differs})")
    lines.append(f"variant: {fp['variant']['line']}")
    moot = run.get("moot") or []
    lines.append(f"conformance under that variant: {run['pass']} agree, {run['fail']} differ, "
                 + (f"{len(moot)} not askable (the position given is not one of its), " if moot else "")
                 + f"{run['not_answered']} not answered "
                 f"(of {run['pass'] + run['fail'] + len(moot) + run['not_answered']} cases asked)")
    for failure in run["failures"][: None if not quiet else 10]:
        lines.append(f"  DIFFERS {failure['id']}: the engine: {failure['engine'][:200]}; the variant: "
                     f"{failure['expected'][:200]}")
    return lines


def to_markdown(fp: dict) -> str:
    """The fingerprint as a Markdown section (engine_report.py embeds it)."""
    engine = fp["engine"]
    run = fp["run"]
    counts = summary(fp)
    out = [f"## Fingerprint: which Baloot does {engine.get('name', '?')} play?", "",
           f"`baloot conformance fingerprint` ({fp['format']}): {counts[MATCHED]} knobs matched, "
           f"{counts[NONE_OF_THEM]} none of them, {counts[NOT_TESTABLE]} not testable.", "",
           f"- closest preset: **{fp['closest_preset']['name']}**",
           f"- the variant it plays: `{fp['variant']['line']}`",
           f"- under that variant: {run['pass']} cases agree, {run['fail']} differ, {run['not_answered']} not answered"
           + (f"; {len(run['moot'])} cannot be asked of it (the position the engine was given is not one of its: "
              f"{_ids(run['moot'])})" if run.get("moot") else ""),
           "", "| knob | value | witnesses / why |", "| --- | --- | --- |"]
    for name, what, why in knob_rows(fp):
        out.append(f"| `{name}` | {what} | {why.replace('|', '/')} |")
    if run["failures"]:
        out += ["", "What no known variant explains (answered cases that differ under that variant):", "",
                "| case | depends on | the engine | the variant |", "| --- | --- | --- | --- |"]
        for f in run["failures"]:
            out.append(f"| `{f['id']}` | {', '.join(f['depends_on']) or '-'} | {f['engine'][:160].replace('|', '/')} | "
                       f"{f['expected'][:160].replace('|', '/')} |")
    return "\n".join(out) + "\n"
