"""Perft: how many action sequences of a given length a position has, as chess engines count.

Two engines that agree on every perft count agree on the legal actions of every position of
the tree, so conformance/perft/ pins the move generator far beyond hand-written cases. A
node's children are its legal actions; announcements (Ekka, Baloot, projects) are not separate
actions, so the tree plays every card without them (a setup may make them). A finished hand is
a leaf. Counts were recorded only where this engine and the independent oracle agreed
(tools/perft_freeze.py).

    baloot perft --position FILE [--id ID] [--depth D] [--divide] [--engine dsl|oracle] [--json]
                 [--preset P] [--set KNOB=VALUE ...] [--overlay FILE ...]
    baloot perft --engine CMD [--position FILE [--id ID]] [--depth D] [--timeout S] [--json]

With a command as --engine, the recorded counts (every position of conformance/perft/, or the
one given) are checked against that engine program over the protocol's `perft` command
(conformance/perft_engine.py).

The variant is the position's own (`variant` in the file) unless the command line gives one: see
`with_variant_options` for how the two combine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .errors import BalootError

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
ENGINES = ("dsl", "oracle")


def perft(hand, depth: int) -> int:
    """The number of distinct action sequences of length `depth` from the position."""
    if depth == 0:
        return 1
    seat = hand.turn()
    if seat is None:
        return 0
    actions = hand.legal()
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        child = hand.copy()
        child.apply(dict(action, seat=seat))
        total += perft(child, depth - 1)
    return total


def divide(hand, depth: int) -> dict:
    """perft split by the first action: {canonical action JSON: count of depth - 1 below it}."""
    seat = hand.turn()
    if depth < 1 or seat is None:
        return {}
    out = {}
    for action in hand.legal():
        child = hand.copy()
        child.apply(dict(action, seat=seat))
        out[action_key(action)] = perft(child, depth - 1)
    return out


def action_key(action: dict) -> str:
    """An action as canonical JSON: no seat; a double without `closed` is an open one."""
    out = {k: v for k, v in action.items() if k != "seat"}
    if out.get("type") == "double":
        out["closed"] = bool(out.get("closed", False))
    return json.dumps(out, sort_keys=True)


# ---- positions ------------------------------------------------------------------------------

class PositionError(BalootError):
    """A perft position that cannot be read or set up."""


def load_position(path, position_id: str | None = None) -> dict:
    """A perft position: a file holding one entry, or a perft file and the id of an entry."""
    from .limits import InputLimitError, loads
    try:
        data = loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise PositionError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except InputLimitError as exc:
        raise PositionError(f"{path}:{exc.line}:{exc.column}: {exc.message}" if exc.line else f"{path}: {exc.message}") from None
    except ValueError as exc:
        raise PositionError(f"{path}: not UTF-8 text: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("positions"), list):
        entries = data["positions"]
        if position_id is None and len(entries) != 1:
            ids = ", ".join(str(e.get("id")) for e in entries if isinstance(e, dict))
            raise PositionError(f"{path} holds {len(entries)} positions; choose one with --id ({ids})")
        found = [e for e in entries if isinstance(e, dict) and (position_id is None or e.get("id") == position_id)]
        if not found:
            raise PositionError(f"{path}: no position with id {position_id!r}")
        data = found[0]
    elif position_id is not None and isinstance(data, dict) and data.get("id") != position_id:
        raise PositionError(f"{path}: the position's id is {data.get('id')!r}, not {position_id!r}")
    if not isinstance(data, dict) or not isinstance(data.get("setup"), dict) or "deal" not in data["setup"]:
        raise PositionError(f"{path}: a position is an object with 'setup' (dealer, deal, events) and 'variant'")
    variant = data.get("variant", {"preset": "default"})
    if not isinstance(variant, dict) or not isinstance(variant.get("preset", "default"), str):
        raise PositionError(f"{path}: 'variant' is {{\"preset\": P, \"set\": {{...}}}}")
    return data


def with_variant_options(position: dict, preset: str | None = None, sets: dict | None = None,
                         overlays: list | None = None) -> dict:
    """The position under the command line's variant laid over the file's, part by part: `preset`
    replaces the file's preset, each knob of `sets` replaces or adds that knob to the file's `set`
    (the file's other knobs stay), `overlays` come after the file's. Knob values are resolved (typed)
    by the rules, so both engines read the same values. Without options, the position unchanged."""
    if preset is None and not sets and not overlays:
        return position
    from .rules import load_variant
    mine = position.get("variant") or {}
    variant = {"preset": preset if preset is not None else mine.get("preset", "default"),
               "set": dict(mine.get("set") or {}) | dict(sets or {}),
               "overlays": list(mine.get("overlays") or []) + list(overlays or [])}
    rules = load_variant(variant["preset"], variant["set"], variant["overlays"])
    variant["set"] = {name: rules.variant.knobs[name] for name in variant["set"]}
    if not variant["overlays"]:
        del variant["overlays"]
    return dict(position, variant=variant)


def variant_hash(position: dict) -> str:
    """The hash of the position's resolved variant (the DSL's reading)."""
    from .rules import load_variant
    variant = position.get("variant") or {}
    return load_variant(variant.get("preset", "default"), variant.get("set") or {}, variant.get("overlays") or []).hash


def dsl_hand(position: dict):
    """The position in the DSL engine (rules loaded for its variant, setup events replayed)."""
    from .rules import load_variant
    variant = position.get("variant") or {}
    rules = load_variant(variant.get("preset", "default"), variant.get("set") or {}, variant.get("overlays") or [])
    from .conformance.runner import SetupRefused, replay_setup
    setup = dict(position["setup"])
    setup.setdefault("dealer", rules.table.seats[0])
    try:
        return replay_setup(rules, setup)
    except SetupRefused as refusal:
        raise PositionError(str(refusal)) from None


def oracle_modules():
    """tools/oracle (oracle, presets, perft) from the checkout; it is not part of the package."""
    tools = Path(__file__).resolve().parent.parent / "tools"
    if not (tools / "oracle" / "oracle.py").is_file():
        raise PositionError(f"the oracle is in a checkout's tools/oracle, not found at {tools / 'oracle'}")
    if str(tools) not in sys.path:
        sys.path.insert(0, str(tools))
    from oracle import oracle, perft as oracle_perft, presets
    return oracle, presets, oracle_perft


def oracle_hand(position: dict):
    """The position in the oracle (its own reading of the preset, plus the variant's knobs)."""
    oracle, presets, _ = oracle_modules()
    variant = position.get("variant") or {}
    preset = variant.get("preset", "default")
    if preset not in presets.PRESETS:
        raise PositionError(f"the oracle has no preset {preset!r}")
    if variant.get("overlays"):
        raise PositionError("the oracle does not read overlays")
    knobs = dict(presets.PRESETS[preset])
    knobs.update(variant.get("set") or {})
    setup = position["setup"]
    try:
        hand = oracle.Hand(setup.get("dealer", "N"), setup["deal"], setup.get("match_scores"), knobs)
    except (KeyError, ValueError) as exc:
        raise PositionError(f"the oracle cannot set up the position: {exc}") from None
    for index, event in enumerate(setup.get("events", [])):
        try:
            hand.apply(event)
        except oracle.Reject as refusal:
            raise PositionError(f"setup.events[{index}] {json.dumps(event)} was refused by the oracle: {refusal}") from None
    return hand


def setup(position: dict, engine: str = "dsl"):
    """(the position in `engine`, that engine's perft module-like functions (perft, divide))."""
    if engine == "oracle":
        return oracle_hand(position), oracle_modules()[2]
    return dsl_hand(position), sys.modules[__name__]


def count(position: dict, depth: int, engine: str = "dsl", split: bool = False):
    """perft (or divide with split=True) of a position in one engine."""
    hand, counter = setup(position, engine)
    return counter.divide(hand, depth) if split else counter.perft(hand, depth)


# ---- command line ---------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="baloot perft", description="Count the action sequences of a given length from a "
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
    from .cli import _log_variant_options
    _log_variant_options(p, "count", title="rules variant (default: the position's own `variant`)", description=(
        "The command line overrides the position file, part by part: --preset replaces the file's preset "
        "(the file's `set` knobs still apply on top of it), each --set replaces or adds that one knob, "
        "--overlay comes after the file's overlays. The counts recorded in the file are checked only when "
        "the resulting variant is the file's own (same variant hash); otherwise they are not compared."))
    return p


def _show_variant(variant: dict) -> str:
    from .text import show
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
        from .cli import _parse_sets, _Usage
        try:
            sets = _parse_sets(args.sets)
        except _Usage as exc:
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
    from .conformance.perft_engine import frozen_positions, run_perft_engine
    from .conformance.process import EngineFailure
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
