"""The log commands of the CLI: simulate, audit, replay (see `baloot COMMAND --help`)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter

from .errors import BalootError

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2


def _override(args) -> dict | None:
    from .cli import _parse_sets
    if not (args.preset or args.sets or args.overlays):
        return None
    return {"preset": args.preset or "default", "set": _parse_sets(args.sets), "overlays": list(args.overlays)}


def simulate(args) -> int:
    from .cli import _parse_sets, _Usage
    from .rules import load_variant
    from .simulate import simulate_hands, simulate_matches, write_jsonl
    count = args.hands if args.hands is not None else args.matches
    if count is None or count < 0:
        raise _Usage("--hands/--matches takes a count of 0 or more")
    rules = load_variant(args.preset, _parse_sets(args.sets), args.overlays)
    documents = simulate_hands(rules, count, args.seed) if args.hands is not None else simulate_matches(rules, count, args.seed)
    progress = _Progress("written", count, force=False)
    from . import budget
    from .budget import BudgetExceeded, budgeted
    from .errors import RuleRuntimeError
    # (the time budget per hand; a match's document: its 300 hands at most)
    documents = budgeted(documents, budget.MAX_SECONDS_PER_HAND * (1 if args.hands is not None else 300))
    try:
        if args.out == "-":
            write_jsonl(documents, sys.stdout, progress.tick)
        else:
            try:
                from .atomic import atomic_write
                with atomic_write(args.out) as stream:   # (interrupted: the old file stays as it was)
                    written = write_jsonl(documents, stream, progress.tick)
            except OSError as exc:
                raise _Usage(f"cannot write {args.out}: {exc.strerror or exc}") from None
    except BudgetExceeded as exc:
        raise RuleRuntimeError("(engine)", exc) from None
    finally:
        documents.close()
    if args.out != "-":
        progress.done()
        print(f"wrote {written} {'hands' if args.hands is not None else 'matches'} to {args.out} "
              f"(preset {rules.variant.preset}, variant {rules.hash}, seed {args.seed})", file=sys.stderr)
    return EXIT_OK


def audit(args) -> int:
    from .cli import _Usage
    from .log.reader import read_raw
    if args.jobs < 1:
        raise _Usage(f"--jobs takes a whole number of at least 1, not {args.jobs}")
    from .limits import capped_jobs
    args.jobs, note = capped_jobs(args.jobs)
    if note:
        print(f"baloot: note: {note}", file=sys.stderr)
    override = _override(args)
    if override:  # fail early, located, if the variant given on the command line is broken
        from .rules import load_variant
        load_variant(override["preset"], override["set"], override["overlays"])
    started = time.perf_counter()
    totals = Counter()
    by_rule = Counter()
    reports = []
    progress = _Progress("hands audited", None, force=args.progress)

    def consume(report: dict) -> None:
        totals["documents"] += 1
        totals["hands"] += report["hands"]
        totals["violations"] += len(report["violations"])
        totals["unreadable"] += 1 if report["errors"] else 0
        for violation in report["violations"]:
            by_rule[violation["rule"]] += 1
        if args.json:
            reports.append(report)
        else:
            _print_report(report)
        progress.tick(totals["hands"])

    items = read_raw(args.logs)
    if args.jobs > 1 and os.name != "posix":
        print("baloot: --jobs needs POSIX pipes; auditing in one process", file=sys.stderr)
    if args.jobs > 1 and os.name == "posix":
        from .parallel import ordered_map, start_method
        if start_method() == "fork":   # what every worker needs, loaded once before the fork
            from .audit import audit_text  # noqa: F401
            from .log.reader import prepare_checks
            from .rules import load_variant
            prepare_checks()     # compiles the log schema's validator
            if not override:     # (an override is loaded above already)
                load_variant()
        # Chunks of 64 documents (about 20 ms of work), two in flight per worker: a worker never
        # waits for its next chunk, and at the end of the input neither waits long for the other.
        for report in ordered_map(_audit_item, items, args.jobs, 64, override):
            consume(report)
    else:
        for item in items:
            consume(_audit_item(item, override))
    progress.done()
    if getattr(args, "html", None):
        _audit_html(args)
    elapsed = time.perf_counter() - started
    summary = {"documents": totals["documents"], "hands": totals["hands"], "violations": totals["violations"],
               "unreadable": totals["unreadable"], "by_rule": dict(by_rule.most_common()), "seconds": round(elapsed, 3),
               "hands_per_second": round(totals["hands"] / elapsed, 1) if elapsed > 0 else None}
    if args.json:
        print(json.dumps({"summary": summary, "documents": reports}, indent=2))
    else:
        print(f"audited {summary['hands']} hands in {summary['documents']} documents in {elapsed:.2f} s: "
              f"{summary['violations']} violations, {summary['unreadable']} unreadable")
        for rule, count in by_rule.most_common():
            print(f"  {count:>6}  {rule}")
    if totals["unreadable"]:
        return EXIT_USAGE
    if not totals["documents"]:
        print("baloot: error: the input holds no log document", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_FOUND if totals["violations"] else EXIT_OK


def _audit_html(args) -> None:
    """`audit --html FILE`: the HTML replay of the audited log(s), each violation at its event."""
    import argparse
    replay_args = argparse.Namespace(**{**vars(args), "log": None, "hand": None, "sheet": True, "json": False})
    logs = list(args.logs)
    if len(logs) != 1:
        from .cli import _Usage
        raise _Usage("--html takes one log (a file of one or more documents)")
    replay_args.log = logs[0]
    with open(os.devnull, "w") as quiet:   # the audit's report is the output; the replay only writes the page
        saved, sys.stdout = sys.stdout, quiet
        try:
            replay(replay_args)
        finally:
            sys.stdout = saved


def _audit_item(item, override) -> dict:
    """One document's report (what a worker process runs): never raises for bad input."""
    name, line, text, error = item
    if text is None:
        return {"file": name, "line": line, "hands": 0, "violations": [], "notes": [],
                "errors": [{"path": "$", "message": error}]}
    from .audit import audit_text
    try:
        return audit_text(name, line, text, override)
    except BalootError as exc:  # a rules problem surfacing late: report, never crash the run
        return {"file": name, "line": line, "hands": 0, "violations": [], "notes": [],
                "errors": [{"path": "$", "message": str(exc)}]}


def _print_report(report: dict) -> None:
    where = f"{report['file']}:{report['line']}" if report["line"] else report["file"]
    for error in report["errors"]:
        position = f":{error['line']}:{error.get('column', 1)}" if error.get("line") and not report["line"] else ""
        print(f"{where}{position} {error['path']}: unreadable: {error['message']}")
    for violation in report["violations"]:
        source = f" ({violation['source']})" if violation.get("source") else ""
        after = f" [after the earlier violation at {violation['after']}]" if violation.get("after") else ""
        print(f"{where} {violation['path']}: {violation['rule']}: {violation['message']}{source}{after}")
    for note in report["notes"]:
        print(f"{where} note: {note}")


def replay(args) -> int:
    """Tell each hand of a log (the audit's walk: exit 1 when it finds violations, as `audit`)."""
    from .cli import _Usage
    from .log.reader import read_logs
    from .replay import render_text, replay_document
    items = list(read_logs([args.log]))
    if not items:
        raise _Usage(f"{args.log} holds no log document")
    bad = [item for item in items if item.errors]
    for item in bad:
        for error in item.errors:
            print(f"baloot: {item.where} {error['path']}: {error['message']}", file=sys.stderr)
    if bad:
        return EXIT_USAGE
    output, found = [], 0
    override = _override(args)
    for item in items:
        stories, report = replay_document(item, override, frames=bool(getattr(args, "html", None)))
        if report.errors:
            for error in report.errors:
                print(f"baloot: {item.where} {error['path']}: {error['message']}", file=sys.stderr)
            return EXIT_USAGE
        count = len(item.document["hands"])
        for k in range(len(stories), count):   # after the end of the match the audit stops
            stories.append({"hand": k + 1, "dealer": item.document["hands"][k]["dealer"], "match_before": None,
                            "stopped": "not replayed: the match was over before this hand (match.ended)"})
        if args.hand is not None:
            if not 1 <= args.hand <= count:
                raise _Usage(f"--hand {args.hand}: {item.where} has {count} hand{'s' if count != 1 else ''}")
            stories = [s for s in stories if s["hand"] == args.hand]
        found += len(report.violations)
        entry = {"log": item.where, "variant": report.rules.variant.describe(), "hands": stories,
                 "audit": report.as_json()}
        if getattr(args, "sheet", False) or getattr(args, "html", None):
            from .sheet import score_sheet
            entry["sheet"] = score_sheet(report.rules, item.document, stories)
        output.append(entry)
    if getattr(args, "html", None):
        from .replay_html import write_html
        write_html(args.html, output)
        print(f"wrote {args.html}", file=sys.stderr)
    elif args.json:
        if getattr(args, "sheet", False):
            output = [{"log": e["log"], "variant": e["variant"], "sheet": e["sheet"]} for e in output]
        print(json.dumps(output if len(output) != 1 else output[0], indent=2))
    else:
        for entry in output:
            print(f"# {entry['log']}  (preset {entry['variant']['preset']}, variant {entry['variant']['hash']})\n")
            if getattr(args, "sheet", False):
                from .sheet import render_sheet
                print(render_sheet(entry["sheet"]))
            else:
                print(render_text(entry["hands"]))
    return EXIT_FOUND if found else EXIT_OK


class _Progress:
    """A progress line on stderr for long runs (only on a terminal unless forced)."""

    def __init__(self, what: str, total, force: bool):
        self.what, self.total = what, total
        self.enabled = force or sys.stderr.isatty()
        self.last = 0.0
        self.count = 0

    def tick(self, count: int) -> None:
        self.count = count
        now = time.monotonic()
        if self.enabled and now - self.last > 0.5:
            self.last = now
            of = f"/{self.total}" if self.total else ""
            print(f"\r{count}{of} {self.what}", end="", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.enabled and self.last:
            print(f"\r{self.count} {self.what}", file=sys.stderr)
