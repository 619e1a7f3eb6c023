"""`baloot perft`: count the action sequences from a position (perft.py), or check an engine
program's counts against the recorded ones (conformance/perft_engine.py).

It has its own options (`baloot perft --help`), parsed by run_perft_cli; the top-level parser
only lists the command."""

from __future__ import annotations

import argparse
import json
import sys
import time

from ..errors import BalootError
from ..perft import ENGINES, PositionError, load_position, setup, variant_hash, with_variant_options
from .options import EXIT_FOUND, EXIT_OK, EXIT_USAGE, Parser, Usage, log_variant_options, parse_sets

def register(commands) -> None:
    """List `perft` among the top-level commands (its options are its own: run_perft_cli)."""
    commands.add_parser("perft", add_help=False,
                        help="count the action sequences of depth D from a position (baloot perft --help)")


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="baloot perft", description="Count the action sequences of a given length from a "
                "position (perft), to check a move generator; with --divide, split by the first action.",
                epilog="Exit codes: 0 ok, 1 the count differs from the one recorded in the position, "
                       "2 usage error or unreadable position.")
    p.add_argument("--position", metavar="FILE",
                   help="a perft position (an entry of conformance/perft/<preset>/*.json), or a perft file with --id "
                        "(required unless --engine is a command: then every recorded position by default)")
    p.add_argument("--id", dest="position_id", metavar="ID", help="the position to take from a perft file")
    p.add_argument("--depth", type=int, metavar="D",
                   help="the sequence length (default: the deepest recorded count, else 1)")
    p.add_argument("--divide", action="store_true", help="print the count below each first action")
    p.add_argument("--engine", default="dsl", metavar="dsl|oracle|CMD",
                   help="the DSL engine (default), the oracle, or the command that starts an engine program speaking "
                        "baloot-protocol/1 (conformance/PROTOCOL.md): its answers to `perft` are compared with the "
                        "recorded counts")
    p.add_argument("--timeout", type=float, default=30.0, metavar="S",
                   help="with --engine CMD: seconds the engine has for each response (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    log_variant_options(p, "count", title="rules variant (default: the position's own `variant`)", description=(
        "The command line overrides the position file, part by part: --preset replaces the file's preset "
        "(the file's `set` knobs still apply on top of it), each --set replaces or adds that one knob, "
        "--overlay comes after the file's overlays. The counts recorded in the file are checked only when "
        "the resulting variant is the file's own (same variant hash); otherwise they are not compared."))
    return p


def _show_variant(variant: dict) -> str:
    from ..text import show
    parts = [f"preset {variant['preset']}"] + [f"{k}={show(v)}" for k, v in sorted(variant["set"].items())]
    return " ".join(parts + [f"overlay {o}" for o in variant.get("overlays", [])])


def run_perft_cli(argv) -> int:
    """`baloot perft ...`: 0 ok, 1 a recorded count differs, 2 usage error or bad position."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.engine not in ENGINES:
        return _run_engine_program(args)
    if args.position is None:
        print("baloot perft: error: --position is required (unless --engine is an engine command)", file=sys.stderr)
        return EXIT_USAGE
    try:
        try:
            sets = parse_sets(args.sets)
        except Usage as exc:
            raise PositionError(str(exc)) from None
        original = load_position(args.position, args.position_id)
        position = with_variant_options(original, args.preset, sets, args.overlays)
        recorded = original.get("counts") or {}
        depth = args.depth if args.depth is not None else max((int(d) for d in recorded if str(d).isdigit()), default=1)
        if depth < 0:
            raise PositionError("--depth must be 0 or more")
        if position is not original and recorded and variant_hash(position) != variant_hash(original):
            recorded = {}                      # counts recorded under another variant: not compared
        hand, counter = setup(position, args.engine)
        start = time.perf_counter()
        split = counter.divide(hand, depth) if args.divide else counter.perft(hand, depth)
        seconds = time.perf_counter() - start
    except BalootError as exc:
        print(f"baloot perft: {exc}", file=sys.stderr)
        return EXIT_USAGE
    nodes = sum(split.values()) if args.divide else split
    if args.divide and depth == 0:
        nodes = 1
    expected = recorded.get(str(depth))
    if args.json:
        out = {"id": position.get("id"), "engine": args.engine, "variant": position.get("variant", {"preset": "default"}),
               "depth": depth, "nodes": nodes, "expected": expected, "seconds": round(seconds, 3)}
        if args.divide:
            out["divide"] = dict(sorted(split.items()))
        print(json.dumps(out, indent=2))
    else:
        if args.divide:
            for key, n in sorted(split.items()):
                print(f"{key}: {n}")
        verdict = "" if expected is None else (" (recorded: ok)" if expected == nodes else f" (recorded: {expected}: DIFFERENT)")
        shown = "" if position is original else ", " + _show_variant(position["variant"])
        print(f"{position.get('id', args.position)}: perft({depth}) = {nodes} [{args.engine}{shown}, {seconds:.2f}s]{verdict}")
    return EXIT_FOUND if expected is not None and expected != nodes else EXIT_OK


def _run_engine_program(args) -> int:
    """`baloot perft --engine CMD`: the recorded counts against an engine over the protocol."""
    import os
    import shlex
    from ..conformance.perft_engine import frozen_positions, run_perft_engine
    from ..conformance.process import EngineFailure
    if args.preset or args.sets or args.overlays or args.divide:
        print("baloot perft: error: --preset, --set, --overlay and --divide are not used with an engine command",
              file=sys.stderr)
        return EXIT_USAGE
    if not args.timeout > 0 or (args.depth is not None and args.depth < 0):
        print("baloot perft: error: --timeout must be above 0 and --depth 0 or more", file=sys.stderr)
        return EXIT_USAGE
    try:
        argv = shlex.split(args.engine, posix=(os.name == "posix"))
        positions = ([(args.position, load_position(args.position, args.position_id))] if args.position
                     else frozen_positions())
    except (ValueError, BalootError) as exc:
        print(f"baloot perft: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        hello, results, seconds = run_perft_engine(argv, positions, args.depth, args.timeout)
    except EngineFailure as exc:
        print(f"baloot perft: the engine {args.engine!r} cannot be used: {exc.message}", file=sys.stderr)
        return EXIT_USAGE
    counts = {}
    for result in results:
        counts[result["status"]] = counts.get(result["status"], 0) + 1
    failing = counts.get("fail", 0) + counts.get("error", 0)
    if args.json:
        print(json.dumps({"engine": hello["engine"], "positions": results, "totals": counts,
                          "seconds": round(seconds, 3)}, indent=2))
    else:
        for result in results:
            shown = ", ".join(f"perft({d}) = {v['nodes']}" for d, v in result["depths"].items())
            print(f"{result['status'].upper():<11} {result['id']} ({result['file']}): {result['message'] or shown}")
        name = f"{hello['engine'].get('name', '?')} {hello['engine'].get('version', '')}".strip()
        print("perft: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) +
              f" of {len(results)} positions ({name}, {seconds:.2f}s)")
    return EXIT_FOUND if failing else EXIT_OK
