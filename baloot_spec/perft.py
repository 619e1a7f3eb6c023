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
(conformance/perft_engine.py). The command line itself is cli/perft.py.

The variant is the position's own (`variant` in the file) unless the command line gives one: see
`with_variant_options` for how the two combine.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .errors import BalootError

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
