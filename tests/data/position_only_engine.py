"""A fake engine for tests/test_positions.py: it takes hands ONLY as positions.

It is the built-in engine behind the protocol (baloot_spec.conformance.serve) with the auction
and the doubling cut off, like an engine whose bidding differs from ours or that has none:
hello says `"setups": ["position"]` and only the commands of hand cases; a new_hand with a deal
is errored; a position in the doubling, and a bid, trump, pickup or double event, are answered
`skipped` (it does not implement them). Play cases from a position still pass.

    baloot conformance run --engine "python tests/data/position_only_engine.py"
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from baloot_spec.conformance.serve import BuiltinEngine  # noqa: E402

AUCTION = ("bid", "trump", "pickup", "double")


def answer(engine: BuiltinEngine, request: dict) -> dict:
    seq, cmd = request.get("seq"), request.get("cmd")
    if cmd == "hello":
        hello = engine.handle(request)
        hello.update(engine={"name": "position-only fake", "version": "0"}, setups=["position"],
                     commands=["new_hand", "apply", "query"])
        return hello
    if cmd == "new_hand" and "position" not in request:
        return {"seq": seq, "errored": "this engine takes positions only"}
    if cmd == "new_hand" and request["position"].get("phase") != "play":
        return {"seq": seq, "skipped": f"no {request['position'].get('phase')} here: positions in the play only"}
    if cmd == "apply" and any(e.get("type") in AUCTION for e in request.get("events", [])):
        return {"seq": seq, "skipped": "no auction or doubling here: positions only"}
    return engine.handle(request)


def main() -> int:
    engine = BuiltinEngine()
    for line in sys.stdin:
        if not line.strip():
            continue
        response = answer(engine, json.loads(line))
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()
        if engine.stopped:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
