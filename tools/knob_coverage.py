#!/usr/bin/env python3
"""Does every knob value have a conformance case that tells it apart from another value?

    python tools/knob_coverage.py [--knob NAME ...] [--json]

Issue 7 asks, for every value of every knob in rules/params.yaml, for at least one case that
passes under that value and fails under another. For each knob value this tool looks for such
a case: a case whose resolved variant has the value (it passes: the corpus is green), run again
with the knob switched to each other value (`--set` on top of the case's own variant); the first
case that then fails or errors is the witness. Cases that name the knob are tried first. Exit 0
when every value has a witness, 1 otherwise (the values without one are listed).

An integer knob (match_target) is covered at its default and at every value a preset gives it,
each against the value one below and one above.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baloot_spec.conformance.corpus import Case, load_corpus  # noqa: E402
from baloot_spec.conformance.runner import PASS, run_case, rules_for  # noqa: E402
from baloot_spec.errors import BalootError  # noqa: E402
from baloot_spec.rules import load_variant  # noqa: E402


def knob_values() -> dict:
    """knob -> the values to cover (from the resolved default variant's knob declarations)."""
    knobs = load_variant().variant.params
    out = {}
    for name, spec in knobs.items():
        if spec.type == "int":
            out[name] = None   # any integer: compared with its neighbours
        else:
            out[name] = list(spec.values)
    return out


def preset_values(knob: str) -> list:
    """The values of an integer knob worth covering: its default and what any preset sets."""
    presets = sorted(p.stem for p in (ROOT / "rules" / "presets").glob("*.yaml"))
    return sorted({load_variant(name).variant.knobs[knob] for name in presets})


def alternatives(values, value):
    if values is None:
        return [value - 1, value + 1]
    return [v for v in values if v != value]


def switched(case: Case, knob: str, value) -> Case:
    data = copy.deepcopy(case.data)
    variants = [data.setdefault("variant", {})]
    if case.kind == "audit":   # a log is audited under its own variant: switch that one too
        log_variant = data["setup"]["log"]["variant"]
        log_variant.pop("hash", None)   # (else the stale hash alone would be reported)
        variants.append(log_variant)
    for variant in variants:
        variant["set"] = dict(variant.get("set") or {}, **{knob: value})
    return Case(data, case.file, case.index)


def witness(cases: list, knob: str, value, values) -> dict | None:
    """The first case with knob=value that fails once the knob takes another value."""
    for case, resolved in cases:
        if resolved.get(knob) != value:
            continue
        for other in alternatives(values, value):
            try:
                load_variant(*_variant_args(switched(case, knob, other)))
            except BalootError:
                continue   # e.g. a refused combination of knobs: not a comparison
            outcome = run_case(switched(case, knob, other))
            if outcome.status != PASS:
                return {"case": case.id, "other": other, "status": outcome.status}
    return None


def _variant_args(case: Case):
    variant = case.data["variant"]
    return variant.get("preset", "default"), variant.get("set") or {}, variant.get("overlays") or []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--knob", action="append", default=[], help="only this knob (repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    all_values = knob_values()
    unknown = [k for k in args.knob if k not in all_values]
    if unknown:
        parser.error(f"unknown knob(s): {', '.join(unknown)} (knobs: {', '.join(sorted(all_values))})")
    corpus = []
    for case in load_corpus():
        try:
            corpus.append((case, dict(rules_for(case).variant.knobs)))
        except BalootError:
            continue
    report, missing = {}, []
    for knob in args.knob or sorted(all_values):
        values = all_values[knob]
        mentions = [c for c in corpus if knob in json.dumps(c[0].data)]
        ordered = mentions + [c for c in corpus if c not in mentions]
        targets = values if values is not None else preset_values(knob)
        for value in targets:
            found = witness(ordered, knob, value, values)
            report[f"{knob}={value}"] = found
            if found is None:
                missing.append(f"{knob}={value}")
            if not args.json:
                print(f"{knob}={value}: " + (f"{found['case']} ({found['status']} with {knob}={found['other']})"
                                             if found else "NO CASE tells it apart"), flush=True)
    if args.json:
        print(json.dumps({"witnesses": report, "missing": missing}, indent=2))
    elif missing:
        print(f"\n{len(missing)} knob value(s) without a case: {', '.join(missing)}")
    else:
        print(f"\nevery one of {len(report)} knob values has a case that tells it apart")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
