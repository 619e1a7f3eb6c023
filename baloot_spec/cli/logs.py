"""The log commands of the CLI: simulate, audit, replay (see `baloot COMMAND --help`).

`_audit_item` (one document's audit) is also what the worker processes of `--jobs` and `--dask`
run, sent by name."""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter

from ..errors import BalootError
from .options import EXIT_FOUND, EXIT_OK, EXIT_USAGE, Parser, Usage, log_variant_options, parse_sets, variant_options


def register(commands) -> None:
    """Add `simulate`, `audit` and `replay` to the top-level subcommands (each handler is looked
    up when the parser is built)."""
    simulate_parser = commands.add_parser("simulate", help="write seeded random games as baloot-log/1 JSON Lines",
                                          description="Play seeded random legal games with the built-in engine and write them "
                                                      "as baloot-log/1 documents, one per line, with the engine's results as "
                                                      "`claimed` (so they audit clean).")
    amount = simulate_parser.add_mutually_exclusive_group(required=True)
    amount.add_argument("--hands", type=int, metavar="N", help="N independent hands (one document each)")
    amount.add_argument("--matches", type=int, metavar="N", help="N complete matches (one document each)")
    simulate_parser.add_argument("--seed", type=int, default=0, help="random seed (default %(default)s)")
    simulate_parser.add_argument("--out", metavar="FILE", default="-", help="output .jsonl file ('-' for stdout, the default)")
    variant_options(simulate_parser)
    simulate_parser.set_defaults(handler=simulate)

    audit_parser = commands.add_parser("audit", help="check recorded games: every illegal action, every wrong score",
                                       description="Replay every event of every hand under the log's variant (or the one "
                                                   "given) and report every problem: illegal calls and cards with the rule "
                                                   "and its source, actions out of turn, wrong deals, and every claimed score "
                                                   "that differs from the recomputed one. Input files are never modified.",
                                       epilog="Exit codes: 0 clean, 1 violations found, 2 unreadable input.")
    audit_parser.add_argument("logs", nargs="+", metavar="LOG", help="files (.json, .jsonl), directories, or '-' for stdin")
    audit_parser.add_argument("--json", action="store_true", help="print the report as JSON")
    audit_parser.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    audit_parser.add_argument("--progress", action="store_true", help="show progress on stderr even when it is not a terminal")
    audit_parser.add_argument("--html", metavar="FILE", help="also write an HTML replay of the (single) log, each violation "
                                                             "marked at its event (see `baloot replay --html`)")
    audit_parser.add_argument("--jsonl", metavar="FILE", help="also write every finding (violation, unreadable document, "
                              "claimed-score difference) as JSON Lines as it is found, one summary line per input file and "
                              "one for the run ('-' for stdout); combine shards' reports with `baloot audit merge`")
    audit_parser.add_argument("--dask", metavar="ADDRESS", help="audit on a Dask cluster: a scheduler's address "
                              "(tcp://host:8786) or local[:N] (N worker processes here, default the core count); the "
                              "workers read the files themselves from the same paths (needs pip install 'baloot-spec[dask]')")
    audit_parser.add_argument("--dask-range", type=int, default=4 << 20, metavar="BYTES",
                              help="with --dask: the bytes of a JSON Lines file one task reads (default 4 MiB)")
    log_variant_options(audit_parser, "audit")
    audit_parser.set_defaults(handler=audit)

    replay_parser = commands.add_parser("replay", help="tell a recorded game hand by hand",
                                        description="Replay a baloot-log/1 game and tell it as a score sheet: deal, bidding, "
                                                    "doubling, tricks, projects and Baloot, every scoring step, the match score.")
    replay_parser.add_argument("log", metavar="LOG", help="a .json or .jsonl log ('-' for stdin)")
    replay_parser.add_argument("--hand", type=int, metavar="K", help="only hand K (from 1)")
    replay_parser.add_argument("--json", action="store_true", help="the same facts as JSON")
    replay_parser.add_argument("--sheet", action="store_true",
                               help="the score sheet as players keep it: one line per hand (dealer, contract, doubling, card "
                                    "points, projects and Baloot, written scores, running match score), then the result")
    replay_parser.add_argument("--html", metavar="FILE", help="write one self-contained HTML page to step through the game "
                                                              "(the table, the legal actions, the scoring in words, the sheet)")
    log_variant_options(replay_parser, "replay")
    replay_parser.set_defaults(handler=replay)



def audit_merge(argv: list) -> int:
    """`baloot audit merge REPORT... [--json]` (its own options): 0 clean, 1 violations, 2 a bad report."""
    from ..audit_merge import ReportError, merge
    parser = Parser(prog="baloot audit merge",
                    description="Combine the --jsonl reports of several audits (shards) into one "
                                "summary: totals, counts by rule id and by input file.",
                    epilog="Exit codes: 0 clean, 1 violations found, 2 a bad report or unreadable input.")
    parser.add_argument("reports", nargs="+", metavar="REPORT", help="reports written by `baloot audit --jsonl FILE`")
    parser.add_argument("--json", action="store_true", help="print the merged summary as JSON")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        merged = merge(args.reports)
    except ReportError as exc:
        print(f"baloot: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(merged, indent=2))
    else:
        print(f"merged {merged['reports']} reports ({merged['inputs']} input files): {merged['hands']} hands in "
              f"{merged['documents']} documents, {merged['violations']} violations, {merged['unreadable']} unreadable")
        for rule, count in merged["by_rule"].items():
            print(f"  {count:>6}  {rule}")
        for file, counts in merged["by_file"].items():
            if counts["violations"] or counts["unreadable"]:
                print(f"  {file}: {counts['violations']} violations, {counts['unreadable']} unreadable, {counts['hands']} hands")
    if merged["unreadable"]:
        return EXIT_USAGE
    return EXIT_FOUND if merged["violations"] else EXIT_OK


def _override(args) -> dict | None:
    if not (args.preset or args.sets or args.overlays):
        return None
    return {"preset": args.preset or "default", "set": parse_sets(args.sets), "overlays": list(args.overlays)}


def simulate(args) -> int:
    from ..rules import load_variant
    from ..simulate import hand_lines, match_lines, write_jsonl
    count = args.hands if args.hands is not None else args.matches
    if count is None or count < 0:
        raise Usage("--hands/--matches takes a count of 0 or more")
    rules = load_variant(args.preset, parse_sets(args.sets), args.overlays)
    # (each document's text made straight from the hand: simulate.py)
    documents = hand_lines(rules, count, args.seed) if args.hands is not None else match_lines(rules, count, args.seed)
    progress = _Progress("written", count, force=False)
    from .. import budget
    from ..budget import BudgetExceeded, budgeted
    from ..errors import RuleRuntimeError
    # (the time budget per hand; a match's document: its 300 hands at most)
    documents = budgeted(documents, budget.MAX_SECONDS_PER_HAND * (1 if args.hands is not None else 300))
    try:
        if args.out == "-":
            write_jsonl(documents, sys.stdout, progress.tick)
        else:
            try:
                from ..atomic import atomic_write
                with atomic_write(args.out) as stream:   # (interrupted: the old file stays as it was)
                    written = write_jsonl(documents, stream, progress.tick)
            except OSError as exc:
                raise Usage(f"cannot write {args.out}: {exc.strerror or exc}") from None
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
    from ..log.reader import read_raw
    if args.jobs < 1:
        raise Usage(f"--jobs takes a whole number of at least 1, not {args.jobs}")
    from ..limits import capped_jobs
    args.jobs, note = capped_jobs(args.jobs)
    if note:
        print(f"baloot: note: {note}", file=sys.stderr)
    override = _override(args)
    if override:  # fail early, located, if the variant given on the command line is broken
        from ..rules import load_variant
        load_variant(override["preset"], override["set"], override["overlays"])
    started = time.perf_counter()
    totals = Counter()
    by_rule = Counter()
    reports = []
    progress = _Progress("hands audited", None, force=args.progress)

    def consume(report: dict) -> None:
        totals["documents"] += report.get("documents", 1)   # (--dask: clean documents may come counted together)
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

    stream_out = _open_jsonl(args)   # --jsonl FILE: findings written as they are found (audit_stream.py)
    if stream_out is not None:
        inner = consume

        def consume(report: dict) -> None:
            stream_out[1].add(report)
            inner(report)

    items = read_raw(args.logs) if not getattr(args, "dask", None) else ()
    if getattr(args, "dask", None):   # the same audit on a Dask cluster (audit_dask.py)
        from ..audit_dask import RateProgress, reports as dask_reports
        if args.jobs > 1:
            raise Usage("--jobs and --dask are two ways to run in parallel: give one")
        if args.dask_range < 1024:
            raise Usage(f"--dask-range takes a number of bytes of at least 1024, not {args.dask_range}")
        progress.enabled = False   # (the rate line below says more: hands/s and an ETA)
        rate = RateProgress(force=args.progress)
        for report in dask_reports(args.logs, override, _audit_item, args.dask, range_bytes=args.dask_range, progress=rate,
                                   compact=not args.json):
            consume(report)
        rate.done()
    elif args.jobs > 1 and os.name != "posix":
        print("baloot: --jobs needs POSIX pipes; auditing in one process", file=sys.stderr)
    if args.jobs > 1 and os.name == "posix":
        from ..parallel import ordered_map, start_method
        if start_method() == "fork":   # what every worker needs, loaded once before the fork
            from ..audit import audit_text  # noqa: F401
            from ..log.reader import prepare_checks
            from ..rules import load_variant
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
    if stream_out is not None:
        stream_out[1].finish(summary)
        if stream_out[0] is not sys.stdout:
            stream_out[0].close()
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


def _open_jsonl(args):
    """(stream, JsonlReport) for `--jsonl FILE`, or None; a usage error if it cannot be written."""
    path = getattr(args, "jsonl", None)
    if not path:
        return None
    from ..audit_stream import JsonlReport
    try:
        stream = sys.stdout if path == "-" else open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise Usage(f"cannot write {path}: {exc.strerror or exc}") from None
    return stream, JsonlReport(stream, args.logs)


def _audit_html(args) -> None:
    """`audit --html FILE`: the HTML replay of the audited log(s), each violation at its event."""
    import argparse
    replay_args = argparse.Namespace(**{**vars(args), "log": None, "hand": None, "sheet": True, "json": False})
    logs = list(args.logs)
    if len(logs) != 1:
        raise Usage("--html takes one log (a file of one or more documents)")
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
    from ..audit import audit_text
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
    from ..log.reader import read_logs
    from ..replay import render_text, replay_document
    items = list(read_logs([args.log]))
    if not items:
        raise Usage(f"{args.log} holds no log document")
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
                raise Usage(f"--hand {args.hand}: {item.where} has {count} hand{'s' if count != 1 else ''}")
            stories = [s for s in stories if s["hand"] == args.hand]
        found += len(report.violations)
        entry = {"log": item.where, "variant": report.rules.variant.describe(), "hands": stories,
                 "audit": report.as_json()}
        if getattr(args, "sheet", False) or getattr(args, "html", None):
            from ..sheet import score_sheet
            entry["sheet"] = score_sheet(report.rules, item.document, stories)
        output.append(entry)
    if getattr(args, "html", None):
        from ..replay_html import write_html
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
                from ..sheet import render_sheet
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
