"""`baloot conformance run`: choose the cases, run them (in process or through an engine
program), apply the expected failures, print the table and write the reports.

Kept out of cli/conformance.py, which only defines the options (and parses --set into
`args.parsed_sets`), so that the command line stays a thin layer of argument definitions.
Every problem with the input (an unknown feature or preset, an unreadable expected-failures
file, an engine that cannot start) is a UsageProblem or a located CaseError: exit 2.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
import sys

EXIT_OK, EXIT_FOUND = 0, 1


class UsageProblem(Exception):
    """Bad command-line input; the CLI prints it and exits 2."""


def split_patterns(values) -> list[str]:
    """Repeatable options that also take comma-separated lists: --select a,b --select c."""
    return [p.strip() for value in values or () for p in value.split(",") if p.strip()]


def pattern_hits(feature: str, pattern: str) -> bool:
    return feature == pattern or feature.startswith(pattern + ".") or fnmatch.fnmatch(feature, pattern)


def check_patterns(patterns: list[str], option: str, registry) -> None:
    for pattern in patterns:
        if not any(pattern_hits(f, pattern) for f in registry):
            raise UsageProblem(f"{option} {pattern!r} names no feature (the names are in conformance/features.json, "
                               f"e.g. {', '.join(list(registry)[:3])}; a prefix like 'play' selects play.*)")


def select_cases(cases, select: list[str], exclude: list[str], id_pattern: str | None) -> list:
    def hit(features, patterns):
        return any(pattern_hits(f, p) for f in features for p in patterns)
    return [c for c in cases
            if (not select or hit(c.features, select)) and not (exclude and hit(c.features, exclude))
            and (not id_pattern or fnmatch.fnmatch(c.id, id_pattern))]


def _writable(path: str | None, option: str) -> None:
    if path and path != "-":
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise UsageProblem(f"{option} {path}: the folder {folder} does not exist")


def _write(path: str, text: str, option: str) -> None:
    if path == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    from ..atomic import atomic_write
    try:
        with atomic_write(path) as handle:   # (interrupted: an old report stays as it was)
            handle.write(text if text.endswith("\n") else text + "\n")
    except OSError as exc:
        raise UsageProblem(f"{option}: cannot write {path}: {exc.strerror or exc}") from None


def run(args) -> int:
    from .. import __version__
    from ..rules.loader import load_presets
    from .corpus import corpus_digest, feature_registry, load_corpus
    from .expectations import apply_expected_failures, load_expected_failures
    from .harness import EngineUnavailable, run_engine, run_in_process
    from .junit import junit_xml
    from .markdown import markdown_report
    from .console import failing as failing_outcomes, failure_lines
    from .explain import explain_outcomes
    from .grouping import console_lines
    from .report import dump_report, feature_table, json_report, keys_table, totals
    from .runner import ERROR, FAIL, PASS
    from .status import is_unexpected

    from ..limits import capped_jobs, check_timeout
    timeout = 10.0 if getattr(args, "timeout", None) is None else float(args.timeout)
    jobs = 1 if getattr(args, "jobs", None) is None else int(args.jobs)
    try:
        timeout = check_timeout(timeout)   # (inf, nan, negative: refused, never an overflow later)
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None
    if jobs < 1:
        raise UsageProblem(f"--jobs takes a whole number of at least 1, not {args.jobs}")
    jobs, note = capped_jobs(jobs)
    if note:
        print(f"baloot: note: {note}", file=sys.stderr)
    argv = None
    if getattr(args, "engine", None) is not None:
        argv = engine_argv(args.engine)
    registry = feature_registry()
    select, exclude = split_patterns(args.select), split_patterns(args.exclude)
    check_patterns(select, "--select", registry)
    check_patterns(exclude, "--exclude", registry)
    if args.preset and args.preset not in load_presets():
        raise UsageProblem(f"--preset {args.preset!r} is not a preset (see `baloot variants`: "
                           f"{', '.join(sorted(load_presets()))})")
    target = None
    if args.preset or args.sets or args.overlays:
        from .harness import target_of
        label = (args.preset or "default") + "".join(f" {s}" for s in args.sets) + "".join(f" +{o}" for o in args.overlays)
        target = target_of(args.preset or "default", args.parsed_sets, args.overlays, label)
    for path, option in ((args.json_out, "--json"), (getattr(args, "junit", None), "--junit"),
                         (getattr(args, "markdown", None), "--markdown")):
        _writable(path, option)
    expected = {}
    expected_file = getattr(args, "expected_failures", None)
    if expected_file:
        expected = load_expected_failures(expected_file)

    case_paths = getattr(args, "case_paths", None) or []
    if case_paths:
        from .case_paths import load_case_paths
        cases = load_case_paths(case_paths)
    else:
        cases = load_corpus()
    chosen = select_cases(cases, select, exclude, args.id_pattern)
    if not chosen:
        print("baloot: error: no case matches the selection", file=sys.stderr)
        return 2

    show_progress = sys.stderr.isatty() and not args.quiet

    def progress(number, total, outcome):
        if show_progress and (number % 25 == 0 or number == total):
            print(f"\r{number}/{total} cases", end="", file=sys.stderr, flush=True)

    setups = (args.setup,) if getattr(args, "setup", None) else None
    if argv is None:
        result = run_in_process(chosen, target, progress, setups=setups or ("events",))
    else:
        try:
            result = run_engine(chosen, argv, target, timeout, jobs, progress, setups=setups)
        except EngineUnavailable as exc:
            raise UsageProblem(f"the engine {args.engine!r} cannot be used: {exc}") from None
    if show_progress:
        print(file=sys.stderr)
    outcomes = result.outcomes
    explain_outcomes(outcomes)
    # (a report written to standard output keeps it to itself: the table and totals go to stderr)
    out = sys.stderr if "-" in (args.json_out, getattr(args, "markdown", None), getattr(args, "junit", None)) else sys.stdout
    stale = apply_expected_failures(outcomes, expected, [c.id for c in cases], expected_file or "")

    for outcome in failing_outcomes(outcomes, args.quiet):
        print("\n".join(failure_lines(outcome)), file=out)
    for line in console_lines(outcomes, args.quiet):
        print(line, file=out)
    for entry in stale:
        print(f"STALE {expected_file}: {entry['id']!r} {entry['problem']} (reason given: {entry['reason']})", file=out)
    if not args.quiet:
        print(feature_table(outcomes), file=out)
        table = keys_table(outcomes)
        if table:
            print(table, file=out)
    t = totals(outcomes)
    who = "built-in engine" if argv is None else f"{result.engine.get('name', '?')} {result.engine.get('version', '')}".strip()
    extra = f"; {t['expected_failures']} expected failures" if t["expected_failures"] else ""
    extra += f"; the engine was restarted {result.restarts} times" if result.restarts else ""
    print(f"conformance: {t['pass']} passed, {t['fail']} failed, {t['error']} errors, {t['skipped']} skipped, "
          f"{t['unsupported']} unsupported, {t['not_applicable']} not applicable of {t['total']} cases ({who}{extra})", file=out)
    k = t["keys"]
    print(f"expected keys: {k['pass']} passed, {k['fail']} failed, {k['unsupported']} not produced by the engine (unsupported)",
          file=out)

    selection = {"preset": args.preset, "select": select, "exclude": exclude, "id": args.id_pattern}
    if case_paths:
        selection["cases"] = list(case_paths)
    corpus = {"version": __version__, "cases": len(cases), "hash": corpus_digest(cases)}
    if args.json_out:
        xf = {"file": expected_file, "entries": len(expected), "stale": stale} if expected_file else None
        report = json_report(outcomes, cases, result.engine, selection, claims=result.claims, command=result.command,
                             expected_failures=xf, restarts=result.restarts, seconds=result.seconds)
        _write(args.json_out, dump_report(report), "--json")
    if getattr(args, "junit", None):
        _write(args.junit, junit_xml(outcomes, engine=result.engine, corpus_hash=corpus["hash"], stale=stale), "--junit")
    if getattr(args, "markdown", None):
        variant = f"preset {args.preset}" if args.preset else "each case under its own variant"
        _write(args.markdown, markdown_report(outcomes, engine=result.engine, corpus=corpus, variant=variant, stale=stale),
               "--markdown")
    failing = any(is_unexpected(o) for o in outcomes) or bool(stale)
    if not failing and not any(o.status in (PASS, FAIL, ERROR) for o in outcomes):
        print(f"baloot: error: none of the {len(outcomes)} selected cases applies (not applicable, unsupported "
              "or skipped): nothing was checked" + _why_none(outcomes, target, args), file=sys.stderr)
        return 2
    return EXIT_FOUND if failing else EXIT_OK


def _why_none(outcomes, target, args) -> str:
    """With --preset/--set/--overlay and nothing applicable: why, with an example."""
    from .status import NOT_APPLICABLE
    if target is None or not all(o.status == NOT_APPLICABLE for o in outcomes):
        return ""
    return (f"; the cases differ from {target.label} on a knob they depend on (conformance/dependencies.json)"
            f"{_overlay_hint(args)}; e.g. {outcomes[0].case.id}: {outcomes[0].message}")


def _overlay_hint(args) -> str:
    return (" or answered differently under the overlay; `baloot conformance derive` writes a corpus re-expected "
            "under it") if args.overlays else ""


def engine_argv(command: str) -> list:
    """--engine's text as the program's argv (shell-split); UsageProblem if it is not one."""
    try:
        argv = shlex.split(command, posix=(os.name == "posix"))
    except ValueError as exc:
        raise UsageProblem(f"--engine {command!r}: {exc}") from None
    if not argv:
        raise UsageProblem("--engine takes the command that starts the engine, e.g. 'node engine.js'")
    return argv


# ---- baloot conformance fingerprint ---------------------------------------------------------------
def add_fingerprint_parser(conf_commands):
    """The `fingerprint` sub-command's arguments (cli/conformance.py calls this and sets its handler)."""
    fp = conf_commands.add_parser(
        "fingerprint", help="which Baloot does an engine play? each knob's value, the closest preset, what is left",
        description="Ask an engine program every case once (each under its own variant: an app that plays one "
                    "Baloot ignores it), then find the variant whose reference answers its answers match: for each "
                    "knob the value, with the witness cases that tell it from the others; 'none of them' (a "
                    "departure no knob value describes) or 'not testable' (the engine does not answer what the "
                    "witnesses need, or they do not tell the values apart). Then the closest preset, the "
                    "--preset/--set line of that variant, and every answered case judged under it "
                    "(conformance/ENGINES.md, Step 0).",
        epilog="Exit codes: 0 every knob matched or not testable and every answered case agrees under the variant "
               "found, 1 a knob with 'none of them' or a case that differs, 2 usage error or an engine that cannot start.")
    fp.add_argument("--engine", required=True, metavar="CMD",
                    help="the command that starts the engine (shell-split), e.g. "
                         "'python conformance/engines/builtin_adapter.py --preset riyadh'")
    fp.add_argument("--json", dest="json_out", metavar="FILE", help="also write the fingerprint as JSON "
                                                                    "(format baloot-fingerprint/1; '-' for stdout)")
    fp.add_argument("--markdown", metavar="FILE", help="also write it as Markdown ('-' for stdout)")
    fp.add_argument("--timeout", type=float, default=10.0, metavar="S",
                    help="seconds the engine has for each response (default: %(default)s)")
    fp.add_argument("--quiet", action="store_true", help="no progress; print only departures and the summary")
    return fp


def fingerprint_run(args) -> int:
    """`baloot conformance fingerprint`: print, write the reports; exit 0 / 1 (departures) / 2."""
    import json as json_module
    from ..limits import check_timeout
    from .fingerprint import NONE_OF_THEM, console_lines, fingerprint, to_markdown
    from .harness import EngineUnavailable
    try:
        timeout = check_timeout(float(args.timeout))
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None
    argv = engine_argv(args.engine)
    for path, option in ((args.json_out, "--json"), (args.markdown, "--markdown")):
        _writable(path, option)
    progress = None if args.quiet else (lambda message: print(f"fingerprint: {message}", file=sys.stderr, flush=True))
    try:
        fp = fingerprint(argv, timeout=timeout, progress=progress)
    except EngineUnavailable as exc:
        raise UsageProblem(f"the engine {args.engine!r} cannot be used: {exc}") from None
    out = sys.stderr if "-" in (args.json_out, args.markdown) else sys.stdout
    print("\n".join(console_lines(fp, quiet=args.quiet)), file=out)
    if args.json_out:
        _write(args.json_out, json_module.dumps(fp, indent=1, ensure_ascii=False), "--json")
    if args.markdown:
        _write(args.markdown, to_markdown(fp), "--markdown")
    departed = any(v["status"] == NONE_OF_THEM for v in fp["knobs"].values()) or fp["run"]["fail"]
    return EXIT_FOUND if departed else EXIT_OK
