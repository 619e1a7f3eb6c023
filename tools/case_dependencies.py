"""Compute which knobs every conformance case depends on; write conformance/dependencies.json.

    python tools/case_dependencies.py [--check] [--no-oracle] [--json]

Runs every case under every single-knob change of its own variant with the reference engine
(baloot_spec/conformance/dependencies.py says exactly what is tried), then closes the result
over the presets: every case declared applicable to a preset is run under it, and a failure
adds the knobs that explain it. Unless --no-oracle, every run is also given to the independent
oracle (tools/oracle): where both engines answer, their answers must agree.

Writes conformance/dependencies.json (with --check: only compares and says whether the stored
file is current). Prints the applicable cases per preset, the interactions the closure found,
the oracle figures and the run time. Exit 0: written (or current), no disagreement; 1: the
oracle disagrees somewhere or --check found the file stale; 2: usage or unreadable input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from baloot_spec.conformance.corpus import load_corpus  # noqa: E402
from baloot_spec.conformance.dependencies import compute, dump  # noqa: E402
from baloot_spec.conformance.retarget import knobs_at_run_time, resolved  # noqa: E402
from baloot_spec.errors import BalootError  # noqa: E402

TARGET = os.path.join(ROOT, "conformance", "dependencies.json")


class OracleCheck:
    """Gives every (case, variant) the reference engine was asked to the oracle and counts."""

    def __init__(self):
        self.oracle = load_oracle_runner()
        self.counts = Counter()
        self.disagreements: list[dict] = []
        self.one_sided: list[dict] = []      # one engine answers, the other refuses the setup

    def __call__(self, case, knob, value, variant, status, answer) -> None:
        knobs, overlays = resolved(variant)
        defaults = self.oracle.O.DEFAULTS
        if case.kind not in self.oracle.IMPLEMENTED or overlays or \
                any(k not in defaults and knobs[k] != load_default(k) for k in knobs):
            self.counts["oracle cannot answer (kind, overlay or knob it lacks)"] += 1
            return
        expect = {"reject": None} if status == "accepted" else answer
        data = dict(case.data, variant={"preset": "default", "set": {k: v for k, v in knobs.items() if k in defaults}})
        if expect is not None:
            data["expect"] = expect
        try:
            verdict = self.oracle.run_case(data)
            oracle_answers = True
        except Exception as exc:      # the oracle refuses the setup (its Reject, a bad card...)
            verdict, oracle_answers = (None, repr(exc)), False
        reference_answers = expect is not None
        if reference_answers and oracle_answers:
            if verdict is None:
                self.counts["both answer, agree"] += 1
            else:
                self.counts["both answer, DISAGREE"] += 1
                self.disagreements.append({"case": case.id, "set": {knob: value}, "variant": variant,
                                           "reference": verdict[0], "oracle": verdict[1]})
        elif not reference_answers and not oracle_answers:
            self.counts["neither answers (setup refused by both)"] += 1
        elif reference_answers:
            self.counts["only the reference answers"] += 1
            self.one_sided.append({"case": case.id, "variant": variant, "answers": "reference", "oracle": verdict[1]})
        else:
            self.counts["only the oracle answers"] += 1
            self.one_sided.append({"case": case.id, "variant": variant, "answers": "oracle", "reference": _why_of(case, variant)})


def _why_of(case, variant) -> str:
    from baloot_spec.conformance.retarget import reference_answer
    return reference_answer(case, variant)[2]


def load_oracle_runner():
    """tools/oracle/run_cases.py, loaded so that its `import oracle` finds the module oracle.py
    even where the tools/oracle package is already imported as `oracle` (a test session)."""
    import importlib.util
    folder = os.path.join(ROOT, "tools", "oracle")

    def load(name, file):
        spec = importlib.util.spec_from_file_location(name, os.path.join(folder, file))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    saved = {name: sys.modules.get(name) for name in ("oracle", "presets")}
    try:
        sys.modules["oracle"] = load("oracle", "oracle.py")
        sys.modules["presets"] = load("presets", "presets.py")
        return load("_oracle_run_cases", "run_cases.py")
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def load_default(knob: str):
    from baloot_spec.rules.loader import load_params
    return load_params()[knob].default


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="case_dependencies.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="do not write: exit 1 if the stored file differs")
    parser.add_argument("--no-oracle", action="store_true", help="skip the oracle cross-check (faster)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    parser.add_argument("--fold-knobs", action="store_true",
                        help="compile each variant with its knobs folded in, as the engine does (about five times "
                             "slower; by default the rules are compiled once with the knobs read at run time, "
                             "rules/open_variants.py, which gives the same file)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        cases = load_corpus()
    except BalootError as exc:
        print(f"case_dependencies.py: error: {exc}", file=sys.stderr)
        return 2
    check = None if args.no_oracle else OracleCheck()
    log = None if args.json else (lambda line: print(line, flush=True))
    if args.fold_knobs:
        result = compute(cases, on_probe=check, log=log)
    else:
        with knobs_at_run_time():
            result = compute(cases, on_probe=check, log=log)
    document, figures = result["document"], result["figures"]
    figures["seconds"] = round(time.perf_counter() - started, 1)
    figures["presets"] = document["presets"]
    figures["cases"] = len(cases)
    figures["cases_with_dependencies"] = sum(1 for knobs in document["cases"].values() if knobs)
    if check is not None:
        figures["oracle"] = dict(check.counts)
        figures["oracle_disagreements"] = check.disagreements
        figures["oracle_one_sided"] = check.one_sided
    text = dump(document)
    stale = False
    if args.check:
        try:
            with open(TARGET, encoding="utf-8") as handle:
                stale = handle.read() != text
        except OSError:
            stale = True
        figures["stale"] = stale
    else:
        with open(TARGET, "w", encoding="utf-8") as handle:
            handle.write(text)
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        for name, count in document["presets"].items():
            print(f"{name}: {count} of {len(cases)} cases applicable")
        print(f"{figures['cases_with_dependencies']} of {len(cases)} cases depend on at least one knob")
        if check is not None:
            print("oracle: " + "; ".join(f"{k}: {v}" for k, v in sorted(check.counts.items())))
            for d in check.one_sided[:20]:
                print(f"ONLY THE {d['answers'].upper()} ANSWERS {d['case']} under {json.dumps(d['variant'])}: "
                      f"{json.dumps(d.get('oracle') or d.get('reference'), default=str)}")
            for d in check.disagreements[:20]:
                print(f"DISAGREE {d['case']} under {json.dumps(d['variant'])}: reference {json.dumps(d['reference'])}"
                      f" oracle {json.dumps(d['oracle'], default=str)}")
        print(("STALE: " + TARGET if stale else ("current: " if args.check else "wrote ") + TARGET)
              + f" ({figures['seconds']} s)")
    return 1 if stale or (check is not None and check.disagreements) else 0


if __name__ == "__main__":
    sys.exit(main())
