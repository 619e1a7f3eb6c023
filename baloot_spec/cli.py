"""The `baloot` command line.

Exit codes everywhere: 0 ok, 1 failures or violations found, 2 usage error or unreadable input
(rules, cases, logs), 130 interrupted. Problems with input are printed located (file:line:col, rule id, caret),
never as a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys

from . import __version__
from .errors import BalootError, LocatedError
from .text import show

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130   # (128 + SIGINT, as a shell reports it)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise _ArgumentError(f"{self.prog}: {message}")


class _ArgumentError(SystemExit):
    """argparse's usage error, carrying its message (for --json)."""

    def __init__(self, message: str):
        super().__init__(EXIT_USAGE)
        self.message = message


def _json_error(argv: list, message: str, location=None, rule_id=None) -> None:
    """With --json (or --json -), a usage error is also a JSON object on stdout, so that a
    program reading the output gets an answer it can parse."""
    if not any(a == "--json" or a.startswith("--json=") for a in argv):
        return
    if "--json" in argv and argv.index("--json") + 1 < len(argv) and argv[0] == "conformance" \
            and argv[argv.index("--json") + 1] != "-":
        return   # (the JSON report goes to a file: stdout is not for machines)
    error = {"message": message, "exit": EXIT_USAGE}
    if location is not None:
        error["location"] = {"file": location.file, "line": location.line, "column": location.column}
    if rule_id:
        error["rule"] = rule_id
    print(json.dumps({"error": error}))


def _output_failed(exc: OSError) -> int:
    """Standard output cannot be written (a full disk, a closed pipe): one line, exit 2, and no
    second complaint when Python flushes stdout at exit."""
    try:
        print(f"baloot: error: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
    except OSError:
        pass
    try:
        import os
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return EXIT_USAGE


def _variant_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("rules variant")
    group.add_argument("--preset", default="default", metavar="P",
                       help="a preset from rules/presets (see `baloot variants`); default: %(default)s")
    group.add_argument("--set", dest="sets", action="append", default=[], metavar="KNOB=VALUE",
                       help="override one knob (repeatable); knobs are listed by `baloot rules check --json`")
    group.add_argument("--overlay", dest="overlays", action="append", default=[], metavar="FILE",
                       help="apply an overlay (a name from rules/overlays or a .yaml path; repeatable)")


def _parse_sets(items) -> dict:
    sets = {}
    for item in items:
        if "=" not in item:
            raise _Usage(f"--set takes KNOB=VALUE, not {item!r}")
        name, value = item.split("=", 1)
        sets[name.strip()] = value.strip()
    return sets


class _Usage(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="baloot", description=(
        "baloot-spec: the rules of Baloot as data (rules/*.yaml), an engine that executes them, "
        "and a conformance corpus any implementation can be checked against."),
        epilog="Exit codes: 0 ok, 1 failures found, 2 usage error or unreadable input, 130 interrupted (Ctrl-C).")
    parser.add_argument("--version", action="version", version=f"baloot-spec {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    rules = commands.add_parser("rules", help="check and show the rules")
    rules_commands = rules.add_subparsers(dest="rules_command", metavar="SUBCOMMAND", parser_class=_Parser)
    check = rules_commands.add_parser("check", help="load, validate and compile the rules of a variant; print it",
                                      description="Load every rules file, check it against its schema, resolve the "
                                                  "variant and compile every expression. Prints the resolved variant "
                                                  "(preset, knob values, overlays, hash).")
    _variant_options(check)
    check.add_argument("--json", action="store_true", help="print the resolved variant as JSON")
    diff = rules_commands.add_parser(
        "diff", help="every knob and rule that differs between two variants",
        description="List every knob value and every rule item (by id) that differs between two variants, with the "
                    "source of each. A variant is a preset name or 'preset=P,set=KNOB=VALUE,overlay=NAME|FILE' (set "
                    "and overlay repeatable). --preset/--set/--overlay give one side, your own variant: B when A is "
                    "given, A when only --against is, else B against default.",
        epilog="Examples: baloot rules diff default riyadh; baloot rules diff default --against "
               "'preset=riyadh,set=kawesh=true,overlay=club.yaml'; baloot rules diff --overlay club.yaml")
    diff.add_argument("preset_a", metavar="A", nargs="?", help="a variant (default: default)")
    diff.add_argument("preset_b", metavar="B", nargs="?", help="the variant compared with A")
    diff.add_argument("--against", metavar="VARIANT", help="the variant compared with A (instead of B)")
    diff.add_argument("--preset", metavar="P", help="your variant's preset")
    diff.add_argument("--set", dest="sets", action="append", default=[], metavar="KNOB=VALUE",
                      help="your variant's knob value (repeatable)")
    diff.add_argument("--overlay", dest="overlays", action="append", default=[], metavar="FILE",
                      help="your variant's overlay (a name or a .yaml path; repeatable)")
    diff.add_argument("--json", action="store_true", help="print as JSON")
    names = rules_commands.add_parser(
        "names", help="every name an expression may use, per phase, with its type and meaning",
        description="List every name a rule expression may use in each context (a phase's rules and effects, "
                    "functions, facts, scoring steps, match steps): state, the action's fields, functions, "
                    "builtins, aggregates, constants and knobs, with its type (\"unknown\" where nothing declares "
                    "it) and meaning. Taken from the compiler's own scopes for the variant given. The language "
                    "itself: rules/LANGUAGE.md.")
    _variant_options(names)
    names.add_argument("--phase", metavar="P", help="only this phase (or: functions, facts, scoring, match)")
    names.add_argument("--json", action="store_true", help="print as JSON")
    doc = rules_commands.add_parser("doc", help="print rules/VARIANTS.md (the knob and preset tables)",
                                    description="Print the table of every knob (values, default, meaning, sources) "
                                                "and every preset, or write it with --out (the repository's copy: "
                                                "--out rules/VARIANTS.md).")
    doc.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output ('-': standard output)")
    doc.add_argument("--check", action="store_true",
                     help="exit 1 if FILE (default: the rules' VARIANTS.md) is out of date; write nothing")
    doc.add_argument("--language", action="store_true",
                     help="the expression language reference (rules/LANGUAGE.md) instead of the knob tables")

    variants = commands.add_parser("variants", help="list the presets and their sources")
    variants.add_argument("--json", action="store_true", help="print as JSON")

    conformance = commands.add_parser("conformance", help="run the conformance corpus")
    conf_commands = conformance.add_subparsers(dest="conformance_command", metavar="SUBCOMMAND", parser_class=_Parser)
    run = conf_commands.add_parser(
        "run", help="run the corpus against the built-in engine or any engine program; print a table by feature",
        description="Run every conformance case, each under the variant the case names, against the built-in "
                    "engine (in this process) or, with --engine, against an engine program spoken to over "
                    "baloot-protocol/1 (conformance/PROTOCOL.md). Each case ends as pass, fail, error, skipped, "
                    "unsupported (not claimed by the engine's hello) or not applicable (--preset).",
        epilog="Exit codes: 0 every selected case passes or is an expected failure, 1 otherwise (or a stale "
               "expected-failures entry), 2 usage error, unreadable input or an engine that cannot start.")
    run.add_argument("--engine", metavar="CMD",
                     help="the command that starts the engine (shell-split), e.g. 'node conformance/engines/node-sun/engine.js'")
    run.add_argument("--preset", metavar="P", help="run every case that applies to this preset's rules (with --set/--overlay: "
                                                    "to those rules), under those rules: its own variant agrees on every knob "
                                                    "it depends on (conformance/dependencies.json); the others: not applicable")
    run.add_argument("--set", dest="sets", action="append", default=[], metavar="KNOB=VALUE",
                     help="with --preset: the selected rules have this knob value (repeatable)")
    run.add_argument("--overlay", dest="overlays", action="append", default=[], metavar="FILE",
                     help="with --preset: the selected rules have this overlay (repeatable)")
    run.add_argument("--select", action="append", default=[], metavar="FEATURES",
                     help="only cases with one of these features (comma-separated, repeatable; a prefix like 'play' selects play.*)")
    run.add_argument("--exclude", action="append", default=[], metavar="FEATURES",
                     help="skip cases with one of these features (comma-separated, repeatable)")
    run.add_argument("--id", dest="id_pattern", metavar="PATTERN", help="only case ids matching this glob, e.g. 'play.ekka.*'")
    run.add_argument("--cases", dest="case_paths", action="append", default=[], metavar="PATH",
                     help="run the cases of this file or folder instead of the corpus (repeatable; validated like the "
                          "corpus: schema, features, unique ids)")
    run.add_argument("--expected-failures", dest="expected_failures", metavar="FILE",
                     help="cases known to fail, each with a reason: by case id or glob, rule id, knob=value or feature "
                          "(conformance/ENGINES.md); an entry that matches nothing or no longer fails fails the run")
    run.add_argument("--json", dest="json_out", metavar="FILE", help="also write a JSON report to FILE ('-' for stdout)")
    run.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE (one testsuite per area)")
    run.add_argument("--markdown", metavar="FILE", help="also write a Markdown compliance table to FILE ('-' for stdout)")
    run.add_argument("--timeout", type=float, default=10.0, metavar="S",
                     help="seconds the engine has for each response (default: %(default)s)")
    run.add_argument("--jobs", type=int, default=1, metavar="N",
                     help="engine processes run in parallel (with --engine; default: %(default)s)")
    run.add_argument("--quiet", action="store_true", help="print only failures and the totals")
    run.add_argument("--setup", choices=("events", "position"), default=None,
                     help="give every hand in this setup form only (conformance/PROTOCOL.md, Setup forms): 'position' "
                          "starts each case that has one from its position (conformance/positions.json; the others are "
                          "unsupported), 'events' from its deal and events. Default: in process events; with --engine "
                          "the position where the case has one and the engine's hello accepts it, else events")
    games = conf_commands.add_parser(
        "games", help="replay the recorded games (conformance/games/) through an engine, step by step",
        description="Replay game logs (baloot-log/1) through an engine program over baloot-protocol/1: before every "
                    "event the engine's turn and legal set are compared with the log's rules, the event must be "
                    "accepted, and each hand's claimed results are compared with the engine's. The first divergence "
                    "of each game is reported with the rule that decides it.",
        epilog="Exit codes: 0 every game agrees (or is not claimed by the engine), 1 a game diverges or errs, "
               "2 usage error or an engine that cannot start.")
    games.add_argument("paths", nargs="*", metavar="LOG", help="log files or folders (default: conformance/games)")
    games.add_argument("--engine", metavar="CMD", help="the command that starts the engine (default: the built-in engine)")
    games.add_argument("--setup", choices=("events", "position"), default=None,
                       help="give hands in this form only ('position': each hand from the start of its play)")
    games.add_argument("--timeout", type=float, default=10.0, metavar="S", help="seconds per response (default: %(default)s)")
    games.add_argument("--json", dest="json_out", metavar="FILE", help="also write a JSON report to FILE ('-' for stdout)")
    games.add_argument("--quiet", action="store_true", help="print only divergences, errors and the totals")
    _derive_command(conf_commands)
    from .conformance.command import add_fingerprint_parser
    add_fingerprint_parser(conf_commands)
    _log_commands(commands)
    commands.add_parser("perft", add_help=False,
                        help="count the action sequences of depth D from a position (baloot perft --help)")
    return parser


def _log_variant_options(parser, verb: str, title: str = "rules variant (default: the variant each log names)",
                         description: str | None = None) -> None:
    """--preset/--set/--overlay with no default preset: the input (a log, a position) names its own variant."""
    group = parser.add_argument_group(title, description)
    group.add_argument("--preset", metavar="P", help=f"{verb} under this preset instead")
    group.add_argument("--set", dest="sets", action="append", default=[], metavar="KNOB=VALUE", help="override a knob (repeatable)")
    group.add_argument("--overlay", dest="overlays", action="append", default=[], metavar="FILE", help="apply an overlay (repeatable)")


def _log_commands(commands) -> None:
    simulate = commands.add_parser("simulate", help="write seeded random games as baloot-log/1 JSON Lines",
                                   description="Play seeded random legal games with the built-in engine and write them "
                                               "as baloot-log/1 documents, one per line, with the engine's results as "
                                               "`claimed` (so they audit clean).")
    amount = simulate.add_mutually_exclusive_group(required=True)
    amount.add_argument("--hands", type=int, metavar="N", help="N independent hands (one document each)")
    amount.add_argument("--matches", type=int, metavar="N", help="N complete matches (one document each)")
    simulate.add_argument("--seed", type=int, default=0, help="random seed (default %(default)s)")
    simulate.add_argument("--out", metavar="FILE", default="-", help="output .jsonl file ('-' for stdout, the default)")
    _variant_options(simulate)

    audit = commands.add_parser("audit", help="check recorded games: every illegal action, every wrong score",
                                description="Replay every event of every hand under the log's variant (or the one "
                                            "given) and report every problem: illegal calls and cards with the rule "
                                            "and its source, actions out of turn, wrong deals, and every claimed score "
                                            "that differs from the recomputed one. Input files are never modified.",
                                epilog="Exit codes: 0 clean, 1 violations found, 2 unreadable input.")
    audit.add_argument("logs", nargs="+", metavar="LOG", help="files (.json, .jsonl), directories, or '-' for stdin")
    audit.add_argument("--json", action="store_true", help="print the report as JSON")
    audit.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    audit.add_argument("--progress", action="store_true", help="show progress on stderr even when it is not a terminal")
    audit.add_argument("--html", metavar="FILE", help="also write an HTML replay of the (single) log, each violation "
                                                      "marked at its event (see `baloot replay --html`)")
    audit.add_argument("--jsonl", metavar="FILE", help="also write every finding (violation, unreadable document, "
                       "claimed-score difference) as JSON Lines as it is found, one summary line per input file and "
                       "one for the run ('-' for stdout); combine shards' reports with `baloot audit merge`")
    audit.add_argument("--dask", metavar="ADDRESS", help="audit on a Dask cluster: a scheduler's address "
                       "(tcp://host:8786) or local[:N] (N worker processes here, default the core count); the "
                       "workers read the files themselves from the same paths (needs pip install 'baloot-spec[dask]')")
    audit.add_argument("--dask-range", type=int, default=4 << 20, metavar="BYTES",
                       help="with --dask: the bytes of a JSON Lines file one task reads (default 4 MiB)")
    _log_variant_options(audit, "audit")

    replay = commands.add_parser("replay", help="tell a recorded game hand by hand",
                                 description="Replay a baloot-log/1 game and tell it as a score sheet: deal, bidding, "
                                             "doubling, tricks, projects and Baloot, every scoring step, the match score.")
    replay.add_argument("log", metavar="LOG", help="a .json or .jsonl log ('-' for stdin)")
    replay.add_argument("--hand", type=int, metavar="K", help="only hand K (from 1)")
    replay.add_argument("--json", action="store_true", help="the same facts as JSON")
    replay.add_argument("--sheet", action="store_true",
                        help="the score sheet as players keep it: one line per hand (dealer, contract, doubling, card "
                             "points, projects and Baloot, written scores, running match score), then the result")
    replay.add_argument("--html", metavar="FILE", help="write one self-contained HTML page to step through the game "
                                                       "(the table, the legal actions, the scoring in words, the sheet)")
    _log_variant_options(replay, "replay")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        if argv[:2] == ["audit", "merge"]:  # combine --jsonl reports (audit_merge.py has its own options)
            from .audit_merge import run_merge_cli
            return run_merge_cli(argv[2:])
        if argv[:1] == ["perft"]:  # perft has its own options (baloot perft --help)
            from .perft import run_perft_cli
            return run_perft_cli(argv[1:])
        try:
            args = parser.parse_args(argv)
        except _ArgumentError as exc:
            _json_error(argv, exc.message)
            return EXIT_USAGE
        except SystemExit as exc:
            return int(exc.code or 0)
        if args.command == "rules" and args.rules_command == "check":
            return _rules_check(args)
        if args.command == "rules" and args.rules_command == "diff":
            return _rules_diff(args)
        if args.command == "rules" and args.rules_command == "doc":
            return _rules_doc(args)
        if args.command == "rules" and args.rules_command == "names":
            return _rules_names(args)
        if args.command == "variants":
            return _variants(args)
        if args.command in ("simulate", "audit", "replay"):
            from . import logcli
            return getattr(logcli, args.command)(args)
        if args.command == "conformance" and args.conformance_command == "run":
            return _conformance_run(args)
        if args.command == "conformance" and args.conformance_command == "derive":
            return _conformance_derive(args)
        if args.command == "conformance" and args.conformance_command == "games":
            return _conformance_games(args)
        if args.command == "conformance" and args.conformance_command == "fingerprint":
            return _conformance_run(args, "fingerprint_run")
        parser.print_help()
        return EXIT_USAGE
    except _Usage as exc:
        print(f"baloot: error: {exc}", file=sys.stderr)
        _json_error(argv, str(exc))
        return EXIT_USAGE
    except LocatedError as exc:
        print(f"baloot: {exc.render()}", file=sys.stderr)
        _json_error(argv, exc.message, exc.location, exc.rule_id)
        return EXIT_USAGE
    except BalootError as exc:
        print(f"baloot: error: {exc}", file=sys.stderr)
        _json_error(argv, str(exc))
        return EXIT_USAGE
    except BrokenPipeError as exc:
        return _output_failed(exc)
    except OSError as exc:
        if _is_stdout_error(exc):
            return _output_failed(exc)
        raise
    except KeyboardInterrupt:   # Ctrl-C: what was printed stands; no traceback
        print("baloot: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _is_stdout_error(exc: OSError) -> bool:
    """Whether an OSError is standard output failing (a full disk, an I/O error on it): the
    readers and writers of files report their own errors, located."""
    import errno
    return exc.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT, errno.EFBIG)


def console() -> int:
    """The `baloot` command: main(), then an exit that does not first examine every object.

    At exit CPython runs the cyclic GC over everything the run made (the compiled rules, the
    modules, a corpus's cases): 13 of the 21 ms an audit's exit took. Frozen, those objects are
    left to the operating system, as their memory is in any case; atexit handlers still run,
    and every file the command writes is closed by then (`with` blocks). main() itself, which
    tests call in one process, freezes nothing."""
    import gc
    code = main()
    gc.freeze()
    try:
        sys.stdout.flush()
    except OSError as exc:
        return _output_failed(exc)
    return code


def _rules_check(args) -> int:
    from .rules import load_variant
    rules = load_variant(args.preset, _parse_sets(args.sets), args.overlays)
    described = rules.variant.describe()
    counts = {
        "files": list(rules.variant.ruleset.files),
        "rules": len(rules.rules_by_id),
        "functions": len(rules.functions),
        "phases": list(rules.phases),
    }
    if args.json:
        print(json.dumps(described | {"loaded": counts}, indent=2))
        return EXIT_OK
    print(f"rules ok: {len(counts['files'])} files, {counts['rules']} rules, {counts['functions']} functions, "
          f"phases {' -> '.join(counts['phases'])}")
    print(f"preset:   {described['preset']}")
    print(f"hash:     {described['hash']} (rules_version {described['rules_version']})")
    if described["overlays"]:
        print(f"overlays: {', '.join(described['overlays'])}")
    print("knobs:")
    defaults = {name: knob.default for name, knob in rules.variant.params.items()}
    for name, value in described["params"].items():
        mark = "" if value == defaults[name] else "   (not the default)"
        print(f"  {name} = {show(value)}{mark}")
    return EXIT_OK


def _diff_sides(args):
    """Which two variants `rules diff` compares (rules/diff.py reads the variant syntax)."""
    from .rules.diff import VariantSpec, parse_spec
    a = parse_spec(args.preset_a) if args.preset_a else None
    b = parse_spec(args.preset_b) if args.preset_b else None
    if args.against:
        if b is not None:
            raise _Usage("give the second variant as B or as --against, not both")
        b = parse_spec(args.against)
    if args.preset or args.sets or args.overlays:
        own = VariantSpec(args.preset or "default", _parse_sets(args.sets), list(args.overlays))
        if a is not None and b is not None:
            raise _Usage("two variants are named already: --preset/--set/--overlay would be a third")
        if a is None and b is not None:
            a = own
        else:
            b = own
    return a or VariantSpec(), b or VariantSpec()


def _rules_diff(args) -> int:
    from .rules.diff import SpecError, diff_specs
    try:
        a, b = _diff_sides(args)
    except SpecError as exc:
        raise _Usage(str(exc)) from None
    diff = diff_specs(a, b)
    if args.json:
        print(json.dumps(diff, indent=2, default=str))
        return EXIT_OK
    print(f"a: {a.label} ({diff['a']['hash']})")
    print(f"b: {b.label} ({diff['b']['hash']})")
    print(f"{len(diff['knobs'])} knobs, {len(diff['rules'])} rule items differ")
    for knob in diff["knobs"]:
        print(f"  knob {knob['knob']}: {show(knob['a'])} -> {show(knob['b'])}")
        print(f"      a: {knob['source a']}")
        print(f"      b: {knob['source b']}")
    for rule in diff["rules"]:
        what = rule["difference"] + (f" ({', '.join(rule['fields'])})" if rule.get("fields") else "")
        print(f"  {rule['section'][:-1] if rule['section'].endswith('s') else rule['section']} {rule['id']}: {what}")
        if rule["difference"] == "changed":
            print(f"      a: {rule['source a']}")
            print(f"      b: {rule['source b']}")
        else:
            print(f"      {rule['source']}")
    return EXIT_OK


def _rules_names(args) -> int:
    from .rules import load_variant
    from .rules.names import NamesError, names_listing, names_text
    variant = load_variant(args.preset, _parse_sets(args.sets), args.overlays).variant
    try:
        listing = names_listing(variant, args.phase)
    except NamesError as exc:
        raise _Usage(str(exc)) from None
    print(json.dumps(listing, indent=2, default=str) if args.json else names_text(listing), end="\n" if args.json else "")
    return EXIT_OK


def _rules_doc(args) -> int:
    from .resources import rules_dir
    from .rules.docs import variants_markdown
    if args.language:
        from .rules.language import language_markdown
    text = language_markdown() if args.language else variants_markdown()
    if args.check:
        default = "LANGUAGE.md" if args.language else "VARIANTS.md"
        target = args.out if args.out and args.out != "-" else str(rules_dir() / default)
        try:
            current = open(target, encoding="utf-8").read()
        except OSError:
            current = None
        if current != text:
            print(f"{target} is out of date: run `baloot rules doc{' --language' if args.language else ''} --out {target}`",
                  file=sys.stderr)
            return EXIT_FOUND
        print(f"{target} is up to date")
        return EXIT_OK
    if not args.out or args.out == "-":
        print(text, end="")
        return EXIT_OK
    from .atomic import atomic_write
    try:
        with atomic_write(args.out) as handle:
            handle.write(text)
    except OSError as exc:
        raise _Usage(f"cannot write {args.out}: {exc.strerror or exc}") from None
    print(f"wrote {args.out}", file=sys.stderr)
    return EXIT_OK


def _variants(args) -> int:
    from .rules.loader import load_presets
    presets = load_presets()
    data = [{"preset": name, "title": doc["title"], "extends": doc.get("extends"), "sources": list(doc["sources"]),
             "set": {k: v for k, v in (doc.get("set") or {}).items()}, "overlays": list(doc.get("overlays") or [])}
            for name, (doc, _display) in sorted(presets.items())]
    if args.json:
        print(json.dumps(data, indent=2))
        return EXIT_OK
    for item in data:
        base = f" (extends {item['extends']})" if item["extends"] else ""
        print(f"{item['preset']}{base}: {item['title']}")
        for source in item["sources"]:
            print(f"    source: {source}")
        for knob, value in item["set"].items():
            print(f"    {knob} = {show(value)}")
    return EXIT_OK


def _conformance_run(args, entry: str = "run") -> int:
    from .conformance import command
    try:
        return getattr(command, entry)(args)
    except command.UsageProblem as exc:
        raise _Usage(str(exc)) from None


def _derive_command(conf_commands) -> None:
    derive = conf_commands.add_parser(
        "derive", help="write the corpus re-expected under a variant (presets, --set, overlays) by the reference engine",
        description="Move every conformance case to the given variant and answer it there with the built-in engine. "
                    "A case whose expectation holds is written as it is; one whose answer differs gets the new answer "
                    "and a `derived` field (its own variant and the rule ids that make the difference); one the "
                    "variant cannot answer (a setup event refused) is left out and counted. The files keep the "
                    "layout of conformance/cases; run them with baloot conformance run --cases DIR.",
        epilog="Exit codes: 0 written, 2 usage error (a non-empty --out without --force, a bad variant).")
    derive.add_argument("--preset", metavar="P", help="the preset (default: default)")
    derive.add_argument("--set", dest="sets", action="append", default=[], metavar="KNOB=VALUE",
                        help="override a knob (repeatable)")
    derive.add_argument("--overlay", dest="overlays", action="append", default=[], metavar="FILE",
                        help="apply an overlay (a name from rules/overlays or a .yaml path; repeatable)")
    derive.add_argument("--out", required=True, metavar="DIR", help="the folder to write (created; must be empty)")
    derive.add_argument("--force", action="store_true", help="write into a non-empty --out folder")
    derive.add_argument("--json", action="store_true", help="print the summary (counts, left-out cases) as JSON")


def _conformance_derive(args) -> int:
    from .conformance.derive import DeriveProblem, run
    args.parsed_sets = _parse_sets(args.sets)
    try:
        return run(args)
    except DeriveProblem as exc:
        raise _Usage(str(exc)) from None


def _conformance_games(args) -> int:
    from .conformance.games import UsageProblem, command
    try:
        return command(args)
    except UsageProblem as exc:
        raise _Usage(str(exc)) from None


if __name__ == "__main__":
    sys.exit(main())
