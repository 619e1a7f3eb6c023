"""What every command of the `baloot` command line shares: exit codes, the argument parser that
reports usage errors as exit 2, the usage error itself, the rules-variant options
(--preset/--set/--overlay) and how --set values are read, and the JSON form of an error.

Command modules import from here and never from each other, so a command can be changed or
added without touching the rest."""

from __future__ import annotations

import argparse
import json
import sys

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130   # (128 + SIGINT, as a shell reports it)


class Usage(Exception):
    """Bad command-line input found after parsing: main() prints it and exits 2."""


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error raised as ArgumentError (exit 2) instead of exiting."""

    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise ArgumentError(f"{self.prog}: {message}")


class ArgumentError(SystemExit):
    """argparse's usage error, carrying its message (for --json)."""

    def __init__(self, message: str):
        super().__init__(EXIT_USAGE)
        self.message = message


def parse_sets(items) -> dict:
    """--set KNOB=VALUE ... as {KNOB: VALUE} (values still text: the rules type them)."""
    sets = {}
    for item in items:
        if "=" not in item:
            raise Usage(f"--set takes KNOB=VALUE, not {item!r}")
        name, value = item.split("=", 1)
        sets[name.strip()] = value.strip()
    return sets


def variant_options(parser: argparse.ArgumentParser) -> None:
    """--preset/--set/--overlay for a command that runs one variant (default: the default preset)."""
    group = parser.add_argument_group("rules variant")
    group.add_argument("--preset", default="default", metavar="P",
                       help="a preset from rules/presets (see `baloot variants`); default: %(default)s")
    group.add_argument("--set", dest="sets", action="append", default=[], metavar="KNOB=VALUE",
                       help="override one knob (repeatable); knobs are listed by `baloot rules check --json`")
    group.add_argument("--overlay", dest="overlays", action="append", default=[], metavar="FILE",
                       help="apply an overlay (a name from rules/overlays or a .yaml path; repeatable)")


def log_variant_options(parser, verb: str, title: str = "rules variant (default: the variant each log names)",
                        description: str | None = None) -> None:
    """--preset/--set/--overlay with no default preset: the input (a log, a position) names its own variant."""
    group = parser.add_argument_group(title, description)
    group.add_argument("--preset", metavar="P", help=f"{verb} under this preset instead")
    group.add_argument("--set", dest="sets", action="append", default=[], metavar="KNOB=VALUE", help="override a knob (repeatable)")
    group.add_argument("--overlay", dest="overlays", action="append", default=[], metavar="FILE", help="apply an overlay (repeatable)")


def json_error(argv: list, message: str, location=None, rule_id=None) -> None:
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


def output_failed(exc: OSError) -> int:
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


def is_stdout_error(exc: OSError) -> bool:
    """Whether an OSError is standard output failing (a full disk, an I/O error on it): the
    readers and writers of files report their own errors, located."""
    import errno
    return exc.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT, errno.EFBIG)
