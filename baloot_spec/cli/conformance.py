"""`baloot conformance run|games|derive`: the corpus against an engine, and re-expected under a variant.

The work is done in conformance/ (command.py, games.py, derive.py); this module defines the
options and turns their usage problems into the CLI's usage error (exit 2)."""

from __future__ import annotations

from .options import Parser, Usage, parse_sets


def register(commands) -> None:
    """Add `conformance` (run, games, derive) to the top-level subcommands."""
    conformance = commands.add_parser("conformance", help="run the conformance corpus")
    conformance.set_defaults(help_of=conformance)   # `baloot conformance` alone: this help, not the top-level one
    conf_commands = conformance.add_subparsers(dest="conformance_command", metavar="SUBCOMMAND", parser_class=Parser)
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
    run.set_defaults(handler=_conformance_run)
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
    games.set_defaults(handler=_conformance_games)
    _derive_command(conf_commands)
    from ..conformance.command import add_fingerprint_parser
    add_fingerprint_parser(conf_commands).set_defaults(handler=_conformance_fingerprint)


def _conformance_fingerprint(args) -> int:
    from ..conformance.command import UsageProblem, fingerprint_run
    try:
        return fingerprint_run(args)
    except UsageProblem as exc:
        raise Usage(str(exc)) from None


def _conformance_run(args) -> int:
    from ..conformance.command import UsageProblem, run
    args.parsed_sets = parse_sets(args.sets)
    try:
        return run(args)
    except UsageProblem as exc:
        raise Usage(str(exc)) from None


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
    derive.set_defaults(handler=_conformance_derive)


def _conformance_derive(args) -> int:
    from ..conformance.derive import DeriveProblem, run
    args.parsed_sets = parse_sets(args.sets)
    try:
        return run(args)
    except DeriveProblem as exc:
        raise Usage(str(exc)) from None


def _conformance_games(args) -> int:
    from ..conformance.games import UsageProblem, command
    try:
        return command(args)
    except UsageProblem as exc:
        raise Usage(str(exc)) from None

