"""The `baloot` command line: the top-level parser, the one table of command families, and
main(), which turns every expected problem into a message and an exit code.

Exit codes everywhere: 0 ok, 1 failures or violations found, 2 usage error or unreadable input
(rules, cases, logs), 130 interrupted. Problems with input are printed located (file:line:col, rule id, caret),
never as a traceback.

A command family is a module of this package with `register(commands)`, which adds its
sub-parsers and sets `handler` (a function of the parsed arguments returning the exit code) on
each. To add a command, add it to its family's register(), or add a family to FAMILIES.
"""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from ..errors import BalootError, LocatedError
from . import conformance, logs, perft, rules
from .options import (EXIT_INTERRUPTED, EXIT_USAGE, ArgumentError, Parser, Usage, is_stdout_error, json_error,
                      output_failed)

# The command families, in the order `baloot --help` lists them.
FAMILIES = (rules, conformance, logs, perft)


def _own_options(argv: list):
    """The commands that parse their own options, given the rest of argv: (function, rest) or None."""
    if argv[:2] == ["audit", "merge"]:  # combine --jsonl reports (its own options)
        return logs.audit_merge, argv[2:]
    if argv[:1] == ["perft"]:  # perft has its own options (baloot perft --help)
        return perft.run_perft_cli, argv[1:]
    return None


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="baloot", description=(
        "baloot-spec: the rules of Baloot as data (rules/*.yaml), an engine that executes them, "
        "and a conformance corpus any implementation can be checked against."),
        epilog="Exit codes: 0 ok, 1 failures found, 2 usage error or unreadable input, 130 interrupted (Ctrl-C).")
    parser.add_argument("--version", action="version", version=f"baloot-spec {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for family in FAMILIES:
        family.register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        own = _own_options(argv)
        if own is not None:
            command, rest = own
            return command(rest)
        try:
            args = parser.parse_args(argv)
        except ArgumentError as exc:
            json_error(argv, exc.message)
            return EXIT_USAGE
        except SystemExit as exc:
            return int(exc.code or 0)
        handler = getattr(args, "handler", None)
        if handler is None:   # no command, or a command family without its subcommand
            getattr(args, "help_of", parser).print_help()
            return EXIT_USAGE
        return handler(args)
    except Usage as exc:
        print(f"baloot: error: {exc}", file=sys.stderr)
        json_error(argv, str(exc))
        return EXIT_USAGE
    except LocatedError as exc:
        print(f"baloot: {exc.render()}", file=sys.stderr)
        json_error(argv, exc.message, exc.location, exc.rule_id)
        return EXIT_USAGE
    except BalootError as exc:
        print(f"baloot: error: {exc}", file=sys.stderr)
        json_error(argv, str(exc))
        return EXIT_USAGE
    except BrokenPipeError as exc:
        return output_failed(exc)
    except OSError as exc:
        if is_stdout_error(exc):
            return output_failed(exc)
        raise
    except KeyboardInterrupt:   # Ctrl-C: what was printed stands; no traceback
        print("baloot: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


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
        return output_failed(exc)
    return code
