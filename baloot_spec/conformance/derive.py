"""`baloot conformance derive`: the corpus re-expected under a variant by the reference engine.

Every case is moved to the variant (preset, --set, --overlay) and answered there. A case whose
expectation holds is written unchanged but for its `variant`; a case whose answer differs gets
the new answer as `expect` and `derived: {"from": its own variant, "rules": [the rule ids that
make the difference]}`; a case the variant cannot answer (a setup event refused, a refused
action now accepted) is left out and counted. Each case keeps its id, title, source and note;
the files keep the layout of conformance/cases, so the folder is a corpus of its own (run it
with baloot conformance run --cases DIR ...).

Derived expectations come from the reference engine, not from a rulebook sentence: they say
what these rules do, which is what a house-rules app wants checked.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path

from ..rules import load_variant
from ..resources import conformance_dir
from .corpus import Case, load_corpus
from .difference import difference_rules
from .retarget import reference_answer, spec_of, variant_spec
from .runner import FAIL, PASS, rules_for


class DeriveProblem(Exception):
    """Bad input for derive (the CLI prints it and exits 2)."""


def derive_case(case: Case, variant: dict, new_rules) -> tuple[str, dict | None, str]:
    """(outcome, the case for the derived corpus or None, reason) with outcome one of
    kept / derived / left out."""
    status, answer, why = reference_answer(case, variant)
    if status == PASS:
        return "kept", dict(case.data, variant=variant), ""
    if status != FAIL:
        return "left out", None, why
    data = dict(case.data, variant=variant, expect=answer)
    data["derived"] = {"from": spec_of(case), "rules": difference_rules(case, rules_for(case), new_rules)}
    return "derived", data, ""


def derive_corpus(cases: list[Case], variant: dict) -> dict:
    """-> {"files": {relative path: [case data]}, "counts": Counter, "left_out": [{id, reason}]}."""
    rules = load_variant(variant["preset"], variant.get("set") or {}, variant.get("overlays") or [])
    files: dict[str, list] = {}
    counts, left_out = Counter(), []
    for case in cases:
        outcome, data, why = derive_case(case, variant, rules)
        counts[outcome] += 1
        if data is None:
            left_out.append({"id": case.id, "reason": why})
            continue
        files.setdefault(relative_path(case.file), []).append(data)
    return {"files": files, "counts": counts, "left_out": left_out, "hash": rules.hash}


def relative_path(display: str) -> str:
    """A case file's path inside the cases folder ('conformance/cases/play/x.json' -> 'play/x.json')."""
    parts = Path(display).parts
    return str(Path(*parts[parts.index("cases") + 1:])) if "cases" in parts else Path(display).name


def description_of(display: str) -> str:
    path = conformance_dir().parent / display
    try:
        return json.loads(path.read_text(encoding="utf-8"))["description"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def write_corpus(result: dict, out: Path, label: str, sources: dict) -> None:
    for relative, cases in result["files"].items():
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        description = (sources.get(relative) or "").rstrip() + f" (derived under {label} by `baloot conformance derive`)"
        path.write_text(json.dumps({"description": description.strip(), "cases": cases}, indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")


def run(args) -> int:
    """The `conformance derive` command (exit 0; 2 through DeriveProblem / RulesError).
    `args.parsed_sets` holds the --set values as a dict (cli/conformance.py parses them)."""
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise DeriveProblem(f"--out {args.out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not args.force:
        raise DeriveProblem(f"--out {args.out}: the folder is not empty (give --force to write into it anyway)")
    sets = dict(args.parsed_sets)
    overlays = [str(Path(o).resolve()) if Path(o).suffix in (".yaml", ".yml") else o for o in args.overlays]
    rules = load_variant(args.preset or "default", sets, overlays)      # a located RulesError (exit 2) before any work
    variant = variant_spec(args.preset or "default", {k: rules.variant.knobs[k] for k in sets}, overlays)
    label = (args.preset or "default") + "".join(f" {s}" for s in args.sets) + "".join(f" +{o}" for o in args.overlays)
    cases = load_corpus()
    result = derive_corpus(cases, variant)
    sources = {relative_path(c.file): description_of(c.file) for c in cases}
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_corpus(result, out, label, sources)
    except OSError as exc:
        raise DeriveProblem(f"--out {args.out}: cannot write: {exc.strerror or exc}") from None
    counts = result["counts"]
    summary = {"variant": variant, "hash": result["hash"], "out": str(out), "cases": len(cases),
               "kept": counts["kept"], "derived": counts["derived"], "left_out": counts["left out"],
               "left_out_cases": result["left_out"]}
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(f"derived under {label} (variant {result['hash']}) into {out}: {counts['kept']} cases kept, "
              f"{counts['derived']} re-expected (marked `derived`), {counts['left out']} left out "
              f"(not answerable there) of {len(cases)}")
        for entry in result["left_out"][:10]:
            print(f"  left out {entry['id']}: {entry['reason']}", file=sys.stderr)
        if len(result["left_out"]) > 10:
            print(f"  ... and {len(result['left_out']) - 10} more (--json lists them all)", file=sys.stderr)
        print(f"run it: baloot conformance run --cases {os.fspath(out)} [--engine CMD]")
    return 0
