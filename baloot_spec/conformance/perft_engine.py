"""`baloot perft --engine CMD`: the frozen perft counts of conformance/perft/ checked against an
engine program over baloot-protocol/1 (its optional `perft` command).

For each position the harness starts a hand (`new_hand` with the position's variant, dealer,
deal and match scores), replays its setup events (`apply`, all must be accepted), then asks
`perft` at each recorded depth and compares the answer with the recorded count. A position
outside the engine's claims (the `perft` command, its preset or knob values) is `unsupported`;
a `skipped` answer is `skipped`; anything the engine does wrong is an `error` of that position.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..resources import conformance_dir
from .corpus import Case
from .drive import start_hand
from .protocol_engine import Claims, Errored, ProtocolEngine, SetupRefused, Skipped
from .process import EngineFailure
from .protocol import ProtocolError
from .runner import ERROR, FAIL, PASS
from .status import SKIPPED, UNSUPPORTED


def frozen_positions(root: Path | None = None) -> list[tuple[str, dict]]:
    """(file as the repository names it, position) for every position of conformance/perft/."""
    root = root or conformance_dir() / "perft"
    out = []
    for path in sorted(root.glob("*/*.json")):
        for position in json.loads(path.read_text(encoding="utf-8"))["positions"]:
            out.append((f"conformance/perft/{path.relative_to(root).as_posix()}", position))
    return out


def unclaimed(claims: Claims, position: dict) -> list[str]:
    """What the position needs that the engine's hello does not claim."""
    return claims.unclaimed(("new_hand", "apply", "perft"), position.get("variant") or {})


def check_position(engine: ProtocolEngine, claims: Claims, where: str, position: dict, depth: int | None) -> dict:
    """The verdict of one position: {id, file, status, depths: {d: {nodes, expected}}, message}."""
    recorded = {int(d): n for d, n in (position.get("counts") or {}).items() if n is not None}
    depths = [depth] if depth is not None else sorted(recorded)
    out = {"id": position.get("id"), "file": where, "status": PASS, "depths": {}, "message": ""}
    missing = unclaimed(claims, position)
    if missing:
        return dict(out, status=UNSUPPORTED, message="not claimed by the engine: " + "; ".join(missing))
    data = {"id": position.get("id", "perft"), "variant": position.get("variant") or {"preset": "default"},
            "setup": dict({"dealer": "N"}, **position["setup"])}
    try:
        engine.begin_case()
        start_hand(engine, Case(data, where, 0))
        wrong = []
        for d in depths:
            nodes = engine.ask("perft", depth=d)["nodes"]
            expected = recorded.get(d)
            out["depths"][str(d)] = {"nodes": nodes, "expected": expected}
            if expected is not None and nodes != expected:
                wrong.append(f"perft({d}) = {nodes}, recorded {expected}")
        if wrong:
            out.update(status=FAIL, message="; ".join(wrong))
    except Skipped as exc:
        out.update(status=SKIPPED, message=f"skipped by the engine: {exc}")
    except Errored as exc:
        out.update(status=ERROR, message=f"the engine reported an error: {exc.args[0]}")
    except (SetupRefused, ProtocolError) as exc:
        out.update(status=ERROR, message=str(exc))
    except EngineFailure as exc:
        out.update(status=ERROR, message=f"engine {exc.kind}: {exc.message}")
    return out


def run_perft_engine(argv: list[str], positions: list[tuple[str, dict]], depth: int | None = None,
                     timeout: float = 30.0) -> tuple[dict, list[dict], float]:
    """(the engine's hello, one verdict per position, seconds); EngineFailure when it cannot start."""
    started = time.perf_counter()
    engine = ProtocolEngine(argv, timeout)
    try:
        hello = engine.start()
        claims = Claims.from_hello(hello)
        results = [check_position(engine, claims, where, position, depth) for where, position in positions]
    finally:
        engine.close()
    return hello, results, time.perf_counter() - started
